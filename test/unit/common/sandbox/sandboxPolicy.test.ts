// The sandbox's policy as bwrap arguments, git's hardening environment, and which workspace files
// stay read-only: plain data, no processes (test/unit/tools/commandSandbox.test.ts runs bwrap).
import * as assert from 'node:assert/strict';
import { gitHardeningEnv } from '../../../../src/common/sandbox/gitHardening';
import { folderVerdict } from '../../../../src/common/sandbox/protectedPaths';
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

	it('in a .git folder and a bare repository only what names code; git still writes objects, refs and the index', () => {
		const git = folderVerdict('.git', [file('config'), file('HEAD'), file('index'), dir('hooks'), dir('objects'), dir('refs'), dir('info')]);
		assert.deepEqual(git, { readOnly: ['.git/config', '.git/hooks', '.git/info'], descend: [] });
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
		assert.deepEqual(root.readOnly.sort(), ['.vscode', 'package.json', 'setup.py']);
		assert.deepEqual(root.descend.sort(), ['.git', '.github', 'src']);
		assert.deepEqual(folderVerdict('.github', [dir('workflows'), file('README.md')]).readOnly, ['.github/workflows']);
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
