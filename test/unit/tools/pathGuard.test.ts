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
		assert.deepEqual(r, { ok: true, path: path.join(root, 'src', 'a.ts'), root, exists: true });
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

	it('reads a file:// URI as its path, with the same checks, and refuses other URIs', () => {
		const inside = resolveInsideRoots([root], `file://${path.join(root, 'src', 'a.ts')}`);
		assert.equal(inside.ok && inside.path, path.join(root, 'src', 'a.ts'));
		const encoded = resolveInsideRoots([root], `file://${root}/src/new%20file.ts`);
		assert.equal(encoded.ok && encoded.path, path.join(root, 'src', 'new file.ts'));
		for (const uri of ['file:///etc/passwd', `file://${root}/escape/secret.txt`, `file://${root}/../outside/secret.txt`]) {
			assert.equal(resolveInsideRoots([root], uri).ok, false, uri);
		}
		for (const uri of ['http://example.com/a', 'vscode-remote://ssh/x', 'file://otherhost/etc/passwd', 'file:///a%00b']) {
			const r = resolveInsideRoots([root], uri);
			assert.equal(r.ok, false, uri);
			assert.match((r as { reason: string }).reason, /URI|NUL/, uri);
		}
		// A relative name that only starts like a scheme is a name.
		assert.equal(resolveInsideRoots([root], 'c:notes.txt').ok, true);
		assert.equal(resolveInsideRoots([root], 'notes:draft.txt').ok, true);
	});

	it('reads file:/abs (one slash) as its path and refuses scheme:/path URIs, instead of making folders named file: or vscode-remote:', () => {
		const inside = resolveInsideRoots([root], `file:${path.join(root, 'src', 'a.ts')}`);
		assert.equal(inside.ok && inside.path, path.join(root, 'src', 'a.ts'));
		for (const uri of [`file:${root}/..`, 'file:/etc/passwd', `FILE:${root}/../outside/secret.txt`]) {
			const r = resolveInsideRoots([root], uri);
			assert.equal(r.ok, false, uri);
			assert.match((r as { reason: string }).reason, /outside the workspace/, uri);
		}
		for (const uri of ['vscode-remote:/etc/x', 'http:/example.com', 'untitled:/Untitled-1']) {
			const r = resolveInsideRoots([root], uri);
			assert.equal(r.ok, false, uri);
			assert.match((r as { reason: string }).reason, /is a URI, not a path/, uri);
		}
	});

	// Issue 17: the ways out that the first guard missed.
	describe('dangling links and odd paths', () => {
		const refusedThroughLink = (p: string) => {
			const r = resolveInsideRoots([root], p);
			assert.equal(r.ok, false, `${p} should be refused, got ${JSON.stringify(r)}`);
			assert.match((r as { reason: string }).reason, /symbolic link/, p);
		};

		before(() => {
			// A cloned repository can ship links that dangle on purpose.
			fs.symlinkSync('../outside/not-yet.txt', path.join(root, 'notes.txt'));
			fs.symlinkSync(path.join(outside, 'not-yet-abs.txt'), path.join(root, 'notes-abs.txt'));
			fs.symlinkSync(path.join(outside, 'new-folder'), path.join(root, 'dangling-dir'));
			fs.symlinkSync('notes.txt', path.join(root, 'chain.txt'));
			fs.symlinkSync('src/fresh.txt', path.join(root, 'inside-dangling.txt'));
			// `..` after a link climbs from where the link led: lexically inside, physically outside.
			fs.mkdirSync(path.join(outside, 'deep'));
			fs.symlinkSync(path.join(outside, 'deep'), path.join(root, 'to-deep'));
			fs.symlinkSync('to-deep/../climbed.txt', path.join(root, 'climb.txt'));
			fs.symlinkSync('loop-b', path.join(root, 'loop-a'));
			fs.symlinkSync('loop-a', path.join(root, 'loop-b'));
			fs.symlinkSync('self', path.join(root, 'self'));
			fs.writeFileSync(path.join(root, '..foo'), 'legal name');
		});

		it('refuses a dangling link whose target is outside, relative or absolute', () => {
			refusedThroughLink('notes.txt');
			refusedThroughLink('notes-abs.txt');
			refusedThroughLink(path.join(root, 'notes.txt'));
			refusedThroughLink('chain.txt');
		});

		it('refuses a dangling link to an outside folder, and paths below it', () => {
			refusedThroughLink('dangling-dir');
			refusedThroughLink('dangling-dir/file.txt');
			refusedThroughLink('dangling-dir/a/b/c.txt');
		});

		it('resolves .. after a link physically, as the kernel does', () => {
			refusedThroughLink('climb.txt');
			refusedThroughLink('to-deep/../secret.txt');
		});

		it('follows a dangling link that stays inside to its target', () => {
			const r = resolveInsideRoots([root], 'inside-dangling.txt');
			assert.deepEqual(r, { ok: true, path: path.join(root, 'src', 'fresh.txt'), root, exists: false });
		});

		it('accepts names that start with two dots', () => {
			const r = resolveInsideRoots([root], '..foo');
			assert.equal(r.ok && r.path, path.join(root, '..foo'));
			assert.equal(resolveInsideRoots([root], 'src/..bar/x').ok, true);
			assert.equal(resolveInsideRoots([root], '..').ok, false);
		});

		it('refuses link loops, over-long names and files used as folders, without throwing', () => {
			const cases: [string, RegExp][] = [
				['loop-a', /ELOOP/],
				['self/x', /ELOOP/],
				['x'.repeat(300), /ENAMETOOLONG/],
				[`missing/${'y'.repeat(300)}/z`, /ENAMETOOLONG/],
				[Array.from({ length: 30 }, () => 'z'.repeat(200)).join('/'), /ENAMETOOLONG/],
				['src/a.ts/inner', /ENOTDIR/],
			];
			for (const [p, reason] of cases) {
				const r = resolveInsideRoots([root], p);
				assert.equal(r.ok, false, p.slice(0, 40));
				assert.match((r as { reason: string }).reason, reason);
			}
		});

		it('turns any error of the file system into a refusal', () => {
			const denied = {
				lstat: () => {
					throw Object.assign(new Error('denied'), { code: 'EACCES' });
				},
				readlink: fs.readlinkSync,
				realpath: (p: string) => p,
			};
			const r = resolveInsideRoots([root], 'src/a.ts', denied);
			assert.equal(r.ok, false);
			assert.match((r as { reason: string }).reason, /EACCES/);
			assert.equal(resolveInsideRoots([root], 42 as unknown as string).ok, false);
		});
	});
});
