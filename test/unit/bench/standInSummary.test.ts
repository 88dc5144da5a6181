// The benchmark's stand-in summarizer (bench/replay/standInSummary.ts): what it writes and how
// long. Pure functions, so they are tested here rather than with the replays in test/bench/.
import * as assert from 'node:assert/strict';
import { standInCondense, standInLength, standInSummary, statedTarget } from '../../../bench/replay/standInSummary';
import { TiktokenTokenizer } from '../../../src/common/tokens/tokenizer';

describe('the replay benchmark stand-in summarizer', () => {
	it('the stand-in summary absorbs the previous one and is as long as asked, whatever the cap', () => {
		const tokenizer = new TiktokenTokenizer();
		const entries = [
			{ kind: 'user' as const, text: 'Fix it\nmore' },
			{
				kind: 'round' as const,
				interrupted: false,
				round: { id: 'a', response: 'First line\nsecond', toolCalls: [{ id: 'c', name: 'bash', arguments: '{"command":"ls"}', result: 'x' }] },
			},
		];
		const plain = 'OLD SUMMARY\nuser: Fix it\n- First line\n  bash: {"command":"ls"}';
		const short = standInSummary(entries, 'OLD SUMMARY', tokenizer.countTokens(plain), tokenizer);
		assert.equal(short, plain);
		// Asked for more than there is to say: it pads with recap lines up to the length.
		const padded = standInSummary(entries, 'OLD SUMMARY', 300, tokenizer);
		assert.ok(Math.abs(tokenizer.countTokens(padded) - 300) <= 12, `padded to about 300 tokens, got ${tokenizer.countTokens(padded)}`);
		assert.ok(padded.startsWith('OLD SUMMARY\nuser: Fix it\n- First line\n  second\n  bash: {"command":"ls"}\n    > x\nrecap: '), padded.slice(0, 200));
		// Longer material is cut to the length, the newest part kept.
		const long = standInSummary(entries, 'word '.repeat(5000), 300, tokenizer);
		assert.ok(Math.abs(tokenizer.countTokens(long) - 300) <= 12);
		assert.match(long, /tokens left out/);
		assert.match(long, /bash: \{"command":"ls"\}$/);
		// A condense request: the length asked, never longer than the summary was.
		assert.ok(Math.abs(tokenizer.countTokens(standInCondense(long, 100, tokenizer)) - 100) <= 6);
		assert.equal(standInCondense(short, 1000, tokenizer), short);
	});

	it('the stand-in length follows the stated target within a quarter, and is about 3,500 tokens when none is stated', () => {
		assert.equal(statedTarget('... the summary must stay under 2241 tokens, about 1550 words ...'), 2241);
		assert.equal(statedTarget('must stay under 12,500 tokens'), 12500);
		assert.equal(statedTarget('write a detailed summary'), undefined);
		const seeds = Array.from({ length: 400 }, (_, i) => `transcript ${i}`);
		const asked = seeds.map(seed => standInLength(2000, seed) / 2000);
		assert.ok(Math.min(...asked) >= 0.75 && Math.max(...asked) <= 1.25);
		assert.ok(asked.filter(f => f > 1).length > 150, 'about half the summaries overshoot the target');
		assert.ok(Math.max(...asked) > 1.2 && Math.min(...asked) < 0.8, 'the whole spread is used');
		const unasked = seeds.map(seed => standInLength(undefined, seed));
		const mean = unasked.reduce((a, b) => a + b, 0) / unasked.length;
		assert.ok(Math.abs(mean - 3500) < 150, `about 3,500 tokens on average, got ${mean}`);
		assert.equal(standInLength(2000, 'same'), standInLength(2000, 'same'), 'deterministic');
	});
});
