// longhaul_editFile changes only the bytes it was asked to change: files that are not UTF-8 text
// are refused untouched, and every byte around an edit of a UTF-8 file stays as it was. Real files,
// byte-level assertions.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { applyPlan, EditInput, EditPlan, planEdit, ShownPlans } from '../../../src/tools/editPlan';
import { createInside, updateInside } from '../../../src/tools/safeFs';

const LATIN1 = Buffer.from('caf\xe9 na\xefve\nversion=1', 'latin1');
const PNG_LIKE = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from('IHDRversion=1\xff\xfe', 'latin1')]);

function reasonOf(r: object): string {
	assert.ok('ok' in r && r.ok === false, `expected a refusal, got ${JSON.stringify(r).slice(0, 200)}`);
	return (r as unknown as { reason: string }).reason;
}

describe('editPlan: editFile never changes bytes it was not asked to change', () => {
	let ws: string;
	const file = (name: string) => path.join(ws, name);
	/** Plans and writes one call, as the tool does after the confirmation. */
	async function edit(input: EditInput): Promise<string> {
		const plan = await planEdit([ws], input);
		if ('ok' in plan) return `refused: ${plan.reason}`;
		const written = await applyPlan([ws], plan, input);
		return written.ok ? 'written' : `refused: ${written.reason}`;
	}

	beforeEach(() => {
		ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-edit-')));
		fs.mkdirSync(path.join(ws, 'src'));
	});
	afterEach(() => fs.rmSync(ws, { recursive: true, force: true }));

	it('refuses to edit or overwrite a Latin-1 file, with a clear message, and leaves every byte as it was', async () => {
		fs.writeFileSync(file('legacy.txt'), LATIN1);
		const edited = await edit({ path: 'legacy.txt', oldText: 'version=1', newText: 'version=2' });
		assert.match(
			edited,
			/^refused: The file "legacy.txt" is not valid UTF-8 \(byte 0xE9 at offset 3; Latin-1 or another encoding\?\)\. Longhaul edits only UTF-8 text files.*nothing was written/,
		);
		assert.match(await edit({ path: 'legacy.txt', newText: 'version=2', overwrite: true }), /^refused: .*not valid UTF-8/);
		assert.deepEqual(fs.readFileSync(file('legacy.txt')), LATIN1);
		// The lowest layer refuses too, whoever calls it.
		assert.match(reasonOf(await updateInside([ws], 'legacy.txt', t => t.replace('version=1', 'version=2'), 1 << 20)), /not valid UTF-8/);
		assert.deepEqual(fs.readFileSync(file('legacy.txt')), LATIN1);
	});

	it('refuses a binary (PNG-like) file and leaves it untouched', async () => {
		fs.writeFileSync(file('image.png'), PNG_LIKE);
		assert.match(
			await edit({ path: 'image.png', oldText: 'IHDR', newText: 'XXXX' }),
			/^refused: The file "image.png" holds a NUL byte at offset 8, so it is binary/,
		);
		assert.match(await edit({ path: 'image.png', newText: 'text', overwrite: true }), /NUL byte/);
		assert.deepEqual(fs.readFileSync(file('image.png')), PNG_LIKE);
	});

	it('keeps a byte-order mark, CRLF line ends, decomposed accents and emoji around an edit byte for byte', async () => {
		const before = Buffer.from('\uFEFFcafe\u0301 😀\r\nversion=1\r\nnaïve\r\n', 'utf8');
		fs.writeFileSync(file('utf8.txt'), before);
		assert.equal(await edit({ path: 'utf8.txt', oldText: 'version=1', newText: 'version=2' }), 'written');
		const at = before.indexOf('version=1');
		assert.deepEqual(fs.readFileSync(file('utf8.txt')), Buffer.concat([before.subarray(0, at), Buffer.from('version=2'), before.subarray(at + 9)]));
	});

	it('for any UTF-8 text, the bytes before and after the replaced passage are unchanged', async () => {
		const text = fc.string({ unit: 'grapheme', maxLength: 60 }).filter(s => !s.includes('\0') && !s.includes('MARK'));
		await fc.assert(
			fc.asyncProperty(
				text,
				text,
				fc.string({ maxLength: 10 }).filter(s => !s.includes('\0')),
				async (head, tail, replacement) => {
					const before = Buffer.from(`${head}MARK${tail}`, 'utf8');
					fs.writeFileSync(file('any.txt'), before);
					assert.equal(await edit({ path: 'any.txt', oldText: 'MARK', newText: replacement }), 'written');
					assert.deepEqual(
						fs.readFileSync(file('any.txt')),
						Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from(replacement, 'utf8'), Buffer.from(tail, 'utf8')]),
					);
				},
			),
			{ numRuns: 100 },
		);
	});

	it('refuses a new text it cannot write exactly (a lone surrogate, a NUL)', async () => {
		assert.match(await edit({ path: 'new.txt', newText: 'a\uD800' }), /^refused: newText holds a lone surrogate/);
		assert.match(await edit({ path: 'new.txt', newText: 'a\0' }), /^refused: newText holds a NUL character/);
		assert.ok(!fs.existsSync(file('new.txt')));
	});

	it('refuses a path that ends with / (a folder) instead of creating a file in its place', async () => {
		assert.match(
			await edit({ path: 'src/new/', newText: 'x' }),
			/^refused: The path "src\/new\/" ends with \/, so it names a folder; Longhaul writes files only/,
		);
		assert.match(reasonOf(await createInside([ws], 'src/new/', 'x')), /names a folder/);
		assert.ok(!fs.existsSync(file('src/new')), 'no file src/new');
		assert.equal(await edit({ path: 'src/new/index.ts', newText: 'x' }), 'written');
		assert.ok(fs.statSync(file('src/new')).isDirectory());
	});

	it('does not write over a change made after the plan, and refuses before asking what it would refuse anyway', async () => {
		fs.writeFileSync(file('a.txt'), 'one\ntwo\n');
		const plan = (await planEdit([ws], { path: 'a.txt', oldText: 'two', newText: 'TWO' })) as EditPlan;
		assert.equal(plan.kind, 'edit');
		assert.equal(plan.line, 2);
		fs.writeFileSync(file('a.txt'), 'one\ntwo\nthree\n');
		assert.match(
			reasonOf(await applyPlan([ws], plan, { path: 'a.txt', oldText: 'two', newText: 'TWO' })),
			/changed meanwhile: it no longer holds the text its confirmation was made from/,
		);
		assert.equal(fs.readFileSync(file('a.txt'), 'utf8'), 'one\ntwo\nthree\n');
		assert.match(await edit({ path: 'a.txt', oldText: 'o', newText: 'x' }), /occurs 2 times/);
		assert.match(await edit({ path: 'a.txt', newText: 'x' }), /already exists; give oldText/);
		assert.match(await edit({ path: 'missing.txt', oldText: 'a', newText: 'b' }), /does not exist; leave oldText out/);
	});

	describe('no lost update: the write goes by what the confirmation showed', () => {
		/** The tool's two steps: the confirmation's plan is remembered, the write takes it. */
		async function confirmThenWrite(input: EditInput, meanwhile: () => void): Promise<string> {
			const shown = new ShownPlans();
			const plan = await planEdit([ws], input);
			assert.ok(!('ok' in plan));
			shown.remember(input, plan);
			meanwhile();
			const planned = shown.take(input) ?? (await planEdit([ws], input));
			if ('ok' in planned) return `refused: ${planned.reason}`;
			const written = await applyPlan([ws], planned, input);
			return written.ok ? 'written' : `refused: ${written.reason}`;
		}

		it('an overwrite while the user saved the file meanwhile writes nothing and says the file changed', async () => {
			fs.writeFileSync(file('notes.md'), 'draft\n');
			const result = await confirmThenWrite({ path: 'notes.md', newText: 'generated\n', overwrite: true }, () =>
				fs.writeFileSync(file('notes.md'), 'draft\nthe user saved this paragraph\n'),
			);
			assert.match(result, /^refused: "notes.md" changed meanwhile/);
			assert.equal(fs.readFileSync(file('notes.md'), 'utf8'), 'draft\nthe user saved this paragraph\n');
		});

		it('an edit whose oldText is still unique after the user changed another line writes nothing either', async () => {
			fs.writeFileSync(file('a.py'), 'x = 1\ny = 2\n');
			const result = await confirmThenWrite({ path: 'a.py', oldText: 'y = 2', newText: 'y = 3' }, () => fs.writeFileSync(file('a.py'), 'x = 100\ny = 2\n'));
			assert.match(result, /changed meanwhile/);
			assert.equal(fs.readFileSync(file('a.py'), 'utf8'), 'x = 100\ny = 2\n');
		});

		it('control: with no change meanwhile the shown plan is written, once', async () => {
			fs.writeFileSync(file('a.py'), 'x = 1\n');
			assert.equal(await confirmThenWrite({ path: 'a.py', oldText: 'x = 1', newText: 'x = 2' }, () => undefined), 'written');
			assert.equal(fs.readFileSync(file('a.py'), 'utf8'), 'x = 2\n');
		});
	});

	it('a config file beside a HEAD (a bare repository) is gated like .git/config', async () => {
		fs.mkdirSync(file('evil'));
		fs.writeFileSync(file('evil/HEAD'), 'ref: refs/heads/main\n');
		const plan = (await planEdit([ws], { path: 'evil/config', newText: '[core]\n\tfsmonitor = touch pwned\n' })) as EditPlan;
		assert.match(plan.codeConfig?.rule ?? '', /config and HEAD/);
		const plain = (await planEdit([ws], { path: 'src/config', newText: 'x' })) as EditPlan;
		assert.equal(plain.codeConfig, undefined);
	});

	it('marks a file that configures code that runs, by its real path', async () => {
		fs.mkdirSync(file('.git'));
		fs.writeFileSync(file('.git/config'), '[core]\n\tbare = false\n');
		fs.symlinkSync('.git', file('gitdir'));
		for (const p of ['.git/config', 'gitdir/config']) {
			const plan = (await planEdit([ws], { path: p, oldText: 'bare = false', newText: 'fsmonitor = "touch PWNED"' })) as EditPlan;
			assert.equal(plan.codeConfig?.rule, '.git/', p);
		}
		const plain = (await planEdit([ws], { path: 'src/x.ts', newText: 'x' })) as EditPlan;
		assert.equal(plain.codeConfig, undefined);
	});
});
