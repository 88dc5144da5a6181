// longhaul_readFile's line range: endLine -1 means the last line, not "lines 1--1".
import * as assert from 'node:assert/strict';
import { lineRange } from '../../../src/tools/lineRange';

describe('lineRange: which lines readFile answers', () => {
	it('reads a negative endLine or startLine from the end, and says so', () => {
		assert.deepEqual(lineRange(1, -1, 10), { ok: true, start: 1, end: 10, note: ' (endLine -1 is the last line)' });
		assert.deepEqual(lineRange(undefined, -3, 10), { ok: true, start: 1, end: 8, note: ' (endLine -3 counts from the end)' });
		assert.deepEqual(lineRange(-2, undefined, 10), { ok: true, start: 9, end: 10, note: ' (startLine -2 counts from the end)' });
		assert.deepEqual(lineRange(3, 0, 10), { ok: true, start: 3, end: 10, note: ' (endLine 0 is read as the last line)' });
	});

	it('keeps the plain cases and explains an empty or impossible range', () => {
		assert.deepEqual(lineRange(undefined, undefined, 5), { ok: true, start: 1, end: 5, note: '' });
		assert.deepEqual(lineRange('2', '4', 5), { ok: true, start: 2, end: 4, note: '' });
		assert.deepEqual(lineRange(2, 99, 5), { ok: true, start: 2, end: 5, note: '' });
		const backwards = lineRange(5, 2, 10);
		assert.equal(backwards.ok, false);
		assert.match(
			(backwards as { message: string }).message,
			/endLine 2 \(line 2\) comes before startLine 5 \(line 5\), so there is nothing to show.*-1 is the last line/,
		);
		assert.match((lineRange(1, -20, 10) as { message: string }).message, /comes before startLine/);
		assert.match((lineRange(12, undefined, 10) as { message: string }).message, /has 10 lines; line 12 does not exist/);
		for (const [s, e] of [
			[1, -1],
			[-5, -1],
			[0, 0],
			['x', 'y'],
			[NaN, Infinity],
		]) {
			const r = lineRange(s, e, 7);
			assert.ok(r.ok && r.start >= 1 && r.end >= r.start && r.end <= 7, `${s}..${e}: ${JSON.stringify(r)}`);
		}
	});
});
