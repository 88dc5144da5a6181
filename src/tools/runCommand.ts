import * as vscode from 'vscode';
import { refusedNote } from '../common/sandbox/networkPolicy';
import { type SandboxEngine, type SandboxPlan, wallNote } from '../common/sandbox/sandboxPolicy';
import { gatedWriteWarnings } from '../common/tools/commandWrites';
import { commandConfirmation, commandPreview } from './commandText';
import { allowOutside, type Containment, confirmationTitle, containment, containmentLine, noticeOnce } from './commandContainment';
import { type CommandProxy, commandTemp, newCodeFiles, sandboxPlan, startCommandProxy } from './commandSandbox';
import { inlineCode, visible } from './visibleText';
import { cappedWriter, runShell, ShellOutcome, timeoutMs } from './shellRunner';
import { runFolderProblem } from './runFolder';
import { TerminalFilter } from './terminalText';
import { displayPath, resolveWorkspacePath, textResult, workspaceRoots } from './workspaceRoots';

interface RunCommandInput {
	command: string;
	/** Folder to run in, inside the workspace; defaults to the first workspace folder. */
	cwd?: string;
	timeoutSeconds?: number;
	/** Run outside the sandbox: the user is asked a second time, by Longhaul itself. */
	outsideSandbox?: boolean;
}

/** What the model gets of the output: the first and the last characters, the middle counted. */
const HEAD_CHARS = 8_000;
const TAIL_CHARS = 12_000;
/** What one command may write to the terminal; the model still gets the head and the tail. */
const TERMINAL_MAX_CHARS = 200_000;

/** A terminal where the user watches the commands Longhaul runs and their output. */
class CommandTerminal {
	private terminal: vscode.Terminal | undefined;
	private readonly writeEmitter = new vscode.EventEmitter<string>();

	write(text: string): void {
		if (!this.terminal || this.terminal.exitStatus) {
			this.terminal = vscode.window.createTerminal({
				name: 'Longhaul',
				pty: {
					onDidWrite: this.writeEmitter.event,
					open: () => undefined,
					close: () => {
						this.terminal = undefined;
					},
				},
			});
			this.terminal.show(true);
		}
		this.writeEmitter.fire(text.replace(/\r?\n/g, '\r\n'));
	}
}

const terminal = new CommandTerminal();

interface Checked {
	readonly command: string;
	readonly cwd: string;
	readonly confirmation: string;
	readonly contained: Containment;
}

/** The command, the folder to run it in and where it runs, or an error that says why it may not run. */
async function checkedInput(input: RunCommandInput): Promise<Checked> {
	if (!vscode.workspace.isTrusted) {
		throw new Error('This workspace is not trusted; Longhaul does not run commands in it.');
	}
	const { command } = input;
	if (typeof command !== 'string' || command.trim() === '') {
		throw new Error('command must be a non-empty string.');
	}
	const cwd = input.cwd ? resolveWorkspacePath(input.cwd) : workspaceRoots()[0];
	if (!cwd) {
		throw new Error('No workspace folder is open to run the command in.');
	}
	const folderProblem = runFolderProblem(input.cwd, cwd);
	if (folderProblem) throw new Error(folderProblem);
	const contained = await containment(input.outsideSandbox === true);
	// Where no sandbox holds the command, the gate's warnings are the second line.
	const context = [containmentLine(contained), ...(contained.kind === 'sandboxed' ? [] : gatedWriteWarnings(command))];
	// The confirmation must show the exact command, or the command does not run.
	const confirmation = commandConfirmation(command, displayPath(cwd) || '.', context);
	if (!confirmation.ok) {
		throw new Error(confirmation.reason);
	}
	return { command, cwd, confirmation: confirmation.markdown, contained };
}

function status(outcome: ShellOutcome, limitMs: number): string {
	const stopped = outcome.stoppedLeftovers > 0 ? `; ${outcome.stoppedLeftovers} process(es) it left running were stopped` : '';
	if (outcome.timedOut) return `timed out after ${limitMs / 1000} s; the command's processes were stopped`;
	if (outcome.cancelled) return "cancelled; the command's processes were stopped";
	const code = outcome.exitCode === null ? `ended by ${outcome.signal ?? 'an error'}` : `exit code ${outcome.exitCode}`;
	return outcome.leftRunning ? `${code}; processes it started kept its output open and were stopped 1 s after it exited` : `${code}${stopped}`;
}

interface Ran {
	readonly outcome: ShellOutcome;
	readonly plan?: SandboxPlan;
	/** Hosts the network proxy refused (a list of domains only). */
	readonly refused: readonly string[];
}

/**
 * Runs the command where `contained` says; with a list of domains, behind its own network proxy,
 * and under Seatbelt with its own temporary folder, both gone when the command ends.
 */
async function run(checked: Checked, limitMs: number, token: vscode.CancellationToken): Promise<Ran> {
	const { contained } = checked;
	if (contained.kind !== 'sandboxed') return { ...(await runShown(checked, limitMs, token)), refused: [] };
	const network = contained.network;
	const tmp = await commandTemp(contained.engine);
	let proxy: CommandProxy | undefined;
	try {
		proxy = typeof network === 'object' ? await startCommandProxy(network.domains, contained.engine.kind) : undefined;
		const plan = await sandboxPlan(workspaceRoots(), checked.cwd, network, undefined, proxy);
		return { ...(await runShown(checked, limitMs, token, { engine: contained.engine, plan: { ...plan, tmp: tmp.path } })), refused: proxy?.refused() ?? [] };
	} finally {
		await Promise.all([proxy?.close(), tmp.remove()]);
	}
}

/** Runs the command, showing its output, neutralised, in the terminal. */
async function runShown(
	checked: Checked,
	limitMs: number,
	token: vscode.CancellationToken,
	sandbox?: { readonly engine: SandboxEngine; readonly plan: SandboxPlan },
): Promise<Omit<Ran, 'refused'>> {
	const { command, cwd } = checked;
	// The echoed command shows control characters instead of letting them act on the terminal.
	terminal.write(`\n${sandbox ? '[sandboxed] ' : ''}$ ${visible(command, true, Infinity).text}\n`);
	const cancel = new AbortController();
	const subscription = token.onCancellationRequested(() => cancel.abort());
	const filter = new TerminalFilter();
	const toTerminal = cappedWriter(
		text => terminal.write(text),
		TERMINAL_MAX_CHARS,
		`\n[${vscode.l10n.t('Longhaul: the output passed {0} characters; the rest is not shown here. The model gets its first and last characters.', TERMINAL_MAX_CHARS)}]\n`,
	);
	try {
		if (token.isCancellationRequested) cancel.abort();
		const outcome = await runShell({
			command,
			cwd,
			timeoutMs: limitMs,
			signal: cancel.signal,
			headChars: HEAD_CHARS,
			tailChars: TAIL_CHARS,
			sandbox,
			onOutput: text => toTerminal(filter.push(text)),
		});
		return { outcome, plan: sandbox?.plan };
	} finally {
		toTerminal(filter.end());
		subscription.dispose();
	}
}

/** Says, to the model and the user, which files that run code a sandboxed command created; '' for none. */
function createdNote(created: readonly string[]): string {
	if (created.length === 0) return '';
	// The command chose these names: shown with its control and invisible characters as markers.
	const names = created.map(p => visible(displayPath(p), false).text).join(', ');
	void vscode.window.showWarningMessage(
		vscode.l10n.t(
			'Longhaul: a command created files that configure code that runs: {0}. Review them before you open the folder again or run git there.',
			names,
		),
	);
	return `The command created files that configure code that runs: ${names}. The sandbox keeps only existing ones read-only; the user was told to review these.`;
}

/** Runs a shell command in the workspace after the user confirms it; answers its exit code and output. */
export const runCommandTool: vscode.LanguageModelTool<RunCommandInput> = {
	async prepareInvocation(options) {
		// Refuse before asking: the user is never asked to confirm a command that would be refused.
		const { confirmation, contained } = await checkedInput(options.input);
		return {
			invocationMessage: vscode.l10n.t('Running {0}', inlineCode(commandPreview(options.input.command))),
			confirmationMessages: {
				title: confirmationTitle(contained),
				message: new vscode.MarkdownString(confirmation),
			},
		};
	},
	async invoke(options, token) {
		const checked = await checkedInput(options.input);
		const { contained } = checked;
		// VS Code may have approved the call on its own: running outside the sandbox is asked again here.
		if (contained.kind === 'outside' && contained.because === 'asked' && !(await allowOutside(commandPreview(checked.command, 120), token))) {
			throw new Error('The user did not allow running this command outside the sandbox; nothing was run.');
		}
		const notice = noticeOnce(contained, options.toolInvocationToken);
		const limitMs = timeoutMs(options.input.timeoutSeconds);
		const { outcome, plan, refused } = await run(checked, limitMs, token);
		const line = status(outcome, limitMs);
		terminal.write(`\n[${line}]\n`);
		const failed = outcome.timedOut || outcome.cancelled || outcome.exitCode !== 0;
		const wall = contained.kind === 'sandboxed' ? wallNote(outcome.output, failed, contained.network, contained.engine.kind) : undefined;
		const created = plan ? createdNote(await newCodeFiles(plan)) : '';
		const network = contained.network;
		const proxyNote = typeof network === 'object' ? refusedNote(refused, network.domains) : undefined;
		const notes = [notice, wall, proxyNote, created]
			.filter(Boolean)
			.map(n => `[${n}]\n`)
			.join('');
		const size = outcome.cutChars > 0 ? ` (${outcome.totalChars} characters of output, ${outcome.cutChars} cut from the middle)` : '';
		return textResult(`${line}${size}\n${notes}${outcome.output}`);
	},
};
