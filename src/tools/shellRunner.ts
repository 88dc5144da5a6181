// Runs one shell command for longhaul_runCommand: no vscode import, unit-tested with real processes.
//
// - The command runs in its own process group. A timeout or a cancel kills the group, closes the
//   pipes and answers within a second, whatever descendants do: one that left the group
//   (`setsid`, a daemon) can hold the pipes open forever, and `close` would never come.
// - When the shell exits but something it started still holds the output open, Longhaul waits a
//   second for the output to end, then stops the group and answers.
// - When the command ends, whatever it left running (in its group, its session, or carrying its
//   run id after a setsid) is killed: processReaper.ts.
// - The output kept for the model is its head and a rolling tail, with the exact count of what
//   was cut between them: the error at the end of a long build is what matters.
// - What is shown in the terminal is capped too (see cappedWriter).
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { type Writable } from 'node:stream';
import { gitHardeningEnv } from '../common/sandbox/gitHardening';
import { proxyEnv } from '../common/sandbox/networkPolicy';
import { bwrapArgs, type SandboxEngine, type SandboxPlan } from '../common/sandbox/sandboxPolicy';
import { sandboxExecArgs } from '../common/sandbox/seatbeltProfile';
import { SECCOMP_FD, unixSocketFilter } from '../common/sandbox/unixSocketFilter';
import { removePlaceholders, sandboxMemory } from './commandSandbox';
import { joined, type ProcessGroup } from './processLimit';
import { newRunId, RUN_ID_VARIABLE, stopLeftovers } from './processReaper';

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const MAX_TIMEOUT_SECONDS = 1800;

/** The time limit from what the model sent: seconds as a number or numeric text, else the default. */
export function timeoutMs(value: unknown): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	const seconds = typeof n === 'number' && Number.isFinite(n) ? n : DEFAULT_TIMEOUT_SECONDS;
	return Math.round(Math.min(Math.max(1, seconds), MAX_TIMEOUT_SECONDS) * 1000);
}

/** Keeps the first `headChars` and the last `tailChars` characters of a stream, and counts the rest. */
export class OutputKeeper {
	private head = '';
	private tail = '';
	private total = 0;

	constructor(
		private readonly headChars: number,
		private readonly tailChars: number,
	) {}

	add(text: string): void {
		this.total += text.length;
		if (this.head.length < this.headChars) {
			const take = text.slice(0, this.headChars - this.head.length);
			this.head += take;
			text = text.slice(take.length);
		}
		if (text) {
			this.tail += text;
			// Trim only now and then, so a stream of small chunks costs linear time.
			if (this.tail.length > 2 * this.tailChars) this.tail = this.tail.slice(-this.tailChars);
		}
	}

	/** Characters seen in all. */
	get totalChars(): number {
		return this.total;
	}

	/** Characters dropped between the head and the tail. */
	get cutChars(): number {
		return this.total - this.head.length - Math.min(this.tail.length, this.tailChars);
	}

	text(): string {
		const tail = this.tail.slice(-this.tailChars);
		const cut = this.cutChars;
		return cut > 0
			? `${this.head}\n[... ${cut} characters of output cut here; the first ${this.head.length} and the last ${tail.length} are kept ...]\n${tail}`
			: this.head + tail;
	}
}

/**
 * Passes at most `maxChars` characters to `write`, then writes `note` once and drops the rest: a
 * command that prints 50 MB does not stream all of it to the terminal.
 */
export function cappedWriter(write: (text: string) => void, maxChars: number, note: string): (text: string) => void {
	let written = 0;
	let capped = false;
	return text => {
		if (capped) return;
		if (written + text.length <= maxChars) {
			written += text.length;
			write(text);
			return;
		}
		write(text.slice(0, maxChars - written));
		written = maxChars;
		capped = true;
		write(note);
	};
}

export interface ShellOptions {
	readonly command: string;
	readonly cwd: string;
	readonly timeoutMs: number;
	readonly signal?: AbortSignal;
	readonly onOutput?: (text: string) => void;
	readonly headChars?: number;
	readonly tailChars?: number;
	/** After the shell exits, how long the output may stay open before the group is stopped. */
	readonly drainMs?: number;
	/** After a kill, how long to wait for the shell to be reaped before answering anyway. */
	readonly killWaitMs?: number;
	readonly shell?: string;
	/** Runs the shell inside the sandbox with this plan (src/common/sandbox/sandboxPolicy.ts). */
	readonly sandbox?: { readonly engine: SandboxEngine; readonly plan: SandboxPlan };
}

export interface ShellOutcome {
	readonly exitCode: number | null;
	readonly signal: NodeJS.Signals | null;
	/** Head and tail of stdout and stderr as they came, with a note where the middle was cut. */
	readonly output: string;
	readonly totalChars: number;
	readonly cutChars: number;
	readonly timedOut: boolean;
	readonly cancelled: boolean;
	/** The shell exited but processes it started kept the output open; they were stopped. */
	readonly leftRunning: boolean;
	/** Processes the command left running when it ended (detached ones too) that were killed. */
	readonly stoppedLeftovers: number;
	readonly error?: string;
}

/** The program, its arguments and the environment it adds: the shell, or the sandbox running it. */
function launch(options: ShellOptions, shell: string, group: ProcessGroup | undefined): [string, string[], Record<string, string>] {
	const { sandbox, command } = options;
	if (!sandbox) return [shell, ['-c', command], {}];
	const { engine, plan } = sandbox;
	// bwrap starts with the environment the plan lists (`--clearenv`), not this one, in its own pids cgroup where there is one.
	if (engine.kind === 'bwrap') {
		const [program, args] = group ? joined(group, engine.program, bwrapArgs(plan, command, shell)) : [engine.program, bwrapArgs(plan, command, shell)];
		return [program, args, {}];
	}
	// Seatbelt (macOS) keeps the host's environment: the temporary folder and the proxy are set here.
	const env: Record<string, string> = { ...(plan.tmp ? { TMPDIR: plan.tmp } : {}), ...(plan.proxyPort ? proxyEnv(plan.proxyPort) : {}) };
	return [engine.program, sandboxExecArgs(plan, command, plan.tmp ?? '/nonexistent', plan.proxyPort, shell), env];
}

/**
 * The shell (or the sandbox running it), in its own session and process group (detached) so that
 * all of it can be stopped, with git's hardening settings in its environment (gitHardening.ts).
 */
function spawnShell(options: ShellOptions, runId: string, group: ProcessGroup | undefined): ChildProcess {
	const [program, args, env] = launch(options, options.shell ?? '/bin/sh', group);
	// bwrap reads the seccomp filter from descriptor SECCOMP_FD (a pipe here), then closes it.
	const filter = options.sandbox?.engine.kind === 'bwrap' && options.sandbox.plan.unixSocketFilter ? unixSocketFilter() : undefined;
	const child = spawn(program, args, {
		cwd: options.cwd,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe', ...(filter ? (['pipe'] as const) : [])],
		env: { ...process.env, ...gitHardeningEnv(process.env), ...env, [RUN_ID_VARIABLE]: runId },
	});
	if (filter) {
		const input = child.stdio[SECCOMP_FD] as Writable;
		input.on('error', () => undefined);
		input.end(filter);
	}
	return child;
}

/** What a failed start means: Node says "spawn /bin/sh ENOENT" also when the folder is missing. */
function spawnError(e: unknown, cwd: string): string {
	if ((e as NodeJS.ErrnoException)?.code === 'ENOENT' && !fs.existsSync(cwd)) return `The folder to run in does not exist: ${cwd}`;
	return String(e);
}

function failedSpawn(e: unknown): ShellOutcome {
	return {
		exitCode: null,
		signal: null,
		output: String(e),
		totalChars: 0,
		cutChars: 0,
		timedOut: false,
		cancelled: false,
		leftRunning: false,
		stoppedLeftovers: 0,
		error: String(e),
	};
}

export function runShell(options: ShellOptions): Promise<ShellOutcome> {
	return new Promise(resolve => {
		const runId = newRunId();
		const plan = options.sandbox?.engine.kind === 'bwrap' ? options.sandbox.plan : undefined;
		const group = plan?.maxProcesses ? sandboxMemory.processGroup(plan.maxProcesses) : undefined;
		let child: ChildProcess;
		try {
			child = spawnShell(options, runId, group);
		} catch (e) {
			resolve(failedSpawn(e));
			return;
		}
		// What bwrap made on the host as mount points for absent protected names goes when the command does.
		const ended = (outcome: ShellOutcome) => {
			if (plan) removePlaceholders(plan);
			resolve(outcome);
		};
		new ShellRun(options, child, runId, ended).watch();
	});
}

type StopReason = 'timeout' | 'cancel' | 'left-running';

/** One started command: what its shell did, whether Longhaul stopped it and why, and whether it has answered. */
class ShellRun {
	private readonly keeper: OutputKeeper;
	private readonly decoders = [new StringDecoder('utf8'), new StringDecoder('utf8')];
	private readonly timers: NodeJS.Timeout[] = [];
	private stoppedFor: StopReason | undefined;
	private settled = false;
	private exited = false;
	private exitCode: number | null = null;
	private exitSignal: NodeJS.Signals | null = null;
	private error: string | undefined;
	private readonly onAbort = () => this.stop('cancel');

	constructor(
		private readonly options: ShellOptions,
		private readonly child: ChildProcess,
		private readonly runId: string,
		private readonly answer: (outcome: ShellOutcome) => void,
	) {
		this.keeper = new OutputKeeper(options.headChars ?? 8_000, options.tailChars ?? 12_000);
	}

	/** Reads the output, listens for the end of the shell, and arms the time limit and the cancel. */
	watch(): void {
		const { child, options } = this;
		child.stdout!.on('data', (data: Buffer) => this.take(this.decoders[0].write(data)));
		child.stderr!.on('data', (data: Buffer) => this.take(this.decoders[1].write(data)));
		// Destroyed pipes may report errors; they change nothing here.
		child.stdout!.on('error', () => undefined);
		child.stderr!.on('error', () => undefined);
		child.on('error', e => this.onError(e));
		child.on('exit', (code, signal) => this.onExit(code, signal));
		child.on('close', () => this.finish());
		this.timers.push(setTimeout(() => this.stop('timeout'), options.timeoutMs));
		if (options.signal?.aborted) this.stop('cancel');
		else options.signal?.addEventListener('abort', this.onAbort);
	}

	private take(text: string): void {
		if (!text) return;
		this.keeper.add(text);
		this.options.onOutput?.(text);
	}

	private onError(e: Error): void {
		this.error = spawnError(e, this.options.cwd);
		this.exited = true;
		this.finish();
	}

	/** The shell is gone; its output may stay open a while (drainMs) if something it started holds it. */
	private onExit(code: number | null, signal: NodeJS.Signals | null): void {
		this.exited = true;
		this.exitCode = code;
		this.exitSignal = signal;
		if (this.stoppedFor) {
			this.finish();
			return;
		}
		this.timers.push(setTimeout(() => this.stop('left-running'), this.options.drainMs ?? 1_000));
	}

	/** Kills the group and stops reading; answers once the shell is reaped, or after killWaitMs anyway. */
	private stop(why: StopReason): void {
		if (this.stoppedFor || this.settled) return;
		this.stoppedFor = why;
		this.killGroup();
		// A descendant outside the group may hold the pipes: stop reading them instead of waiting.
		this.closePipes();
		if (this.exited) this.finish();
		else this.timers.push(setTimeout(() => this.finish(), this.options.killWaitMs ?? 500));
	}

	private killGroup(): void {
		try {
			process.kill(-this.child.pid!, 'SIGKILL');
		} catch {
			// The group is gone already.
		}
	}

	private closePipes(): void {
		this.child.stdout?.destroy();
		this.child.stderr?.destroy();
	}

	/** Answers once, after whatever the command left running is stopped. */
	private finish(): void {
		if (this.settled) return;
		this.settled = true;
		this.timers.forEach(clearTimeout);
		this.options.signal?.removeEventListener('abort', this.onAbort);
		this.decoders.forEach(d => this.take(d.end()));
		if (this.error) this.take(`${this.keeper.totalChars > 0 ? '\n' : ''}${this.error}`);
		const done = (stoppedLeftovers: number) => this.answer(this.outcome(stoppedLeftovers));
		if (this.child.pid === undefined) done(0);
		else if (this.options.sandbox?.engine.kind === 'bwrap') {
			// bwrap's init dies with bwrap (--die-with-parent), and the kernel then kills whatever is
			// left in the command's PID namespace: nothing can be left for the reaper's /proc scans,
			// which cost 20-50 ms a command on a busy machine (bench/sandbox).
			this.killGroup();
			done(0);
		} else {
			// Outside a sandbox, and under Seatbelt, which has no PID namespace: the reaper looks.
			stopLeftovers(this.child.pid, this.runId).then(done, () => done(0));
		}
	}

	private outcome(stoppedLeftovers: number): ShellOutcome {
		return {
			exitCode: this.exitCode,
			signal: this.exitSignal,
			output: this.keeper.text(),
			totalChars: this.keeper.totalChars,
			cutChars: this.keeper.cutChars,
			timedOut: this.stoppedFor === 'timeout',
			cancelled: this.stoppedFor === 'cancel',
			leftRunning: this.stoppedFor === 'left-running',
			stoppedLeftovers,
			error: this.error,
		};
	}
}
