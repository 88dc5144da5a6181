import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveInsideRoots } from '../../../src/tools/pathGuard';

describe('pathGuard: tools stay inside the workspace folders', () => {
	let base: string;
	let root: string;
	let outside: string;

	before(() => {
		base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-guard-')));
		root = path.join(base, 'ws');
		outside = path.join(base, 'outside');
		fs.mkdirSync(path.join(root, 'src'), { recursive: true });
		fs.mkdirSync(outside);
		fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'export {}');
		fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
		fs.symlinkSync(outside, path.join(root, 'escape'));
		fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.txt'));
		fs.symlinkSync(path.join(root, 'src'), path.join(root, 'inner-link'));
	});
	after(() => fs.rmSync(base, { recursive: true, force: true }));

	it('resolves a relative path against the first root', () => {
		const r = resolveInsideRoots([root], 'src/a.ts');
		assert.deepEqual(r, { ok: true, path: path.join(root, 'src', 'a.ts'), root });
	});

	it('accepts an absolute path inside a root and a file that does not exist yet', () => {
		assert.equal(resolveInsideRoots([root], path.join(root, 'src', 'a.ts')).ok, true);
		const created = resolveInsideRoots([root], 'src/new/dir/file.ts');
		assert.equal(created.ok && created.path, path.join(root, 'src', 'new', 'dir', 'file.ts'));
	});

	it('refuses .. that climbs out', () => {
		const r = resolveInsideRoots([root], '../outside/secret.txt');
		assert.equal(r.ok, false);
		assert.match((r as { reason: string }).reason, /outside the workspace/);
	});

	it('refuses .. hidden in the middle of a path', () => {
		assert.equal(resolveInsideRoots([root], 'src/../../outside/secret.txt').ok, false);
	});

	it('refuses an absolute path elsewhere', () => {
		assert.equal(resolveInsideRoots([root], '/etc/passwd').ok, false);
		assert.equal(resolveInsideRoots([root], path.join(outside, 'secret.txt')).ok, false);
	});

	it('refuses symbolic links that lead outside, for files and folders, existing or new', () => {
		for (const p of ['escape/secret.txt', 'secret-link.txt', 'escape/new-file.txt', 'escape']) {
			const r = resolveInsideRoots([root], p);
			assert.equal(r.ok, false, p);
			assert.match((r as { reason: string }).reason, /symbolic link/, p);
		}
	});

	it('allows symbolic links that stay inside', () => {
		const r = resolveInsideRoots([root], 'inner-link/a.ts');
		assert.equal(r.ok && r.path, path.join(root, 'src', 'a.ts'));
	});

	it('accepts a path in the second root', () => {
		assert.equal(resolveInsideRoots([root, outside], path.join(outside, 'secret.txt')).ok, true);
	});

	it('refuses empty paths, NUL characters and no roots', () => {
		assert.equal(resolveInsideRoots([root], '').ok, false);
		assert.equal(resolveInsideRoots([root], 'a\0b').ok, false);
		assert.equal(resolveInsideRoots([], 'a').ok, false);
	});
});
