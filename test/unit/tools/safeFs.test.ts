// Issue 17: reads, writes and listings stay inside the workspace whatever the tree holds: dangling
// links, links swapped in after the check, named pipes, hard links. Real files, links and fifos in
// a temp folder.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { isInside, nodeFs, PathGuardFs, resolveInsideRoots } from '../../../src/tools/pathGuard';
import { createInside, listInside, readInside, updateInside } from '../../../src/tools/safeFs';

const SECRET = 'OUTSIDE-SECRET';
const MB = 1024 * 1024;

/** Every file and link below `dir` with its content or target, to compare before and after. */
function snapshot(dir: string): string[] {
	return fs
		.readdirSync(dir, { withFileTypes: true })
		.flatMap(e => {
			const full = path.join(dir, e.name);
			if (e.isSymbolicLink()) return [`${e.name} -> ${fs.readlinkSync(full)}`];
			if (e.isDirectory()) return [`${e.name}/`, ...snapshot(full).map(p => `${e.name}/${p}`)];
			return [`${e.name}: ${fs.readFileSync(full, 'utf8')}`];
		})
		.sort();
}

function reasonOf(r: { ok: boolean; reason?: string }): string {
	assert.equal(r.ok, false, `expected a refusal, got ${JSON.stringify(r)}`);
	return r.reason ?? '';
}

/**
 * The guard's file system, with a hook that runs right after the guard canonicalized `trigger`:
 * the moment between the check and the open, where an attacker swaps a folder for a link.
 */
function swappingFs(trigger: string, swap: () => void): PathGuardFs {
	return {
		...nodeFs,
		realpath: p => {
			const real = nodeFs.realpath(p);
			if (p === trigger) swap();
			return real;
		},
	};
}

describe('safeFs: reads and writes that cannot leave the workspace', () => {
	let base: string;
	let ws: string;
	let outside: string;
	let before: string[];

	beforeEach(() => {
		base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-safefs-')));
		ws = path.join(base, 'ws');
		outside = path.join(base, 'outside');
		fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
		fs.mkdirSync(path.join(outside, 'dir'), { recursive: true });
		fs.writeFileSync(path.join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
		fs.writeFileSync(path.join(outside, 'secret.txt'), SECRET);
		fs.writeFileSync(path.join(outside, 'dir', 'secret.txt'), SECRET);
		before = snapshot(outside);
	});
	afterEach(() => {
		assert.deepEqual(snapshot(outside), before, 'nothing outside the workspace may change');
		fs.rmSync(base, { recursive: true, force: true });
	});

	it('control: reads, creates, edits and lists inside', async () => {
		const read = await readInside([ws], 'src/a.ts', MB);
		assert.equal(read.ok && read.data.toString(), 'export const a = 1;\n');
		const created = await createInside([ws], 'new/deeper/file.txt', 'hello\n');
		assert.equal(created.ok && created.path, path.join(ws, 'new', 'deeper', 'file.txt'));
		assert.equal(fs.readFileSync(path.join(ws, 'new', 'deeper', 'file.txt'), 'utf8'), 'hello\n');
		const updated = await updateInside([ws], 'src/a.ts', old => old.replace('1', '2'), MB);
		assert.equal(updated.ok, true);
		assert.equal(fs.readFileSync(path.join(ws, 'src', 'a.ts'), 'utf8'), 'export const a = 2;\n');
		const listed = await listInside([ws], '.');
		assert.deepEqual(listed.ok && listed.entries.map(e => e.name).sort(), ['new', 'src']);
	});

	it('never writes through a dangling link, relative or absolute, to a file or a folder', async () => {
		fs.symlinkSync('../outside/notes.txt', path.join(ws, 'notes.txt'));
		fs.symlinkSync(path.join(outside, 'abs.txt'), path.join(ws, 'abs.txt'));
		fs.symlinkSync(path.join(outside, 'new-folder'), path.join(ws, 'folder'));
		fs.symlinkSync('notes.txt', path.join(ws, 'chain.txt'));
		for (const p of ['notes.txt', 'abs.txt', 'folder', 'folder/x.txt', 'chain.txt', path.join(ws, 'notes.txt')]) {
			assert.match(reasonOf(await createInside([ws], p, 'EVIL')), /symbolic link/, p);
			assert.match(reasonOf(await updateInside([ws], p, () => 'EVIL', MB)), /symbolic link/, p);
		}
		assert.ok(!fs.existsSync(path.join(outside, 'notes.txt')) && !fs.existsSync(path.join(outside, 'new-folder')));
	});

	it('creates through a dangling link that stays inside at its target, and never over an existing name', async () => {
		fs.symlinkSync('src/target.txt', path.join(ws, 'inner.txt'));
		const created = await createInside([ws], 'inner.txt', 'via link');
		assert.equal(created.ok && created.path, path.join(ws, 'src', 'target.txt'));
		assert.equal(fs.lstatSync(path.join(ws, 'inner.txt')).isSymbolicLink(), true);
		const again = await createInside([ws], 'src/a.ts', 'x');
		assert.equal(!again.ok && again.code, 'EEXIST');
	});

	it('refuses a folder swapped for a link to the outside between the check and the read (the old check-then-read leaked)', async () => {
		fs.mkdirSync(path.join(ws, 'swap'));
		fs.writeFileSync(path.join(ws, 'swap', 'secret.txt'), 'inside text');
		const swap = () => {
			fs.renameSync(path.join(ws, 'swap'), path.join(ws, 'swap-was'));
			fs.symlinkSync(outside, path.join(ws, 'swap'));
		};
		const unswap = () => {
			fs.rmSync(path.join(ws, 'swap'));
			fs.renameSync(path.join(ws, 'swap-was'), path.join(ws, 'swap'));
		};
		const trigger = path.join(ws, 'swap', 'secret.txt');
		// The old sequence: check the path, then read it by name. The swap makes it read the secret.
		const checked = resolveInsideRoots([ws], 'swap/secret.txt', swappingFs(trigger, swap));
		assert.equal(checked.ok && fs.readFileSync(checked.path, 'utf8'), SECRET, 'control: the attack works on check-then-read');
		unswap();
		const read = await readInside([ws], 'swap/secret.txt', MB, { fsApi: swappingFs(trigger, swap) });
		assert.match(reasonOf(read), /changed after it was checked/);
		unswap();
		const updated = await updateInside([ws], 'swap/secret.txt', () => 'EVIL', MB, { fsApi: swappingFs(trigger, swap) });
		assert.match(reasonOf(updated), /changed after it was checked/);
		unswap();
		const listed = await listInside([ws], 'swap', { fsApi: swappingFs(path.join(ws, 'swap'), swap) });
		assert.equal(listed.ok, false, 'a folder swapped for a link is not listed');
	});

	it('refuses to create in a folder swapped for a link after the check', async () => {
		fs.mkdirSync(path.join(ws, 'swap'));
		const swap = () => {
			fs.renameSync(path.join(ws, 'swap'), path.join(ws, 'swap-was'));
			fs.symlinkSync(path.join(outside, 'dir'), path.join(ws, 'swap'));
		};
		const created = await createInside([ws], 'swap/new.txt', 'EVIL', { fsApi: swappingFs(path.join(ws, 'swap'), swap) });
		assert.equal(created.ok, false);
		const deep = await createInside([ws], 'swap2/a/b.txt', 'ok');
		assert.equal(deep.ok, true);
	});

	it('reads a named pipe as a refusal at once instead of hanging', async function () {
		this.timeout(5_000);
		execFileSync('mkfifo', [path.join(ws, 'pipe')]);
		const started = Date.now();
		assert.match(reasonOf(await readInside([ws], 'pipe', MB)), /not a regular file/);
		assert.match(reasonOf(await updateInside([ws], 'pipe', () => 'x', MB)), /not a regular file/);
		assert.ok(Date.now() - started < 1_000);
	});

	it('neither reads nor writes a file with a second hard link (it may be outside)', async () => {
		fs.linkSync(path.join(outside, 'secret.txt'), path.join(ws, 'hard.txt'));
		assert.match(reasonOf(await readInside([ws], 'hard.txt', MB)), /2 hard links/);
		assert.match(reasonOf(await updateInside([ws], 'hard.txt', () => 'EVIL', MB)), /2 hard links/);
		assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), SECRET);
	});

	it('answers folders, missing files, large files and odd paths with refusals', async () => {
		assert.match(reasonOf(await readInside([ws], 'src', MB)), /folder, not a file/);
		assert.match(reasonOf(await readInside([ws], 'missing.txt', MB)), /ENOENT/);
		fs.writeFileSync(path.join(ws, 'big.txt'), 'x'.repeat(2000));
		const big = await readInside([ws], 'big.txt', 1000);
		assert.equal(!big.ok && big.code, 'EFBIG');
		assert.match(reasonOf(await listInside([ws], 'src/a.ts')), /not a folder/);
		fs.symlinkSync('loop', path.join(ws, 'loop'));
		for (const p of ['loop', 'x'.repeat(300), 'src/a.ts/x', '', '\0']) {
			assert.equal((await readInside([ws], p, MB)).ok, false);
			assert.equal((await createInside([ws], p, 'x')).ok, false);
		}
	});

	// The general problem: whatever a hostile repository holds, nothing outside is read or written.
	it('for random trees of links, folders, files and hard links, nothing outside is read, listed or written', async function () {
		this.timeout(120_000);
		const names = ['a', 'b', '..c', 'd d'];
		const targets = [
			'../outside',
			'../outside/secret.txt',
			'../outside/missing.txt',
			'../outside/dir',
			'../outside/new',
			path.join(outside, 'secret.txt'),
			path.join(outside, 'new-abs'),
			'/',
			'..',
			'../..',
			'.',
			'a',
			'a/b',
			'b/../..',
			'a/../../outside/secret.txt',
			'missing',
			'missing/deeper',
			'../ws/a',
			'b',
			// Entries sit in ws/run-N/ or one folder below it.
			'../../outside',
			'../../outside/secret.txt',
			'../../../outside/dir',
			'../../outside/brand-new',
		];
		const entry = fc.record({
			dir: fc.constantFrom('', 'a/', 'b/'),
			name: fc.constantFrom(...names),
			kind: fc.constantFrom('dir', 'file', 'link', 'link', 'link', 'hardlink'),
			target: fc.constantFrom(...targets),
		});
		const segment = fc.constantFrom(...names, '..', '.', 'missing', 'secret.txt', 'outside');
		const op = fc.record({
			kind: fc.constantFrom('read', 'create', 'update', 'list'),
			path: fc.array(segment, { minLength: 1, maxLength: 4 }).map(parts => parts.join('/')),
		});
		await fc.assert(
			fc.asyncProperty(fc.array(entry, { maxLength: 10 }), fc.array(op, { minLength: 1, maxLength: 8 }), async (entries, ops) => {
				const run = fs.mkdtempSync(path.join(ws, 'run-'));
				fs.mkdirSync(path.join(run, 'a'));
				for (const e of entries) {
					const parent = path.resolve(run, e.dir);
					const at = path.join(parent, e.name);
					// The set-up itself must not write through the links it made.
					if (!fs.existsSync(parent) || fs.lstatSync(parent).isSymbolicLink()) continue;
					try {
						if (e.kind === 'dir') fs.mkdirSync(at);
						else if (e.kind === 'file') fs.writeFileSync(at, 'inside', { flag: 'wx' });
						else if (e.kind === 'link') fs.symlinkSync(e.target, at);
						else fs.linkSync(path.join(outside, 'secret.txt'), at);
					} catch {
						// A name already taken or a missing folder: leave the tree as it is.
					}
				}
				assert.deepEqual(snapshot(outside), before, `set-up changed the outside folder: ${JSON.stringify(entries)}`);
				for (const o of ops) {
					const r =
						o.kind === 'read'
							? await readInside([run], o.path, MB)
							: o.kind === 'create'
								? await createInside([run], o.path, 'written')
								: o.kind === 'update'
									? await updateInside([run], o.path, () => 'updated', MB)
									: await listInside([run], o.path);
					if (r.ok) assert.ok(isInside(run, r.path), `${o.kind} ${o.path} answered for ${r.path}`);
					if (r.ok && 'data' in r) assert.ok(!(r.data as Buffer).toString().includes(SECRET), `read ${o.path} leaked`);
					assert.deepEqual(snapshot(outside), before, `${o.kind} ${o.path} changed the outside folder`);
				}
			}),
			{ numRuns: 300 },
		);
	});
});
