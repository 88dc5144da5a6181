// Issue 32: longhaul_runCommand runs its command in bubblewrap in the real extension host. Each row
// of the issue's Tests section: a write outside the workspace, an append to .git/config, a bare
// repository and `git status` on it, a planted key under ~/.ssh, a listener on the host's
// 127.0.0.1, a `setsid env -i` child: each blocked or ended, while a build and a git commit in the
// workspace work. Then the fallback without bwrap on PATH (one notice, commands still run),
// `required` refusing, `off`, and a run outside the sandbox that takes Longhaul's own second question.
// The tool is called directly (prepareInvocation for the confirmation, invoke as after Allow).
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { withSetting } from './helpers';
import { delay, workspaceRoot } from './faultScript';
import { recordFaultResult } from './faultResults';
import { runCommandTool } from '../../src/tools/runCommand';
import { sandboxMemory } from '../../src/tools/commandSandbox';

const DIR = 'sandbox-data';
type Input = { command: string; outsideSandbox?: boolean };
const token = () => new vscode.CancellationTokenSource().token;

/** Runs the tool as after Allow; `chat` stands for the chat session VS Code's token names. */
async function run(input: Input, chat = 'sandbox-tests'): Promise<string> {
	const options = { input: { cwd: DIR, ...input }, toolInvocationToken: { sessionId: chat } };
	const result = await runCommandTool.invoke(options as unknown as vscode.LanguageModelToolInvocationOptions<Input>, token());
	return (result?.content ?? []).map(p => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

async function confirmation(input: Input): Promise<string> {
	const prepared = await runCommandTool.prepareInvocation!(
		{ input: { cwd: DIR, ...input } } as vscode.LanguageModelToolInvocationPrepareOptions<Input>,
		token(),
	);
	return (prepared?.confirmationMessages?.message as vscode.MarkdownString).value;
}

/**
 * Runs `body` as on a machine without bwrap: Longhaul looks for it at trusted paths only, never on
 * PATH (issue 38), so the test points that look-up elsewhere; PATH holds nothing either (the
 * commands use shell builtins).
 */
async function withoutBwrap<T>(body: () => Promise<T>): Promise<T> {
	const saved = process.env.PATH;
	process.env.PATH = '/nonexistent-longhaul-test';
	sandboxMemory.clear();
	sandboxMemory.bwrapCandidates = ['/nonexistent-longhaul-test/bwrap'];
	try {
		return await body();
	} finally {
		process.env.PATH = saved;
		sandboxMemory.bwrapCandidates = undefined;
		sandboxMemory.clear();
	}
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });

describe('Sandbox: longhaul_runCommand in bubblewrap', function () {
	this.timeout(60_000);
	const data = () => path.join(workspaceRoot(), DIR);
	const outside = path.join('/var/tmp', `longhaul-sandbox-test-${process.pid}`);

	before(function () {
		try {
			execFileSync('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', '--unshare-net', '--proc', '/proc', '--dev', '/dev', 'true']);
		} catch {
			// CI installs bubblewrap (.ci/run); a machine without it tests only the fallback below.
			this.skip();
		}
	});
	beforeEach(() => fs.mkdirSync(data(), { recursive: true }));
	afterEach(() => {
		fs.rmSync(data(), { recursive: true, force: true });
		fs.rmSync(outside, { force: true });
	});

	it('the confirmation says what a sandboxed command may do', async () => {
		const markdown = await confirmation({ command: 'make' });
		assert.match(markdown, /Sandboxed: writes only in the workspace and a temporary folder; .*no network/);
	});

	it('a write outside the workspace is blocked, and the result says it hit the sandbox', async () => {
		const text = await run({ command: `echo x > ${outside}` });
		assert.match(text, /^exit code [1-9]/);
		assert.match(text, /failed on its walls: the file system outside the workspace.* read-only/);
		assert.strictEqual(fs.existsSync(outside), false);
	});

	it('.git/config cannot be appended to; a bare repository written by the command does not run its fsmonitor; a build works, a git commit does not', async () => {
		const repo = path.join(data(), 'repo');
		fs.mkdirSync(repo);
		git(repo, 'init', '-q');
		const config = fs.readFileSync(path.join(repo, '.git', 'config'), 'utf8');
		const append = await run({ command: 'echo "[core] fsmonitor = touch PWNED" >> repo/.git/config' });
		assert.match(append, /^exit code [1-9]/);
		assert.strictEqual(fs.readFileSync(path.join(repo, '.git', 'config'), 'utf8'), config);
		const bare = await run({
			command: `mkdir -p evil/objects evil/refs && echo "ref: refs/heads/main" > evil/HEAD && printf '[core]\\n\\tfsmonitor = touch ${data()}/PWNED\\n' > evil/config && git -C evil status; true`,
		});
		assert.strictEqual(fs.existsSync(path.join(data(), 'PWNED')), false, bare);
		// A new file that runs code cannot be mounted read-only before it exists: it is said instead.
		assert.match(bare, /created files that configure code that runs: .*evil\/config/);
		const build = await run({
			command:
				'cd repo && mkdir -p build && printf "int main(void){return 0;}\\n" > main.c && cp main.c build/ && tar czf build.tgz build && git status --short',
		});
		assert.match(build, /^exit code 0\n\?\? build\.tgz\n\?\? build\/\n\?\? main\.c\n$/);
		// The whole .git is read-only (issue 38): a commit fails on the wall, and the result says so.
		const commit = await run({ command: 'cd repo && git add main.c' });
		assert.match(commit, /^exit code [1-9]/);
		assert.match(commit, /failed on its walls/);
		recordFaultResult({
			id: 'T-sandbox-git',
			fault: 'a sandboxed command appends core.fsmonitor to .git/config, and writes a bare repository and runs git -C on it',
			test: 'sandbox.test.ts',
			survived: true,
			requestsLost: 0,
			writesOutside: 0,
			detail: `append refused ("${append.split('\n')[0]}"), .git/config unchanged; no PWNED after git -C evil status; a build in the workspace worked, a commit met the read-only .git`,
		});
	});

	it('no capabilities, no token from the extension host, the home folder hidden, no host Unix socket', async () => {
		const saved = process.env.GITHUB_TOKEN;
		process.env.GITHUB_TOKEN = 'ghp_longhaul_test_token';
		const socketPath = path.join(data(), 'host.sock');
		let connections = 0;
		const server = net.createServer(s => {
			connections++;
			s.end('hello\n');
		});
		await new Promise<void>(resolve => server.listen(socketPath, resolve));
		try {
			const text = await run({
				command: `grep CapEff /proc/self/status; env | grep -c ghp_longhaul_test_token; ls -A ~ | wc -l; perl -e 'use Socket; socket(S, AF_UNIX, SOCK_STREAM, 0) or print "unix socket: $!\\n"'`,
			});
			assert.match(text, /^CapEff:\s+0+$/m);
			assert.match(text, /^0\n/m);
			assert.match(text, /unix socket: Operation not permitted/);
			assert.strictEqual(connections, 0);
		} finally {
			server.close();
			if (saved === undefined) delete process.env.GITHUB_TOKEN;
			else process.env.GITHUB_TOKEN = saved;
		}
	});

	it('a key planted under ~/.ssh reads as absent', async () => {
		const ssh = path.join(os.homedir(), '.ssh');
		const created = !fs.existsSync(ssh);
		const key = path.join(ssh, `longhaul-test-key-${process.pid}`);
		fs.mkdirSync(ssh, { recursive: true, mode: 0o700 });
		fs.writeFileSync(key, 'PLANTED PRIVATE KEY', { mode: 0o600 });
		try {
			const text = await run({ command: `cat ${key}; ls -A ${ssh} | wc -l` });
			assert.doesNotMatch(text, /PLANTED PRIVATE KEY/);
			assert.match(text, /No such file/);
		} finally {
			fs.rmSync(key, { force: true });
			if (created) fs.rmSync(ssh, { recursive: true, force: true });
		}
	});

	it('a listener on the host’s 127.0.0.1 is out of reach', async () => {
		let connections = 0;
		const server = net.createServer(socket => {
			connections++;
			// bash closes without reading the greeting.
			socket.on('error', () => undefined);
			socket.end('hello\n');
		});
		await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
		const port = (server.address() as net.AddressInfo).port;
		const command = `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected || echo refused'`;
		try {
			const text = await run({ command });
			assert.strictEqual(connections, 0, text);
			assert.match(text, /refused/);
			// Control: with longhaul.commandNetwork "all" the same command reaches the listener.
			const allowed = await withSetting('commandNetwork', 'all', () => run({ command }));
			assert.match(allowed, /connected/);
			assert.strictEqual(connections, 1);
		} finally {
			server.close();
		}
	});

	it('a list of domains: a listed host is reached through the proxy, another is refused with a note, a direct connect fails', async function () {
		this.timeout(60_000);
		const seen: string[] = [];
		const server = http.createServer((req, res) => {
			seen.push(`${req.method} ${req.url}`);
			res.end('hello through the proxy');
		});
		await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
		const port = (server.address() as net.AddressInfo).port;
		// The extension host's own node (24) reads HTTP_PROXY with NODE_USE_ENV_PROXY, which the sandbox
		// sets; localhost stays direct (NO_PROXY) unless cleared, as here, to reach the host's listener.
		const fetch = (url: string) =>
			`NO_PROXY= no_proxy= '${process.execPath}' -e "fetch('${url}').then(r => r.text().then(t => console.log(r.status, t)), e => console.log('failed', e.cause?.code ?? e.message))"`;
		try {
			await withSetting('commandNetworkDomains', ['localhost', 'registry.npmjs.org'], () =>
				withSetting('commandNetwork', 'domains', async () => {
					assert.match(await confirmation({ command: 'npm install' }), /network: only localhost, registry\.npmjs\.org, through Longhaul's proxy/);
					const allowed = await run({ command: fetch(`http://localhost:${port}/allowed`) });
					assert.match(allowed, /^exit code 0\n200 hello through the proxy\n$/);
					const refused = await run({ command: `${fetch('http://not-listed.example/')}; ${fetch('https://not-listed.example/')}` });
					assert.match(
						refused,
						/\[Longhaul's network proxy refused not-listed\.example: not in the setting longhaul\.commandNetworkDomains \(allowed: localhost, registry\.npmjs\.org\)\. Retrying fails the same way\./,
					);
					// Node's fetch tunnels http:// through CONNECT too: the 403 is a failed fetch, and the note says why.
					assert.match(refused, /\nfailed .*\nfailed .*\n$/);
					const direct = await run({ command: `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected || echo refused'` });
					assert.match(direct, /refused/);
					// Beside the command runs the forwarder: Perl where the host has one (it starts in a
					// few ms, the extension host's node in about 100), node otherwise.
					const hasPerl = execFileSync('sh', ['-c', 'command -v perl || true'], { encoding: 'utf8' }).trim() !== '';
					const inside = await run({ command: 'cat /proc/[0-9]*/comm' });
					assert.match(inside, hasPerl ? /^perl$/m : /^node$/m);
				}),
			);
			assert.deepEqual(seen, ['GET /allowed']);
		} finally {
			server.close();
		}
	});

	it('a `setsid env -i` child, which the reaper cannot find, does not outlive the command', async function () {
		this.timeout(30_000);
		const marker = path.join(data(), 'late');
		const text = await run({ command: `setsid env -i /bin/sh -c 'sleep 2; echo late > ${marker}' >/dev/null 2>&1 & echo started` });
		assert.match(text, /^exit code 0\nstarted/);
		await delay(3_500);
		assert.strictEqual(fs.existsSync(marker), false, 'the setsid env -i child ran after the command answered');
		recordFaultResult({
			id: 'T-sandbox-setsid',
			fault: 'a setsid env -i child that writes a file 2 s after the command answered',
			test: 'sandbox.test.ts',
			survived: true,
			requestsLost: 0,
			detail: 'the file was never written: the PID namespace ended with the command',
		});
	});

	it('outside the sandbox only after Longhaul’s own second question: closing it runs nothing, picking it runs', async function () {
		this.timeout(30_000);
		const input = { command: `echo x > ${outside}`, outsideSandbox: true };
		assert.match(await confirmation(input), /Outside the sandbox/);
		const declined = run(input).then(
			() => 'ran',
			(e: Error) => e.message,
		);
		await delay(1_500);
		await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
		assert.match(await declined, /did not allow running this command outside the sandbox/);
		assert.strictEqual(fs.existsSync(outside), false);
		const allowed = run(input);
		await delay(1_500);
		await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
		await delay(200);
		await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
		assert.match(await allowed, /^exit code 0/);
		assert.strictEqual(fs.readFileSync(outside, 'utf8'), 'x\n');
	});
});

describe('Sandbox settings: no bwrap, required, off', function () {
	this.timeout(60_000);
	const data = () => path.join(workspaceRoot(), DIR);
	beforeEach(() => fs.mkdirSync(data(), { recursive: true }));
	afterEach(() => fs.rmSync(data(), { recursive: true, force: true }));

	it('auto without bwrap on PATH: commands still run, with one notice in the first result of a chat only', async () => {
		const chat = `no-bwrap-${Date.now()}`;
		const [first, second, confirm] = await withoutBwrap(async () => [
			await run({ command: 'echo one' }, chat),
			await run({ command: 'echo two' }, chat),
			await confirmation({ command: 'echo three' }),
		]);
		assert.match(first, /^exit code 0\n\[bubblewrap \(bwrap\) is not installed.*apt install bubblewrap.*\]\none\n$/s);
		assert.match(second, /^exit code 0\ntwo\n$/);
		assert.match(confirm, /Not sandboxed \(bubblewrap \(bwrap\) is not installed/);
	});

	it('required without bwrap refuses before asking, and runs nothing', async () => {
		const marker = path.join(data(), 'ran');
		await withSetting('commandSandbox', 'required', () =>
			withoutBwrap(async () => {
				await assert.rejects(confirmation({ command: `echo > ${marker}` }), /"required" and no sandbox can start/);
				await assert.rejects(run({ command: `echo > ${marker}` }), /"required" and no sandbox can start/);
			}),
		);
		assert.strictEqual(fs.existsSync(marker), false);
	});

	it('off: not sandboxed, said so, and the gate warns about a patch; git hardening still applies', async () => {
		await withSetting('commandSandbox', 'off', async () => {
			const markdown = await confirmation({ command: 'patch -p1 < fix.diff' });
			assert.match(markdown, /Not sandboxed \(longhaul\.commandSandbox is "off"\)/);
			assert.match(markdown, /applies a patch/);
			const text = await run({ command: 'git config --get-all safe.bareRepository; git config core.hooksPath' });
			assert.match(text, /^exit code 0\nexplicit\n\/dev\/null\n$/);
		});
	});
});
