// Issue 17: longhaul_runCommand's runner answers promptly after a timeout or a cancel whatever the
// command's descendants do, and keeps the end of a long output. Real processes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { cappedWriter, OutputKeeper, runShell, timeoutMs } from '../../../src/tools/shellRunner';

const cwd = os.tmpdir();

/** Alive and not a zombie (a killed orphan may wait for a reaper that a container lacks). */
function isRunning(pid: number): boolean {
	try {
		return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
	} catch {
		return false;
	}
}

describe('shellRunner: timeouts, cancels and long output', () => {
	it('control: answers the exit code and the output', async () => {
		const outcome = await runShell({ command: 'echo hi; echo err >&2; exit 3', cwd, timeoutMs: 10_000 });
		assert.equal(outcome.exitCode, 3);
		assert.equal(outcome.output, 'hi\nerr\n');
		assert.equal(outcome.cutChars, 0);
	});

	it('answers within a second of the timeout when a descendant left the process group and holds the output', async function () {
		this.timeout(15_000);
		const started = Date.now();
		const outcome = await runShell({ command: 'echo before; setsid sleep 12', cwd, timeoutMs: 2_000 });
		const took = Date.now() - started;
		assert.equal(outcome.timedOut, true);
		assert.ok(took < 3_000, `answered ${took} ms after the start (timeout 2 s)`);
		assert.match(outcome.output, /before/);
	});

	it('answers within a second of a cancel, whatever the descendants do', async function () {
		this.timeout(15_000);
		const cancel = new AbortController();
		setTimeout(() => cancel.abort(), 500);
		const started = Date.now();
		const outcome = await runShell({ command: 'setsid sleep 12', cwd, timeoutMs: 60_000, signal: cancel.signal });
		assert.equal(outcome.cancelled, true);
		assert.ok(Date.now() - started < 1_500, `answered ${Date.now() - started} ms after the start (cancel at 0.5 s)`);
		const already = await runShell({ command: 'sleep 5', cwd, timeoutMs: 60_000, signal: AbortSignal.abort() });
		assert.equal(already.cancelled, true);
	});

	it('answers a second after the shell exits when processes it started keep the output open, and stops those in its group', async function () {
		this.timeout(15_000);
		const started = Date.now();
		const outcome = await runShell({ command: 'sleep 30 & echo pid=$!', cwd, timeoutMs: 60_000 });
		assert.ok(Date.now() - started < 2_500, `answered after ${Date.now() - started} ms`);
		assert.equal(outcome.exitCode, 0);
		assert.equal(outcome.leftRunning, true);
		const pid = Number(/pid=(\d+)/.exec(outcome.output)?.[1]);
		await new Promise(r => setTimeout(r, 200));
		assert.ok(!isRunning(pid), 'the background sleep of the group was stopped');
		const detached = await runShell({ command: 'setsid -f sleep 4; echo done', cwd, timeoutMs: 60_000 });
		assert.equal(detached.exitCode, 0);
		assert.ok(Date.now() - started < 5_000);
	});

	it('stops what the command left running when it ends: 20 setsid children, a background job, a double fork', async function () {
		this.timeout(20_000);
		const command = [
			'for i in $(seq 20); do setsid sleep 60 >/dev/null 2>&1 < /dev/null & echo setsid=$!; done',
			'sleep 61 >/dev/null 2>&1 & echo job=$!',
			"setsid sh -c 'sleep 62 >/dev/null 2>&1 & echo forked=$!' </dev/null",
			'sleep 0.3',
		].join('\n');
		const outcome = await runShell({ command, cwd, timeoutMs: 10_000 });
		assert.equal(outcome.exitCode, 0, outcome.output);
		const pids = [...outcome.output.matchAll(/=(\d+)/g)].map(m => Number(m[1]));
		assert.equal(pids.length, 22, outcome.output);
		await new Promise(r => setTimeout(r, 300));
		const alive = pids.filter(isRunning);
		assert.deepEqual(alive, [], `${alive.length} of ${pids.length} processes still running`);
		assert.ok(outcome.stoppedLeftovers >= 22, `stoppedLeftovers: ${outcome.stoppedLeftovers}`);
		const clean = await runShell({ command: 'echo plain', cwd, timeoutMs: 10_000 });
		assert.equal(clean.stoppedLeftovers, 0);
	});

	it('cannot find a child that leaves the session and clears its environment (the documented limit)', async function () {
		this.timeout(20_000);
		const outcome = await runShell({ command: 'setsid env -i sleep 30 >/dev/null 2>&1 < /dev/null & echo pid=$!; sleep 0.3', cwd, timeoutMs: 10_000 });
		const pid = Number(/pid=(\d+)/.exec(outcome.output)?.[1]);
		try {
			assert.ok(isRunning(pid), 'a process with no trace of the run is not found');
		} finally {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// Gone already.
			}
		}
	});

	it('says that the folder to run in does not exist instead of "spawn /bin/sh ENOENT"', async () => {
		const outcome = await runShell({ command: 'echo hi', cwd: `${cwd}/no-such-folder-${process.pid}`, timeoutMs: 10_000 });
		assert.match(outcome.output, /The folder to run in does not exist: .*no-such-folder/);
		assert.doesNotMatch(outcome.output, /spawn \/bin\/sh ENOENT/);
	});

	it('keeps the head and the end of 50 MB of output with the exact count of what was cut, and caps what the terminal gets', async function () {
		this.timeout(60_000);
		let terminal = 0;
		const write = cappedWriter(text => (terminal += text.length), 200_000, '\n[capped]\n');
		const outcome = await runShell({
			command: "head -c 50000000 /dev/zero | tr '\\0' x; echo; echo THE-ERROR-AT-THE-END >&2",
			cwd,
			timeoutMs: 50_000,
			headChars: 8_000,
			tailChars: 12_000,
			onOutput: write,
		});
		const total = 50_000_000 + 1 + 'THE-ERROR-AT-THE-END\n'.length;
		assert.equal(outcome.totalChars, total);
		assert.equal(outcome.cutChars, total - 8_000 - 12_000);
		assert.ok(outcome.output.endsWith('THE-ERROR-AT-THE-END\n'), 'the end of the output is kept');
		assert.ok(outcome.output.startsWith('x'.repeat(8_000)));
		assert.match(outcome.output, new RegExp(`\\[\\.\\.\\. ${total - 20_000} characters of output cut here`));
		assert.ok(outcome.output.length < 20_200);
		assert.equal(terminal, 200_000 + '\n[capped]\n'.length);
	});

	it('OutputKeeper counts exactly for any chunking', () => {
		const text = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join('');
		for (const size of [1, 7, 100, 4096, text.length]) {
			const keeper = new OutputKeeper(1000, 1500);
			for (let i = 0; i < text.length; i += size) keeper.add(text.slice(i, i + size));
			assert.equal(keeper.totalChars, text.length);
			assert.equal(keeper.cutChars, text.length - 2500);
			assert.ok(keeper.text().startsWith(text.slice(0, 1000)) && keeper.text().endsWith(text.slice(-1500)));
		}
		const small = new OutputKeeper(10, 10);
		small.add('0123456789abc');
		assert.equal(small.text(), '0123456789abc');
	});

	it('reads timeoutSeconds as a number, numeric text or the default, never NaN', () => {
		assert.equal(timeoutMs(undefined), 120_000);
		assert.equal(timeoutMs('abc'), 120_000);
		assert.equal(timeoutMs(Number.NaN), 120_000);
		assert.equal(timeoutMs({}), 120_000);
		assert.equal(timeoutMs(Infinity), 120_000);
		assert.equal(timeoutMs('5'), 5_000);
		assert.equal(timeoutMs(0.2), 1_000);
		assert.equal(timeoutMs(-3), 1_000);
		assert.equal(timeoutMs(1e9), 1_800_000);
	});
});
