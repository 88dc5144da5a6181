// Issue 17: longhaul_searchText reads only what longhaul_readFile may read, and no pattern can block
// the extension host: RE2 matching in a worker thread with a time limit and a cancel. Real files,
// links, fifos and worker threads.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileQuery, SearchRequest, searchInWorker } from '../../../src/tools/textSearch';
import { maxLag } from '../helpers/eventLoopLag';

const SECRET = 'OUTSIDE-SECRET';

describe('textSearch: guarded files, linear-time matching off the main thread', () => {
	let base: string;
	let ws: string;
	let outside: string;
	const request = (files: string[], query: string, isRegexp = false): SearchRequest => ({
		roots: [ws],
		files: files.map(f => path.join(ws, f)),
		query,
		isRegexp,
		maxHits: 100,
		maxFileBytes: 2_000_000,
	});

	before(() => {
		base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-search-')));
		ws = path.join(base, 'ws');
		outside = path.join(base, 'outside');
		fs.mkdirSync(ws);
		fs.mkdirSync(outside);
		fs.writeFileSync(path.join(outside, 'secret.txt'), `${SECRET}\n`);
		fs.writeFileSync(path.join(ws, 'inside.txt'), 'first line\nthe SECRET word inside\n');
		fs.symlinkSync(outside, path.join(ws, 'link-dir'));
		fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link-file.txt'));
		fs.linkSync(path.join(outside, 'secret.txt'), path.join(ws, 'hard.txt'));
		execFileSync('mkfifo', [path.join(ws, 'pipe')]);
		fs.writeFileSync(path.join(ws, 'evil.txt'), `${'a'.repeat(28)}!\n${'a'.repeat(5000)}!\n`);
		let xy = '';
		for (let i = 0; i < 1_000_000; i++) xy += i % 3 === 0 ? 'y' : 'x';
		fs.writeFileSync(path.join(ws, 'big.txt'), `${xy}z\n`);
	});
	after(() => fs.rmSync(base, { recursive: true, force: true }));

	it('finds text inside and skips links that lead outside, hard links and named pipes, without hanging', async function () {
		this.timeout(10_000);
		const result = await searchInWorker(request(['inside.txt', 'link-dir/secret.txt', 'link-file.txt', 'hard.txt', 'pipe'], 'secret'), { timeLimitMs: 5_000 });
		assert.deepEqual(
			result.hits.map(h => [path.basename(h.file), h.line]),
			[['inside.txt', 2]],
		);
		assert.equal(result.refused, 4);
		assert.ok(!JSON.stringify(result).includes(SECRET));
	});

	it("matches (a+)+$ on 28 and 5,000 a's at once, without blocking the event loop", async function () {
		this.timeout(10_000);
		const started = Date.now();
		const { result, lagMs } = await maxLag(() => searchInWorker(request(['evil.txt'], '(a+)+$', true), { timeLimitMs: 5_000 }));
		assert.equal(result.stopped, undefined);
		assert.equal(result.hits.length, 0);
		assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
		assert.ok(lagMs < 500, `the event loop was blocked ${lagMs} ms`);
		const found = await searchInWorker(request(['evil.txt'], '^(a+)+!$', true), { timeLimitMs: 5_000 });
		assert.equal(found.hits.length, 2);
	});

	it('stops a search that runs over its time limit, and keeps the event loop free meanwhile', async function () {
		this.timeout(20_000);
		// Linear for RE2, but a large program over a megabyte: a minute of work.
		const heavy = request(['inside.txt', 'big.txt'], '(?:x|y|xy|yx){1,999}z|first', true);
		const started = Date.now();
		const { result, lagMs } = await maxLag(() => searchInWorker(heavy, { timeLimitMs: 2_500 }));
		assert.equal(result.stopped, 'time');
		assert.ok(Date.now() - started < 3_500, `took ${Date.now() - started} ms`);
		assert.ok(lagMs < 500, `the event loop was blocked ${lagMs} ms`);
		assert.deepEqual(
			result.hits.map(h => h.line),
			[1],
			'hits found before the limit are kept',
		);
	});

	it('a cancel ends the search at once', async function () {
		this.timeout(20_000);
		const cancel = new AbortController();
		setTimeout(() => cancel.abort(), 300);
		const started = Date.now();
		const result = await searchInWorker(request(['big.txt'], '(?:x|y|xy|yx){1,999}z', true), { timeLimitMs: 60_000, signal: cancel.signal });
		assert.equal(result.stopped, 'cancel');
		assert.ok(Date.now() - started < 1_000, `took ${Date.now() - started} ms`);
	});

	it('counts and names the files it did not search: over the size limit, or binary (a NUL byte)', async function () {
		this.timeout(10_000);
		fs.writeFileSync(path.join(ws, 'huge.log'), `${'padding line\n'.repeat(200_000)}the needle\n`);
		fs.writeFileSync(path.join(ws, 'blob.bin'), Buffer.concat([Buffer.from('the needle'), Buffer.from([0, 1, 2])]));
		const result = await searchInWorker(request(['inside.txt', 'huge.log', 'blob.bin'], 'needle'), { timeLimitMs: 5_000 });
		assert.equal(result.hits.length, 0);
		assert.equal(result.tooLarge, 1);
		assert.equal(result.binary, 1);
		assert.equal(result.searched, 1);
		assert.deepEqual(result.skippedNames, { tooLarge: [path.join(ws, 'huge.log')], binary: [path.join(ws, 'blob.bin')] });
	});

	it('explains patterns RE2 cannot run, and searches literals as literals', () => {
		const lookahead = compileQuery('a(?=b)', true);
		assert.equal(lookahead.ok, false);
		assert.match((lookahead as { reason: string }).reason, /RE2.*no lookahead/);
		const literal = compileQuery('(a+)+$', false);
		assert.ok(literal.ok && literal.test('x (A+)+$ y') && !literal.test('aaa'));
	});
});
