// The diff a write's confirmation shows must be a true account of the change.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { lineDiff, type Diff } from '../../../../src/common/tools/textDiff';

/** Applies a diff's hunks to `before`: the text the diff says comes after. */
function applyDiff(before: string, diff: Diff): string {
	const old = before.split('\n');
	const out: string[] = [];
	let at = 0;
	for (const hunk of diff.hunks) {
		out.push(...old.slice(at, hunk[0].oldIndex));
		at = hunk[0].oldIndex;
		for (const line of hunk) {
			if (line.kind === '+') out.push(line.text);
			else {
				if (line.kind === ' ') out.push(old[at]);
				at++;
			}
		}
	}
	out.push(...old.slice(at));
	return out.join('\n');
}

describe('textDiff: the lines a write changes', () => {
	it('shows one changed line with its context', () => {
		const before = ['a', 'b', 'c', 'd', 'e', 'version=1', 'f', 'g', 'h', 'i'].join('\n');
		const diff = lineDiff(before, before.replace('version=1', 'version=2'));
		assert.equal(diff.removed, 1);
		assert.equal(diff.added, 1);
		assert.equal(diff.hunks.length, 1);
		assert.deepEqual(
			diff.hunks[0].map(l => `${l.kind}${l.text}`),
			[' c', ' d', ' e', '-version=1', '+version=2', ' f', ' g', ' h'],
		);
	});

	it('applying the diff to the old text gives the new text, for any texts and any context', () => {
		const line = fc.constantFrom('', 'a', 'b', 'c', '  x', '\tt', 'version=1');
		const text = fc.array(line, { maxLength: 30 }).map(l => l.join('\n'));
		fc.assert(
			fc.property(text, text, fc.integer({ min: 0, max: 4 }), (before, after, context) => {
				const diff = lineDiff(before, after, context);
				assert.equal(applyDiff(before, diff), after);
				if (before === after) assert.equal(diff.hunks.length, 0);
			}),
			{ numRuns: 3000 },
		);
	});

	it('large texts with one change stay small, and very different large texts still diff correctly', () => {
		const big = Array.from({ length: 50_000 }, (_, i) => `line ${i}`).join('\n');
		const diff = lineDiff(big, big.replace('line 25000\n', 'changed\n'));
		assert.equal(diff.removed + diff.added, 2);
		const other = Array.from({ length: 5_000 }, (_, i) => `other ${i}`).join('\n');
		const replaced = lineDiff(big.slice(0, 60_000), other);
		assert.equal(applyDiff(big.slice(0, 60_000), replaced), other);
	});
});
