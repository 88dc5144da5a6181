import * as assert from 'node:assert/strict';
import { notASummary, untaggedMinimum } from '../../../../src/common/summaries/summaryAcceptance';
import { summaryLength } from '../../../../src/common/summaries/summaryLength';

describe('summaryAcceptance: a reply is a summary only if it reads as one', () => {
	it('asks an untagged reply for a tenth of the smaller of the asked length and the prompt', () => {
		assert.equal(untaggedMinimum(20_000, 2000), Math.ceil(summaryLength(2000).targetTokens / 10));
		assert.equal(untaggedMinimum(300, 2000), 30);
		assert.equal(untaggedMinimum(0, 2000), 1);
	});

	it('rejects the demo echo (26 tokens, no tags, replacing 56 rounds at 16k)', () => {
		const reason = notASummary({ kind: 'summary', text: 'x', tagged: false }, 26, 9000, 2200);
		assert.match(reason!, /26 tokens without <summary> tags/);
	});

	it('accepts a tagged reply whatever its length, and rejects an echo whatever its length', () => {
		assert.equal(notASummary({ kind: 'summary', text: 'Read a.py.', tagged: true }, 4, 9000, 2200), undefined);
		assert.match(notASummary({ kind: 'echo', echoed: 'the tag <previous-summary>' }, 5000, 9000, 2200)!, /repeats the prompt/);
	});

	it('accepts an untagged reply at the minimum and rejects one token under it', () => {
		const min = untaggedMinimum(9000, 2200);
		assert.equal(notASummary({ kind: 'summary', text: 'x', tagged: false }, min, 9000, 2200), undefined);
		assert.ok(notASummary({ kind: 'summary', text: 'x', tagged: false }, min - 1, 9000, 2200));
	});
});
