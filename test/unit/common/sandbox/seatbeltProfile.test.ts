// The macOS Seatbelt profile of a sandbox plan, read as text (it cannot run on Linux; see
// docs/reliability.md): writable roots, the files that run code read-only inside them, secrets
// neither readable nor writable, the network as the plan says, and paths only as parameters.
import * as assert from 'node:assert/strict';
import { unavailableReason } from '../../../../src/common/sandbox/sandboxNotice';
import { sandboxSummary, type SandboxPlan } from '../../../../src/common/sandbox/sandboxPolicy';
import { sandboxExecArgs, seatbeltProfile } from '../../../../src/common/sandbox/seatbeltProfile';

const plan: SandboxPlan = {
	writable: ['/Users/u/work', '/Users/u/other'],
	readOnly: ['/Users/u/work/.git/config', '/Users/u/work/.vscode'],
	hiddenFolders: ['/Users/u/.ssh', '/Users/u/.aws'],
	hiddenFiles: ['/Users/u/.netrc'],
	network: 'off',
	cwd: '/Users/u/work',
};
const TMP = '/private/var/folders/xy/T/longhaul-command-1';

/** The top-level forms of a profile, checking that parentheses and strings balance. */
function forms(profile: string): string[] {
	const out: string[] = [];
	let depth = 0;
	let start = 0;
	let inString = false;
	for (let i = 0; i < profile.length; i++) {
		const c = profile[i];
		if (inString) {
			if (c === '\\') i++;
			else if (c === '"') inString = false;
		} else if (c === '"') inString = true;
		else if (c === '(') {
			if (depth++ === 0) start = i;
		} else if (c === ')') {
			assert.ok(--depth >= 0, `unbalanced at ${i}`);
			if (depth === 0) out.push(profile.slice(start, i + 1));
		}
	}
	assert.equal(depth, 0);
	assert.equal(inString, false);
	return out;
}

/** The parameter names whose values are `paths`. */
function paramsOf(params: Readonly<Record<string, string>>, paths: readonly string[]): string[] {
	return paths.map(p => Object.keys(params).find(k => params[k] === p)!);
}

describe('seatbeltProfile: the sandbox plan for macOS', () => {
	const { profile, params } = seatbeltProfile(plan, TMP);
	const rules = forms(profile);

	it('starts closed: version 1 and deny default, then only allow rules', () => {
		assert.deepEqual(rules.slice(0, 2), ['(version 1)', '(deny default)']);
		assert.ok(
			rules.slice(2).every(r => r.startsWith('(allow ')),
			rules.join('\n'),
		);
	});

	it('writes only below the workspace folders and the temporary folder, minus the files that run code and the secrets', () => {
		const writes = rules.filter(r => /^\(allow file-write\* \(require-all/.test(r));
		assert.equal(writes.length, 1, profile);
		const [write] = writes;
		for (const name of paramsOf(params, [...plan.writable, TMP])) assert.ok(write.includes(`(subpath (param "${name}"))`), name);
		const [allowed, excluded] = write.split('(require-not');
		for (const name of paramsOf(params, [...plan.readOnly, ...plan.hiddenFolders])) {
			assert.ok(excluded.includes(`(subpath (param "${name}"))`), name);
			assert.ok(!allowed.includes(`"${name}"`), name);
		}
		assert.ok(excluded.includes(`(literal (param "${paramsOf(params, plan.hiddenFiles)[0]}"))`));
		// Nothing else writes files but the devices a shell needs.
		const otherWrites = rules.filter(r => r.includes('file-write') && r !== write);
		assert.deepEqual(otherWrites.length, 1);
		assert.match(otherWrites[0], /^\(allow file-read\* file-write\* file-ioctl \(literal "\/dev\/null"\)/);
	});

	it('reads everything but the secrets', () => {
		const reads = rules.filter(r => r.startsWith('(allow file-read* (require-not'));
		assert.equal(reads.length, 1);
		for (const name of paramsOf(params, plan.hiddenFolders)) assert.ok(reads[0].includes(`(subpath (param "${name}"))`));
		assert.ok(reads[0].includes(`(literal (param "${paramsOf(params, plan.hiddenFiles)[0]}"))`));
		assert.equal(
			rules.some(r => r === '(allow file-read*)'),
			false,
		);
	});

	it('no network when off; all of it when all; only the proxy port on the loopback with a list', () => {
		assert.doesNotMatch(profile, /network/);
		const all = seatbeltProfile({ ...plan, network: 'all' }, TMP).profile;
		assert.match(all, /\(allow network\* system-socket\)/);
		const listed = seatbeltProfile({ ...plan, network: { domains: ['example.com'], ignored: [] } }, TMP, 40123).profile;
		assert.deepEqual(
			forms(listed).filter(r => r.includes('network')),
			['(allow network-outbound (remote ip "localhost:40123"))'],
		);
		// A list without a proxy port gets no network at all.
		assert.doesNotMatch(seatbeltProfile({ ...plan, network: { domains: ['example.com'], ignored: [] } }, TMP).profile, /network/);
	});

	it('paths are parameters, never profile text: a path with quotes and parentheses adds no rule', () => {
		const evil = '/Users/u/x") (allow file-write* (subpath "/")) ("';
		const { profile: text, params: values } = seatbeltProfile({ ...plan, writable: [evil] }, TMP);
		assert.equal(text.includes(evil), false);
		assert.ok(Object.values(values).includes(evil));
		assert.equal(forms(text).length, rules.length);
		assert.equal(text.includes('/Users/'), false);
	});

	it('sandbox-exec runs the shell with the profile and a -D per path, the command last after --', () => {
		const args = sandboxExecArgs(plan, '--x "a b"', TMP);
		assert.equal(args[0], '-p');
		assert.equal(args[1], profile);
		const defines = args.slice(2, args.indexOf('--'));
		assert.equal(defines.length, 2 * Object.keys(params).length);
		assert.ok(defines.includes(`WRITABLE_0=/Users/u/work`));
		assert.deepEqual(args.slice(args.indexOf('--')), ['--', '/bin/sh', '-c', '--x "a b"']);
	});

	it("the home folder unreadable but for toolchains and the workspace; absent protected names not creatable; only the plan's environment", () => {
		const hidden: SandboxPlan = {
			...plan,
			home: { path: '/Users/u', visible: ['/Users/u/.cargo/bin'] },
			absent: [{ path: '/Users/u/work/.vscode', folder: true }],
			env: { PATH: '/usr/bin', HOME: '/Users/u' },
		};
		const { profile: text, params: values } = seatbeltProfile(hidden, TMP);
		const [read] = forms(text).filter(r => r.startsWith('(allow file-read* (require-not'));
		const [home, toolchain, work] = paramsOf(values, ['/Users/u', '/Users/u/.cargo/bin', '/Users/u/work']);
		assert.ok(read.includes(`(require-all (subpath (param "${home}")) (require-not (require-any (subpath (param "${toolchain}"))`), read);
		assert.ok(read.includes(`(subpath (param "${work}"))`), read);
		const [write] = forms(text).filter(r => r.startsWith('(allow file-write* (require-all'));
		const [absent] = paramsOf(values, ['/Users/u/work/.vscode']);
		assert.ok(write.split('(require-not')[1].includes(`(subpath (param "${absent}"))`), write);
		const args = sandboxExecArgs(hidden, 'make', TMP);
		assert.deepEqual(args.slice(args.indexOf('--')), ['--', '/usr/bin/env', '-i', 'PATH=/usr/bin', 'HOME=/Users/u', `TMPDIR=${TMP}`, '/bin/sh', '-c', 'make']);
	});

	it('the confirmation does not promise under Seatbelt that nothing outlives the command', () => {
		assert.match(sandboxSummary('off'), /nothing it starts outlives it\.$/);
		assert.doesNotMatch(sandboxSummary('off', 'seatbelt'), /nothing it starts outlives it/);
		assert.match(sandboxSummary('off', 'seatbelt'), /stopped when it ends \(Seatbelt: as far as Longhaul can find it\)\.$/);
	});

	it('when sandbox-exec fails, the notice names it, and no Linux advice', () => {
		const text = unavailableReason({ kind: 'failed', program: 'sandbox-exec', detail: 'sandbox_apply: Operation not permitted' });
		assert.match(text, /^sandbox-exec could not start a sandbox here \(sandbox_apply: Operation not permitted\)/);
		assert.doesNotMatch(text, /AppArmor|bubblewrap/);
		assert.match(unavailableReason({ kind: 'platform', platform: 'win32' }), /bubblewrap on Linux and Seatbelt on macOS; on win32/);
	});
});
