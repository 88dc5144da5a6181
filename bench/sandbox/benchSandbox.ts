// Times what longhaul_runCommand's sandbox adds to a command: 200 short commands, each run once
// outside the sandbox and once inside it (in alternating order), the sandboxed run including the
// plan (the walk of the workspace for files that run code, the check of the secrets) and the walk
// after the command for files that run code it created (runCommand.ts does both). Prints the
// p50 and p95 of each, of the time added per command (the paired difference) and the difference
// of the percentiles; asserts nothing (timings vary by machine). Target: p95 added under 50 ms.
// A sandboxed run skips the reaper's /proc scans (its PID namespace ends everything), which the
// run outside pays: on a busy machine that saving can exceed what bwrap costs to start.
// With `--network domains` each sandboxed command runs as with longhaul.commandNetwork "domains":
// its own network proxy started and closed around it, the command behind the forwarder the
// availability check chose (Perl where it runs, else node; `--forwarder node` forces node).
// Run: npm run bench:sandbox [-- --workspace DIR] [-- --commands N] [-- --network domains [--forwarder node]]
import * as fs from 'node:fs';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { type DomainNetwork, parseDomainList } from '../../src/common/sandbox/networkPolicy';
import { type SandboxPlan } from '../../src/common/sandbox/sandboxPolicy';
import { type CommandProxy, forwarderCandidates, newCodeFiles, sandboxAvailability, sandboxPlan, startCommandProxy } from '../../src/tools/commandSandbox';
import { runShell, type ShellOptions } from '../../src/tools/shellRunner';

const SHORT_COMMANDS = ['true', 'echo hello', 'ls', 'pwd', 'cat package.json > /dev/null', 'git status --short > /dev/null', 'ls -la src | wc -l', 'date +%s'];

function option(name: string, fallback: string): string {
	const at = process.argv.indexOf(`--${name}`);
	return at !== -1 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
}

function percentile(sorted: readonly number[], p: number): number {
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summary(label: string, values: readonly number[]): string {
	const sorted = [...values].sort((a, b) => a - b);
	return `${label.padEnd(28)} p50 ${percentile(sorted, 50).toFixed(1).padStart(6)} ms   p95 ${percentile(sorted, 95).toFixed(1).padStart(6)} ms   max ${sorted[sorted.length - 1].toFixed(1).padStart(6)} ms`;
}

async function timed(body: () => Promise<unknown>): Promise<number> {
	const started = performance.now();
	await body();
	return performance.now() - started;
}

/** The plan as runCommand.ts makes it, with the forwarder `--forwarder` names in place of the chosen one. */
async function planFor(workspace: string, network: 'off' | DomainNetwork, proxy: CommandProxy | undefined): Promise<SandboxPlan> {
	const plan = await sandboxPlan([workspace], workspace, network, undefined, proxy);
	const forced = forwarderCandidates().find(f => f.kind === option('forwarder', ''));
	return plan.proxy && forced ? { ...plan, proxy: { ...plan.proxy, forwarder: forced } } : plan;
}

async function main(): Promise<void> {
	const workspace = fs.realpathSync(option('workspace', process.cwd()));
	const count = Number(option('commands', '200'));
	const network = option('network', 'off') === 'domains' ? parseDomainList(['registry.npmjs.org']) : 'off';
	const available = await sandboxAvailability(network);
	if (!available.ok) {
		console.log(`No sandbox can start here: ${JSON.stringify(available.why)}`);
		process.exitCode = 1;
		return;
	}
	let forwarder = '';
	const base: ShellOptions = { command: '', cwd: workspace, timeoutMs: 30_000 };
	const plain: number[] = [];
	const boxed: number[] = [];
	const plans: number[] = [];
	let failures = 0;
	for (let i = 0; i < count; i++) {
		const command = SHORT_COMMANDS[i % SHORT_COMMANDS.length];
		const outside = () => runShell({ ...base, command }).then(o => (failures += o.exitCode === 0 ? 0 : 1));
		const inside = async () => {
			const planStart = performance.now();
			const proxy = network === 'off' ? undefined : await startCommandProxy(network.domains);
			const plan = await planFor(workspace, network, proxy);
			forwarder = plan.proxy ? `, ${plan.proxy.forwarder.kind} forwarder` : '';
			const planned = performance.now() - planStart;
			const outcome = await runShell({ ...base, command, sandbox: { engine: available.engine, plan } });
			const checkStart = performance.now();
			await proxy?.close();
			await newCodeFiles(plan);
			plans.push(planned + performance.now() - checkStart);
			failures += outcome.exitCode === 0 ? 0 : 1;
		};
		// Alternate which goes first, so that a warm cache favours neither.
		if (i % 2 === 0) {
			plain.push(await timed(outside));
			boxed.push(await timed(inside));
		} else {
			boxed.push(await timed(inside));
			plain.push(await timed(outside));
		}
	}
	const added = boxed.map((b, i) => b - plain[i]);
	console.log(
		`Sandbox cost, network ${network === 'off' ? 'off' : 'domains'}${forwarder}: ${count} short commands in ${workspace} (${os.cpus().length} cores, ${os.platform()} ${os.release()}); ${failures} failed`,
	);
	console.log(summary('outside the sandbox', plain));
	console.log(summary('in the sandbox (all of it)', boxed));
	console.log(summary('  of which plan and check', plans));
	console.log(summary('added per command', added));
	const at = (values: readonly number[], p: number) =>
		percentile(
			[...values].sort((a, b) => a - b),
			p,
		);
	console.log(`difference of the percentiles    p50 ${(at(boxed, 50) - at(plain, 50)).toFixed(1)} ms   p95 ${(at(boxed, 95) - at(plain, 95)).toFixed(1)} ms`);
	// The paired difference is the stricter measure: on a busy machine its p95 is mostly the noise of two runs.
	const p95 = at(added, 95);
	console.log(`target p95 added < 50 ms (paired): ${p95 < 50 ? 'met' : 'NOT met'} (${p95.toFixed(1)} ms; load average ${os.loadavg()[0].toFixed(1)})`);
}

void main();
