// The command sandbox with the real bubblewrap: what a command inside can and cannot reach.
// Skipped where bwrap cannot start a sandbox (the integration tests cover the fallback).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import {
	forwarderCandidates,
	newCodeFiles,
	protectedWalk,
	sandboxAvailability,
	sandboxMemory,
	sandboxPlan,
	startCommandProxy,
} from '../../../src/tools/commandSandbox';
import { runShell, type ShellOutcome } from '../../../src/tools/shellRunner';
import { parseDomainList } from '../../../src/common/sandbox/networkPolicy';
import type { Forwarder } from '../../../src/common/sandbox/proxyForwarder';
import type { CommandNetwork, SandboxEngine, SandboxPlan } from '../../../src/common/sandbox/sandboxPolicy';

describe('commandSandbox: commands in bubblewrap', function () {
	this.timeout(20_000);
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
		base = fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-sandbox-'));
		work = path.join(base, 'work');
		home = path.join(base, 'home');
		fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
		fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY');
		fs.writeFileSync(path.join(home, '.netrc'), 'machine x password SECRET');
		fs.mkdirSync(work);
		execFileSync('git', ['init', '-q', work]);
	});

	afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

	async function run(command: string, network: CommandNetwork = 'off'): Promise<ShellOutcome> {
		const plan = await sandboxPlan([work], work, network, home);
		return runShell({ command, cwd: work, timeoutMs: 15_000, sandbox: { engine, plan } });
	}

	it('control: writes in the workspace, a build and git status work; a commit does not (the whole .git is read-only)', async () => {
		const outcome = await run('echo hi > a.txt && mkdir -p build && cp a.txt build/ && git status --short');
		assert.equal(outcome.exitCode, 0, outcome.output);
		assert.match(outcome.output, /\?\? a\.txt/);
		assert.equal(fs.readFileSync(path.join(work, 'build', 'a.txt'), 'utf8'), 'hi\n');
		const commit = await run('git -c user.email=a@b -c user.name=a add a.txt');
		assert.notEqual(commit.exitCode, 0);
		assert.match(commit.output, /Read-only file system/);
	});

	it('a write outside the workspace fails on the read-only file system', async () => {
		// Not below /tmp: inside the sandbox /tmp is the command's own empty temporary folder.
		const outside = path.join('/var/tmp', `${path.basename(base)}-outside.txt`);
		const outcome = await run(`echo x > ${outside}`);
		assert.notEqual(outcome.exitCode, 0);
		assert.match(outcome.output, /Read-only file system/);
		assert.equal(fs.existsSync(outside), false);
	});

	it('.git/config and .git/hooks stay read-only; a planted bare repository does not run its fsmonitor', async () => {
		const before = fs.readFileSync(path.join(work, '.git', 'config'), 'utf8');
		const append = await run('echo "[core] fsmonitor = touch pwned" >> .git/config');
		assert.notEqual(append.exitCode, 0);
		assert.equal(fs.readFileSync(path.join(work, '.git', 'config'), 'utf8'), before);
		const hook = await run('echo "touch pwned" > .git/hooks/pre-commit');
		assert.notEqual(hook.exitCode, 0);
		const bare = await run(
			'mkdir -p evil/objects evil/refs && printf "ref: refs/heads/main\\n" > evil/HEAD && printf "[core]\\n\\tfsmonitor = touch %s/pwned\\n" "$PWD" > evil/config && git -C evil status; true',
		);
		assert.equal(fs.existsSync(path.join(work, 'pwned')), false, bare.output);
	});

	it('secrets are hidden: ~/.ssh is empty, ~/.netrc reads as empty', async () => {
		const outcome = await run(`cat ${home}/.ssh/id_rsa; cat ${home}/.netrc; ls -A ${home}/.ssh | wc -l`);
		assert.doesNotMatch(outcome.output, /PRIVATE KEY|SECRET/);
		assert.match(outcome.output, /^0$/m);
	});

	it('no network: a listener on 127.0.0.1 of the host is out of reach; with network "all" it is reached', async () => {
		let connections = 0;
		const server = net.createServer(socket => {
			connections++;
			socket.end('hello\n');
		});
		await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
		const port = (server.address() as net.AddressInfo).port;
		const connect = `node -e "require('net').connect(${port},'127.0.0.1').on('data',d=>{process.stdout.write(d);process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(1)})"`;
		try {
			const blocked = await run(connect);
			assert.notEqual(blocked.exitCode, 0, blocked.output);
			assert.equal(connections, 0);
			const allowed = await run(connect, 'all');
			assert.equal(allowed.exitCode, 0, allowed.output);
			assert.equal(connections, 1);
		} finally {
			server.close();
		}
	});

	/** The plan with `forwarder` in place of the one the check chose. */
	const behind = (plan: SandboxPlan, forwarder: Forwarder): SandboxPlan => ({ ...plan, proxy: { ...plan.proxy!, forwarder } });

	// Each forwarder this machine has (Perl first, node always): both must carry the same traffic.
	for (const forwarder of forwarderCandidates()) {
		it(`a list of domains (${forwarder.kind} forwarder): an allowed host is reached through the proxy, another gets its 403, a direct connect fails`, async () => {
			let connections = 0;
			const server = net.createServer(socket => {
				connections++;
				socket.on('error', () => undefined);
				socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n'));
			});
			await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
			const port = (server.address() as net.AddressInfo).port;
			const network = parseDomainList(['localhost']);
			const proxy = await startCommandProxy(network.domains);
			try {
				const plan = behind(await sandboxPlan([work], work, network, home, proxy), forwarder);
				const shell = (command: string) => runShell({ command, cwd: work, timeoutMs: 15_000, sandbox: { engine, plan } });
				// localhost is the sandbox's own loopback by default (NO_PROXY): the test sends it to the proxy.
				const allowed = await shell(`NO_PROXY= no_proxy= curl -sS http://localhost:${port}/`);
				assert.equal(allowed.exitCode, 0, allowed.output);
				assert.equal(allowed.output, 'hello\n');
				const tunnel = await shell(`NO_PROXY= no_proxy= curl -sS -p http://localhost:${port}/`);
				assert.equal(tunnel.output, 'hello\n');
				assert.equal(connections, 2);
				const refused = await shell('curl -sS http://not-listed.example/ ; curl -sS https://not-listed.example/');
				assert.match(refused.output, /refused the connection to not-listed\.example: it is not in longhaul\.commandNetworkDomains/);
				assert.match(refused.output, /CONNECT tunnel failed, response 403/);
				const direct = await shell(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected || echo refused'`);
				assert.match(direct.output, /refused/);
				assert.equal(connections, 2);
				assert.deepEqual(proxy.refused(), ['not-listed.example']);
			} finally {
				await proxy.close();
				server.close();
			}
			assert.equal(fs.existsSync(proxy.socketPath!), false);
			assert.equal(sandboxMemory.proxies.size, 0);
		});

		it(`a list of domains (${forwarder.kind} forwarder): 4 MB each way pass whole through a tunnel`, async () => {
			const size = 4 * 1024 * 1024;
			const server = net.createServer(socket => {
				let got = 0;
				socket.on('error', () => undefined);
				socket.on('data', d => {
					got += d.length;
					if (got === size) socket.end(Buffer.alloc(size, 'y'));
				});
			});
			await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
			const port = (server.address() as net.AddressInfo).port;
			const proxy = await startCommandProxy(['localhost']);
			try {
				const plan = behind(await sandboxPlan([work], work, parseDomainList(['localhost']), home, proxy), forwarder);
				// A raw CONNECT through the forwarder and the proxy, then 4 MB up and 4 MB down.
				const script = `const s=require('net').connect(31280,'127.0.0.1',()=>s.write('CONNECT localhost:${port} HTTP/1.1\\r\\nHost: localhost:${port}\\r\\n\\r\\n'));let head='',n=0,up=false;s.on('data',d=>{if(!up){head+=d;const e=head.indexOf('\\r\\n\\r\\n');if(e<0)return;up=true;n=head.length-e-4;s.write(Buffer.alloc(${size},'x'));return}n+=d.length});s.on('end',()=>{console.log(n);process.exit(0)})`;
				const outcome = await runShell({ command: `node -e "${script}"`, cwd: work, timeoutMs: 15_000, sandbox: { engine, plan } });
				assert.equal(outcome.output.trim(), String(size), outcome.output);
			} finally {
				await proxy.close();
				server.close();
			}
		});

		it(`a list of domains (${forwarder.kind} forwarder): the command keeps its exit code and output`, async () => {
			const proxy = await startCommandProxy([]);
			try {
				const plan = behind(await sandboxPlan([work], work, { domains: [], ignored: [] }, home, proxy), forwarder);
				const outcome = await runShell({ command: 'echo "$HTTPS_PROXY"; echo err >&2; exit 3', cwd: work, timeoutMs: 15_000, sandbox: { engine, plan } });
				assert.equal(outcome.exitCode, 3);
				assert.match(outcome.output, /^http:\/\/127\.0\.0\.1:31280$/m);
				assert.match(outcome.output, /^err$/m);
			} finally {
				await proxy.close();
			}
		});
	}

	it('a list of domains: the check that a sandbox starts runs the fastest forwarder that starts here', async () => {
		const available = await sandboxAvailability({ domains: ['example.com'], ignored: [] });
		assert.equal(available.ok, true, JSON.stringify(available));
		assert.deepEqual(available.ok && available.forwarder, forwarderCandidates()[0]);
	});

	it('a list of domains: a Perl that warns as it starts (a missing locale) is passed over for node', async function () {
		if (forwarderCandidates()[0].kind !== 'perl') this.skip();
		const perl = forwarderCandidates()[0].program;
		// Not below /tmp, which the sandbox replaces with its own.
		const bin = fs.mkdtempSync(path.join('/var/tmp', 'longhaul-perl-'));
		const savedPath = process.env.PATH;
		const chosen = async (warning: string) => {
			fs.writeFileSync(path.join(bin, 'perl'), `#!/bin/sh\n${warning}exec ${perl} "$@"\n`, { mode: 0o755 });
			sandboxMemory.clear();
			const available = await sandboxAvailability({ domains: [], ignored: [] });
			return available.ok ? available.forwarder : undefined;
		};
		try {
			process.env.PATH = `${bin}:${savedPath}`;
			assert.deepEqual(await chosen(''), { kind: 'perl', program: path.join(bin, 'perl'), env: {} }, 'control: a quiet Perl is taken');
			assert.equal((await chosen('echo "perl: warning: Setting locale failed." >&2\n'))?.kind, 'node');
		} finally {
			process.env.PATH = savedPath;
			sandboxMemory.clear();
			fs.rmSync(bin, { recursive: true, force: true });
		}
	});

	it('a list of domains: a forwarder in a folder the sandbox hides (node from ~/.vscode-server) or replaces (/tmp) still runs, bound read-only at its path', async () => {
		// A home outside /tmp, which the sandbox replaces with its own.
		const outer = fs.mkdtempSync(path.join('/var/tmp', 'longhaul-home-'));
		const network = parseDomainList(['localhost']);
		const proxy = await startCommandProxy(network.domains);
		try {
			const hidden = path.join(outer, '.vscode-server', 'bin');
			const replaced = path.join(base, 'bin');
			for (const folder of [hidden, replaced]) {
				fs.mkdirSync(folder, { recursive: true });
				fs.symlinkSync(process.execPath, path.join(folder, 'node'));
			}
			for (const folder of [hidden, replaced]) {
				const node = forwarderCandidates('', path.join(folder, 'node'))[0];
				assert.equal(node.program, path.join(folder, 'node'));
				const plan = behind(await sandboxPlan([work], work, network, outer, proxy), node);
				const inside = await runShell({ command: 'echo ran', cwd: work, timeoutMs: 15_000, sandbox: { engine, plan } });
				assert.equal(inside.exitCode, 0, inside.output);
				assert.equal(inside.output, 'ran\n');
			}
		} finally {
			await proxy.close();
			fs.rmSync(outer, { recursive: true, force: true });
		}
	});

	it('a `setsid env -i` child does not outlive the command (PID namespace)', async () => {
		const marker = path.join(work, 'alive');
		const outcome = await run(`setsid env -i /bin/sh -c 'sleep 2; echo late > ${marker}' > /dev/null 2>&1 & echo started`);
		assert.equal(outcome.exitCode, 0);
		await new Promise(resolve => setTimeout(resolve, 3_000));
		assert.equal(fs.existsSync(marker), false);
	});

	it('files that run code created below the top, where none existed, are not stopped, but found afterwards', async () => {
		const plan = await sandboxPlan([work], work, 'off', home);
		const outcome = await runShell({
			command: 'mkdir -p sub/.vscode evil && echo "{}" > sub/.vscode/tasks.json && echo x > evil/HEAD && echo y > evil/config && echo z > notes.txt',
			cwd: work,
			timeoutMs: 15_000,
			sandbox: { engine, plan },
		});
		assert.equal(outcome.exitCode, 0, outcome.output);
		const created = (await newCodeFiles(plan)).map(p => path.relative(work, p)).sort();
		assert.deepEqual(created, ['evil/config', 'sub/.vscode']);
	});

	it('finds the files that run code: the whole .git, a .vscode, a package.json below', async () => {
		fs.mkdirSync(path.join(work, '.vscode'));
		fs.writeFileSync(path.join(work, '.vscode', 'settings.json'), '{}');
		fs.mkdirSync(path.join(work, 'sub'));
		fs.writeFileSync(path.join(work, 'sub', 'package.json'), '{}');
		fs.writeFileSync(path.join(work, 'src.ts'), '');
		const found = (await protectedWalk(work)).paths.map(p => path.relative(work, p)).sort();
		assert.deepEqual(found, ['.git', '.vscode', 'sub/package.json']);
	});
});

describe('commandSandbox on macOS: Seatbelt wiring, with a stand-in for sandbox-exec', () => {
	let base = '';
	beforeEach(() => (base = fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-seatbelt-'))));
	afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

	it('the shell runs after the profile, with its own TMPDIR and, with a list, the proxy variables', async () => {
		// Records what sandbox-exec was given, then runs what follows `--`, as sandbox-exec would.
		const fake = path.join(base, 'sandbox-exec');
		fs.writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$@" > '${base}/args'\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n`, { mode: 0o755 });
		const tmp = path.join(base, 'tmp');
		fs.mkdirSync(tmp);
		const plan = { ...(await sandboxPlan([base], base, { domains: ['example.com'], ignored: [] }, base)), tmp, proxyPort: 4321 };
		const outcome = await runShell({
			command: 'echo "$TMPDIR $HTTPS_PROXY $NO_PROXY"',
			cwd: base,
			timeoutMs: 15_000,
			sandbox: { engine: { kind: 'seatbelt', program: fake }, plan },
		});
		assert.equal(outcome.output, `${tmp} http://127.0.0.1:4321 localhost,127.0.0.1,::1\n`);
		const args = fs.readFileSync(path.join(base, 'args'), 'utf8').split('\n');
		assert.equal(args[0], '-p');
		assert.ok(args.includes('(allow network-outbound (remote ip "localhost:4321"))'), args.join('\n'));
		assert.ok(args.includes(`WRITABLE_1=${tmp}`));
	});

	it('macOS without sandbox-exec and Windows say why no sandbox starts', async () => {
		const mac = await sandboxAvailability('off', 'darwin');
		if (fs.existsSync('/usr/bin/sandbox-exec')) assert.equal(mac.ok, true);
		else assert.deepEqual(mac, { ok: false, why: { kind: 'failed', program: 'sandbox-exec', detail: '/usr/bin/sandbox-exec is missing' } });
		assert.deepEqual(await sandboxAvailability('off', 'win32'), { ok: false, why: { kind: 'platform', platform: 'win32' } });
	});
});
