// The sandbox's policy as bwrap arguments, git's hardening environment, and which workspace files
// stay read-only: plain data, no processes (test/unit/tools/commandSandbox.test.ts runs bwrap).
import * as assert from 'node:assert/strict';
import { gitHardeningEnv } from '../../../../src/common/sandbox/gitHardening';
import { absentNames, ancestorsOf, folderVerdict, gitdirOf } from '../../../../src/common/sandbox/protectedPaths';
import { envAllowed, homeToolchainPaths, sandboxEnv } from '../../../../src/common/sandbox/sandboxEnv';
import { unixSocketFilter } from '../../../../src/common/sandbox/unixSocketFilter';
import { autoNotice, unavailableReason } from '../../../../src/common/sandbox/sandboxNotice';
import { bwrapArgs, homeSecretPaths, type SandboxPlan, wallNote } from '../../../../src/common/sandbox/sandboxPolicy';

const plan: SandboxPlan = {
	writable: ['/w'],
	readOnly: ['/w/.git/config', '/w/.vscode', '/elsewhere/x'],
	hiddenFolders: ['/home/u/.ssh'],
	hiddenFiles: ['/home/u/.netrc'],
	network: 'off',
	cwd: '/w/sub',
};

/** The index of the first occurrence of a run of arguments. */
function at(args: readonly string[], ...run: string[]): number {
	return args.findIndex((_, i) => run.every((r, j) => args[i + j] === r));
}

describe('sandboxPolicy: bwrap arguments', () => {
	it('read-only root first, then the temporary folder, the workspace writable, its code files read-only again, secrets hidden last', () => {
		const args = bwrapArgs(plan, 'make');
		const order = [
			at(args, '--ro-bind', '/', '/'),
			at(args, '--tmpfs', '/tmp'),
			at(args, '--bind', '/w', '/w'),
			at(args, '--ro-bind', '/w/.git/config', '/w/.git/config'),
			at(args, '--ro-bind', '/w/.vscode', '/w/.vscode'),
			at(args, '--tmpfs', '/home/u/.ssh', '--remount-ro', '/home/u/.ssh'),
			at(args, '--ro-bind', '/dev/null', '/home/u/.netrc'),
		];
		assert.ok(
			order.every(i => i >= 0),
			JSON.stringify(order),
		);
		assert.deepEqual(
			[...order].sort((a, b) => a - b),
			order,
		);
		// A read-only path outside the writable folders needs no mount: everything is read-only there.
		assert.equal(args.includes('/elsewhere/x'), false);
	});

	it('home hidden then toolchains, sockets hidden, tools bound, workspace, ancestors in place, read-only paths, placeholders; no capabilities, only the listed environment', () => {
		const full: SandboxPlan = {
			...plan,
			home: { path: '/home/u', visible: ['/home/u/.cargo/bin'] },
			runtime: ['/run'],
			tools: ['/tmp/cache/node'],
			inPlace: ['/w/.github', '/elsewhere'],
			readOnly: ['/w/.github/workflows'],
			absent: [
				{ path: '/w/.vscode', folder: true },
				{ path: '/w/.envrc', folder: false },
			],
			env: { PATH: '/usr/bin', HOME: '/home/u' },
			tmpBytes: 1 << 20,
			unixSocketFilter: true,
		};
		const args = bwrapArgs(full, 'make');
		const order = [
			at(args, '--size', '1048576', '--tmpfs', '/tmp'),
			at(args, '--size', '1048576', '--tmpfs', '/home/u'),
			at(args, '--ro-bind', '/home/u/.cargo/bin', '/home/u/.cargo/bin'),
			at(args, '--size', '1048576', '--tmpfs', '/run'),
			at(args, '--ro-bind', '/tmp/cache/node', '/tmp/cache/node'),
			at(args, '--bind', '/w', '/w'),
			at(args, '--bind', '/w/.github', '/w/.github'),
			at(args, '--ro-bind', '/w/.github/workflows', '/w/.github/workflows'),
			at(args, '--tmpfs', '/w/.vscode', '--remount-ro', '/w/.vscode'),
			at(args, '--ro-bind', '/dev/null', '/w/.envrc'),
			at(args, '--seccomp', '3'),
			at(args, '--cap-drop', 'ALL'),
			at(args, '--clearenv', '--setenv', 'PATH', '/usr/bin', '--setenv', 'HOME', '/home/u'),
		];
		assert.ok(
			order.every(i => i >= 0),
			JSON.stringify(order),
		);
		assert.deepEqual(
			[...order].sort((a, b) => a - b),
			order,
		);
		assert.equal(args.includes('/elsewhere'), false);
		// The filter only with the network off: a list of domains needs the forwarder's Unix socket.
		assert.equal(bwrapArgs({ ...full, network: 'all' }, 'x').includes('--seccomp'), false);
	});

	it('a PID namespace that dies with Longhaul, no network by default, the command last after --', () => {
		const args = bwrapArgs(plan, 'echo "a b"');
		for (const flag of ['--unshare-pid', '--die-with-parent', '--unshare-net', '--new-session']) assert.ok(args.includes(flag), flag);
		assert.deepEqual(args.slice(-4), ['--', '/bin/sh', '-c', 'echo "a b"']);
		assert.deepEqual(args.slice(at(args, '--chdir'), at(args, '--chdir') + 2), ['--chdir', '/w/sub']);
		assert.equal(bwrapArgs({ ...plan, network: 'all' }, 'x').includes('--unshare-net'), false);
	});

	it('a command that starts with options or holds newlines stays one argument', () => {
		const command = '--ro-bind / /\nrm -rf /';
		const args = bwrapArgs(plan, command);
		assert.equal(args[args.length - 1], command);
		assert.equal(args.filter(a => a === '--').length, 1);
	});

	it('lists the secrets of the issue below the home folder', () => {
		const paths = homeSecretPaths('/home/u/');
		for (const p of ['.ssh', '.aws', '.gnupg', '.config/gh', '.netrc', '.npmrc', '.docker/config.json', '.vscode-server']) {
			assert.ok(paths.includes(`/home/u/${p}`), p);
		}
	});
});

describe('sandboxPolicy: a failure on the walls is named', () => {
	it('a read-only file system or a missing network, on a failed command only', () => {
		assert.match(wallNote('touch: cannot touch /etc/x: Read-only file system', true, 'off')!, /read-only/);
		assert.match(wallNote('curl: (6) Could not resolve host: example.com', true, 'off')!, /no network/);
		assert.match(wallNote('x: Read-only file system', true, 'off')!, /outsideSandbox: true/);
		assert.equal(wallNote('Read-only file system', false, 'off'), undefined);
		assert.equal(wallNote('Could not resolve host: example.com', true, 'all'), undefined);
		assert.equal(wallNote('error: tests failed', true, 'off'), undefined);
	});
});

describe('gitHardening: GIT_CONFIG_COUNT settings', () => {
	it('adds safe.bareRepository=explicit and neutral fsmonitor and hooksPath', () => {
		const env = gitHardeningEnv({});
		assert.equal(env.GIT_CONFIG_COUNT, '3');
		const pairs = [0, 1, 2].map(i => `${env[`GIT_CONFIG_KEY_${i}`]}=${env[`GIT_CONFIG_VALUE_${i}`]}`);
		assert.deepEqual(pairs, ['safe.bareRepository=explicit', 'core.fsmonitor=false', 'core.hooksPath=/dev/null']);
	});

	it('keeps entries the environment already holds, ours after them', () => {
		const env = gitHardeningEnv({ GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'a.b', GIT_CONFIG_VALUE_0: '1' });
		assert.equal(env.GIT_CONFIG_COUNT, '5');
		assert.equal(env.GIT_CONFIG_KEY_2, 'safe.bareRepository');
		assert.equal(env.GIT_CONFIG_KEY_0, undefined);
		assert.equal(gitHardeningEnv({ GIT_CONFIG_COUNT: 'x' }).GIT_CONFIG_COUNT, '3');
	});
});

describe('protectedPaths: what stays read-only in the workspace', () => {
	const file = (name: string) => ({ name, isDirectory: false });
	const dir = (name: string) => ({ name, isDirectory: true });

	it('a .git folder whole, anywhere; in a bare repository only what names code', () => {
		const root = folderVerdict('', [dir('.git'), file('a.ts')]);
		assert.deepEqual(root, { readOnly: ['.git'], descend: [], gitFiles: [] });
		assert.deepEqual(folderVerdict('sub', [dir('.GIT')]).readOnly, ['sub/.GIT']);
		const bare = folderVerdict('evil', [file('config'), file('HEAD'), dir('objects'), dir('refs')]);
		assert.deepEqual(bare.readOnly, ['evil/config']);
	});

	it('gated files and folders whole; other folders looked into, node_modules not', () => {
		const root = folderVerdict('', [
			dir('.git'),
			dir('.vscode'),
			file('package.json'),
			file('setup.py'),
			dir('src'),
			dir('node_modules'),
			dir('.github'),
			file('a.ts'),
		]);
		assert.deepEqual(root.readOnly.sort(), ['.git', '.vscode', 'package.json', 'setup.py']);
		assert.deepEqual(root.descend.sort(), ['.github', 'src']);
		assert.deepEqual(folderVerdict('.github', [dir('workflows'), file('README.md')]).readOnly, ['.github/workflows']);
	});

	it('a protected name that is a link counts, as a file or a folder; a .git file is named for its gitdir', () => {
		const link = (name: string) => ({ name, isDirectory: false, isLink: true });
		const v = folderVerdict('', [link('.vscode'), link('.envrc'), link('docs'), file('.git'), file('.github'), file('notes')]);
		assert.deepEqual(v.readOnly.sort(), ['.envrc', '.git', '.vscode']);
		assert.deepEqual(
			folderVerdict('', [file('.cargo'), file('.devcontainer')]).readOnly,
			['.cargo', '.devcontainer'],
			'a file where a protected folder would be',
		);
		assert.deepEqual(v.gitFiles, ['.git']);
		assert.deepEqual(v.descend, []);
		assert.equal(gitdirOf('gitdir: ../.git/modules/sub\n'), '../.git/modules/sub');
		assert.equal(gitdirOf('nothing'), undefined);
	});

	it('absent top-level names get placeholders; those present (any case) do not; ancestors parents first', () => {
		const absent = absentNames(['.GIT', '.vscode', 'src']).map(a => a.name);
		assert.ok(!absent.includes('.git') && !absent.includes('.vscode'));
		assert.ok(absent.includes('.github') && absent.includes('.envrc') && absent.includes('.npmrc'));
		assert.ok(!absent.includes('package.json'), 'an empty package.json would break node');
		assert.deepEqual(ancestorsOf(['packages/a/package.json', '.github/workflows', '.vscode', 'packages/b/x/.envrc']), [
			'.github',
			'packages',
			'packages/a',
			'packages/b',
			'packages/b/x',
		]);
	});
});

describe('sandboxEnv: an allowlist of variables and of home folders', () => {
	it('keeps the shell, locale and toolchain variables; drops tokens, IPC handles and agents', () => {
		const env = sandboxEnv(
			{
				PATH: '/usr/bin',
				LANG: 'C.UTF-8',
				LC_ALL: 'C',
				GOPATH: '/go',
				GITHUB_TOKEN: 't',
				VSCODE_IPC_HOOK_CLI: 's',
				ELECTRON_RUN_AS_NODE: '1',
				SSH_AUTH_SOCK: 's',
				DBUS_SESSION_BUS_ADDRESS: 'd',
				npm_config__authToken: 'n',
				NODE_OPTIONS: '--require /x.js',
				HTTPS_PROXY: 'http://u:p@proxy:3128',
				HTTP_PROXY: 'http://proxy:3128',
			},
			'/home/u',
			false,
		);
		assert.deepEqual(
			Object.keys(env)
				.filter(k => !k.startsWith('GIT_CONFIG_'))
				.sort(),
			['GOPATH', 'HOME', 'LANG', 'LC_ALL', 'PATH'],
		);
		assert.equal(env.HOME, '/home/u');
		assert.equal(env.GIT_CONFIG_COUNT, '3');
		const all = sandboxEnv({ HTTPS_PROXY: 'http://u:p@proxy:3128', HTTP_PROXY: 'http://proxy:3128' }, '/h', true);
		assert.equal(all.HTTP_PROXY, 'http://proxy:3128');
		assert.equal(all.HTTPS_PROXY, undefined, 'a proxy with credentials stays out');
		assert.ok(!envAllowed('GITHUB_TOKEN') && envAllowed('LC_CTYPE'));
	});

	it('the toolchain folders, not their credentials', () => {
		const paths = homeToolchainPaths('/home/u/');
		assert.ok(paths.includes('/home/u/.cargo/bin') && paths.includes('/home/u/.rustup'));
		assert.ok(!paths.some(p => /credentials|settings\.xml|gradle\.properties|\.config|\.ssh|\.gitconfig/.test(p)));
		assert.ok(!paths.includes('/home/u/.cargo'));
	});
});

describe('unixSocketFilter: the seccomp program', () => {
	it('a BPF program for x86_64 and aarch64 that checks the architecture first; none elsewhere', () => {
		for (const arch of ['x64', 'arm64']) {
			const bpf = unixSocketFilter(arch)!;
			assert.equal(bpf.length % 8, 0);
			// ld [4]: the architecture; the last instruction: return EPERM.
			assert.deepEqual([bpf.readUInt16LE(0), bpf.readUInt32LE(4)], [0x20, 4]);
			assert.deepEqual([bpf.readUInt16LE(bpf.length - 8), bpf.readUInt32LE(bpf.length - 4)], [0x06, 0x00050001]);
		}
		assert.equal(unixSocketFilter('riscv64'), undefined);
	});
});

describe('sandboxNotice: why there is no sandbox, and how to get one', () => {
	it('names the platform, the missing package, and the AppArmor restriction of Ubuntu 24.04', () => {
		assert.match(unavailableReason({ kind: 'platform', platform: 'darwin' }), /darwin/);
		assert.match(unavailableReason({ kind: 'missing' }), /apt install bubblewrap/);
		assert.match(unavailableReason({ kind: 'failed', detail: 'bwrap: setting up uid map: Permission denied' }), /AppArmor/);
		assert.doesNotMatch(unavailableReason({ kind: 'failed', detail: 'bwrap: weird' }), /AppArmor/);
		assert.match(autoNotice({ kind: 'missing' }), /longhaul\.commandSandbox/);
	});
});
