// Issue 38: the nine ways out of the command sandbox an outside probe found, each closed by class
// and checked here with the real bubblewrap. Skipped where bwrap cannot start a sandbox.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { newCodeFiles, protectedWalk, sandboxAvailability, sandboxMemory, sandboxPlan } from '../../../src/tools/commandSandbox';
import { runShell, type ShellOutcome } from '../../../src/tools/shellRunner';
import type { CommandNetwork, SandboxEngine, SandboxPlan } from '../../../src/common/sandbox/sandboxPolicy';

describe('sandbox breaks: each way out closed by class, with the real bwrap', function () {
	this.timeout(30_000);
	let engine: SandboxEngine;
	let base = '';
	let work = '';
	let home = '';

	before(async function () {
		const available = await sandboxAvailability('off');
		if (!available.ok) this.skip();
		engine = available.engine;
	});

	beforeEach(() => {
		base = fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-breaks-'));
		work = path.join(base, 'work');
		home = path.join(base, 'home');
		fs.mkdirSync(home);
		fs.mkdirSync(work);
		execFileSync('git', ['init', '-q', work]);
	});

	afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

	const write = (rel: string, text: string) => {
		fs.mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
		fs.writeFileSync(path.join(work, rel), text);
	};
	const read = (rel: string) => fs.readFileSync(path.join(work, rel), 'utf8');

	async function runIn(command: string, network: CommandNetwork = 'off'): Promise<{ outcome: ShellOutcome; plan: SandboxPlan }> {
		const plan = await sandboxPlan([work], work, network, home);
		const outcome = await runShell({ command, cwd: work, timeoutMs: 20_000, sandbox: { engine, plan } });
		return { outcome, plan };
	}
	const run = async (command: string, network: CommandNetwork = 'off') => (await runIn(command, network)).outcome;

	it('1: .git cannot be moved away, copied back and given an fsmonitor', async () => {
		const before = read('.git/config');
		const outcome = await run(
			'mkdir -p node_modules/x && mv .git node_modules/x/g && cp -r node_modules/x/g .git && echo "[core] fsmonitor = touch pwned" >> .git/config',
		);
		assert.notEqual(outcome.exitCode, 0, outcome.output);
		assert.equal(read('.git/config'), before);
		assert.equal(fs.existsSync(path.join(work, 'node_modules/x/g')), false);
	});

	it('1: the gitdir: target of a .git file (a separate git folder) cannot be swapped', async () => {
		fs.rmSync(path.join(work, '.git'), { recursive: true });
		execFileSync('git', ['init', '-q', `--separate-git-dir=${path.join(work, 'store')}`, path.join(work, 'proj')]);
		const before = read('store/config');
		const outcome = await run('mv store store2 && cp -r store2 store && echo "[core] fsmonitor = touch pwned" >> store/config');
		assert.notEqual(outcome.exitCode, 0, outcome.output);
		assert.equal(read('store/config'), before);
	});

	it('2: the parent of a protected path cannot be renamed to write a new one', async () => {
		write('.github/workflows/ci.yml', 'on: push\n');
		write('packages/a/package.json', '{}\n');
		const ci = await run('mv .github gh-old && mkdir -p .github/workflows && echo evil > .github/workflows/ci.yml');
		assert.notEqual(ci.exitCode, 0, ci.output);
		const pkg = await run('mv packages p-old && mkdir -p packages/a && echo evil > packages/a/package.json');
		assert.notEqual(pkg.exitCode, 0, pkg.output);
		const inner = await run('mv packages/a packages/b && mkdir -p packages/a && echo evil > packages/a/package.json');
		assert.notEqual(inner.exitCode, 0, inner.output);
		assert.equal(read('.github/workflows/ci.yml'), 'on: push\n');
		assert.equal(read('packages/a/package.json'), '{}\n');
	});

	it('3: protected names that do not exist cannot be created, and nothing is left on the host', async () => {
		const outcome = await run('mkdir -p .vscode; echo "{}" > .vscode/tasks.json; echo "curl x | sh" > .envrc; echo "script-shell=/tmp/x" > .npmrc; ls -A');
		assert.equal(fs.existsSync(path.join(work, '.vscode/tasks.json')), false, outcome.output);
		assert.equal(fs.existsSync(path.join(work, '.envrc')), false);
		assert.equal(fs.existsSync(path.join(work, '.npmrc')), false);
		assert.deepEqual(fs.readdirSync(work).sort(), ['.git']);
		// Tools that only look for these names still work: git and a plain build.
		const control = await run('echo hi > a.txt && git status --short');
		assert.equal(control.exitCode, 0, control.output);
		assert.match(control.output, /a\.txt/);
	});

	it('3: a protected name that is a link (.vscode -> conf): its target is read-only, and a swapped link is reported', async () => {
		write('conf/settings.json', '{}\n');
		fs.symlinkSync('conf', path.join(work, '.vscode'));
		const through = await run('echo "{\\"x\\": 1}" > .vscode/settings.json; echo "{}" > .vscode/tasks.json');
		assert.equal(read('conf/settings.json'), '{}\n', through.output);
		assert.equal(fs.existsSync(path.join(work, 'conf/tasks.json')), false);
		const { outcome, plan } = await runIn('rm .vscode && mkdir .vscode && echo "{}" > .vscode/tasks.json; true');
		assert.equal(outcome.exitCode, 0);
		const reported = (await newCodeFiles(plan)).map(p => path.relative(work, p));
		if (fs.lstatSync(path.join(work, '.vscode')).isSymbolicLink()) return; // held in place: nothing to report
		assert.ok(reported.includes('.vscode'), JSON.stringify(reported));
	});

	it('8: the walk after a command has no folder or depth limit that hides a new file that runs code', async () => {
		for (let i = 0; i < 4_100; i++) fs.mkdirSync(path.join(work, `d${i}`));
		const deep = 'a/b/c/d/e/f/g/h/i/j/k/l/m/n/package.json';
		const last = fs
			.readdirSync(work)
			.filter(n => n.startsWith('d'))
			.at(-1)!;
		const { outcome, plan } = await runIn(`mkdir -p $(dirname ${deep}) && echo "{}" > ${deep} && mkdir -p ${last}/x && echo "{}" > ${last}/x/package.json`);
		assert.equal(outcome.exitCode, 0, outcome.output);
		const reported = (await newCodeFiles(plan)).map(p => path.relative(work, p));
		assert.ok(reported.includes(deep), JSON.stringify(reported));
		assert.ok(reported.includes(`${last}/x/package.json`), JSON.stringify(reported));
		// Its one bound is time, and running out of it is said, never silent.
		const hurried = await protectedWalk(work, 0);
		assert.equal(hurried.complete, false);
		assert.equal((await protectedWalk(work)).complete, true);
	});

	it('5: no capabilities inside, whoever runs it (CapEff 0, remount refused)', async () => {
		const outcome = await run('grep -E "^Cap(Eff|Prm|Bnd):" /proc/self/status; mount -o remount,rw / 2>&1 || echo remount-refused');
		assert.match(outcome.output, /^CapEff:\s+0000000000000000$/m);
		assert.match(outcome.output, /^CapPrm:\s+0000000000000000$/m);
		assert.match(outcome.output, /remount-refused/);
	});

	describe('9: bwrap from a trusted path only', () => {
		let saved: string | undefined;
		beforeEach(() => {
			saved = process.env.PATH;
			sandboxMemory.clear();
		});
		afterEach(() => {
			process.env.PATH = saved;
			sandboxMemory.clear();
		});

		it('a bwrap planted earlier on PATH is never run', async () => {
			const bin = path.join(work, 'bin');
			fs.mkdirSync(bin);
			const marker = path.join(base, 'planted-ran');
			fs.writeFileSync(path.join(bin, 'bwrap'), `#!/bin/sh\necho planted > ${marker}\nshift $#\nexec "$@"\n`, { mode: 0o755 });
			process.env.PATH = `${bin}:${saved}`;
			const available = await sandboxAvailability('off');
			assert.ok(available.ok);
			assert.notEqual(available.engine.program, path.join(bin, 'bwrap'));
			assert.match(available.engine.program, /^\/(usr\/(local\/)?)?bin\/bwrap$/);
			const plan = await sandboxPlan([work], work, 'off', home);
			await runShell({ command: 'true', cwd: work, timeoutMs: 10_000, sandbox: { engine: available.engine, plan } });
			assert.equal(fs.existsSync(marker), false);
		});
	});

	describe('6: an allowlist of environment variables, and the home folder hidden but for toolchains', () => {
		const planted: Record<string, string> = {
			GITHUB_TOKEN: 'ghp_secret',
			SSH_AUTH_SOCK: '/run/user/0/ssh.sock',
			VSCODE_IPC_HOOK_CLI: '/run/user/0/vscode-ipc.sock',
			ELECTRON_RUN_AS_NODE: '1',
			DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/0/bus',
			NPM_CONFIG__AUTHTOKEN: 'npm_secret',
			LANG: 'C.UTF-8',
			GOPATH: '/opt/go-test',
		};
		const saved: Record<string, string | undefined> = {};
		beforeEach(() => {
			for (const [k, v] of Object.entries(planted)) {
				saved[k] = process.env[k];
				process.env[k] = v;
			}
		});
		afterEach(() => {
			for (const k of Object.keys(planted)) {
				if (saved[k] === undefined) delete process.env[k];
				else process.env[k] = saved[k];
			}
		});

		it('tokens and IPC handles do not read back; PATH, HOME, LANG and toolchain variables do', async () => {
			const outcome = await run('env');
			assert.equal(outcome.exitCode, 0, outcome.output);
			assert.doesNotMatch(outcome.output, /ghp_secret|npm_secret|SSH_AUTH_SOCK|VSCODE_IPC|ELECTRON_RUN_AS_NODE|DBUS_SESSION/);
			assert.match(outcome.output, /^PATH=/m);
			assert.match(outcome.output, new RegExp(`^HOME=${home}$`, 'm'));
			assert.match(outcome.output, /^LANG=C\.UTF-8$/m);
			assert.match(outcome.output, /^GOPATH=\/opt\/go-test$/m);
			assert.match(outcome.output, /^GIT_CONFIG_COUNT=/m);
		});

		it('secret files in the home folder are unreadable; toolchain folders read, not write', async () => {
			const secrets = ['.config/github-copilot/hosts.json', '.cargo/credentials.toml', '.gitconfig', '.bash_history', '.pgpass', '.yarnrc.yml'];
			for (const s of secrets) {
				fs.mkdirSync(path.dirname(path.join(home, s)), { recursive: true });
				fs.writeFileSync(path.join(home, s), 'TOPSECRET');
			}
			fs.mkdirSync(path.join(home, '.cargo/bin'), { recursive: true });
			fs.writeFileSync(path.join(home, '.cargo/bin/mytool'), '#!/bin/sh\necho tool-ran\n', { mode: 0o755 });
			const outcome = await run(`cd ${home}; cat ${secrets.join(' ')} 2>/dev/null; ./.cargo/bin/mytool; echo x > .cargo/bin/mytool || echo write-refused`);
			assert.doesNotMatch(outcome.output, /TOPSECRET/);
			assert.match(outcome.output, /tool-ran/);
			assert.match(outcome.output, /write-refused/);
			assert.equal(fs.readFileSync(path.join(home, '.cargo/bin/mytool'), 'utf8'), '#!/bin/sh\necho tool-ran\n');
		});

		it('a workspace inside the home folder stays visible and writable', async () => {
			const inner = path.join(home, 'projects', 'app');
			fs.mkdirSync(inner, { recursive: true });
			fs.writeFileSync(path.join(home, '.gitconfig'), 'TOPSECRET');
			const plan = await sandboxPlan([inner], inner, 'off', home);
			const outcome = await runShell({ command: 'echo ok > made.txt && cat ../../.gitconfig', cwd: inner, timeoutMs: 10_000, sandbox: { engine, plan } });
			assert.equal(fs.readFileSync(path.join(inner, 'made.txt'), 'utf8'), 'ok\n');
			assert.doesNotMatch(outcome.output, /TOPSECRET/);
		});
	});

	it('7: no Unix socket of the host answers with the network off; child processes still start', async () => {
		const socketPath = path.join(work, 'host.sock');
		let connections = 0;
		const server = net.createServer(s => {
			connections++;
			s.end('hello\n');
		});
		await new Promise<void>(resolve => server.listen(socketPath, resolve));
		try {
			const connect = `node -e "require('net').connect('host.sock').on('data',d=>{process.stdout.write(d);process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(1)})"`;
			const outcome = await run(`${connect}; ls -A /run | wc -l; node -e "console.log(require('child_process').execSync('echo child-ok').toString().trim())"`);
			assert.equal(connections, 0, outcome.output);
			assert.doesNotMatch(outcome.output, /hello/);
			assert.match(outcome.output, /^0$/m);
			assert.match(outcome.output, /child-ok/);
		} finally {
			server.close();
		}
	});

	it('limits: a fork bomb stays inside (a pids cgroup, as root too); the cgroup goes with the extension', async function () {
		const plan = { ...(await sandboxPlan([work], work, 'off', home)), maxProcesses: 30 };
		const outcome = await runShell({
			command: 'for i in $(seq 60); do sleep 2 & done; echo started; wait',
			cwd: work,
			timeoutMs: 20_000,
			sandbox: { engine, plan },
		});
		if (!/Cannot fork|fork: retry|Resource temporarily unavailable/i.test(outcome.output) && process.getuid?.() !== 0) this.skip(); // no cgroup to make here
		assert.match(outcome.output, /Cannot fork|fork: retry|Resource temporarily unavailable/i);
		const cgroups = () =>
			['/sys/fs/cgroup/pids', '/sys/fs/cgroup'].flatMap(d => (fs.existsSync(d) ? fs.readdirSync(d).filter(n => n === `longhaul-${process.pid}-30`) : []));
		sandboxMemory.clear();
		for (let i = 0; i < 60 && cgroups().length > 0; i++) await new Promise(resolve => setTimeout(resolve, 100));
		assert.deepEqual(cgroups(), []);
	});

	it('limits: /tmp and the hidden home are bounded tmpfs; a program under the host /tmp on PATH still runs', async () => {
		const tools = fs.mkdtempSync(path.join('/tmp', 'longhaul-tool-'));
		const saved = process.env.PATH;
		try {
			fs.mkdirSync(path.join(tools, 'bin'));
			fs.writeFileSync(path.join(tools, 'bin', 'mytool'), '#!/bin/sh\necho tool-under-tmp\n', { mode: 0o755 });
			process.env.PATH = `${path.join(tools, 'bin')}:${saved}`;
			const outcome = await run(`df -k /tmp ${home} | tail -n 2; mytool; touch /tmp/x && echo tmp-writable`);
			assert.match(outcome.output, /tool-under-tmp/);
			assert.match(outcome.output, /tmp-writable/);
			const sizes = [...outcome.output.matchAll(/^tmpfs\s+(\d+)/gm)].map(m => Number(m[1]) * 1024);
			assert.equal(sizes.length, 2, outcome.output);
			for (const size of sizes) assert.ok(size <= Math.min(2 ** 31, os.totalmem() / 4) + 4096, outcome.output);
		} finally {
			process.env.PATH = saved;
			fs.rmSync(tools, { recursive: true, force: true });
		}
	});
});
