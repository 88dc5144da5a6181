import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { cutNewestResults, MIN_KEPT_TOKENS } from '../../../../src/common/shrinking/cutNewestResults';
import { elisionMarker } from '../../../../src/common/shrinking/elideToolResults';

const count = (text: string) => text.length;
const call = (id: string, result: string | undefined) => ({ id, name: 'read', arguments: '{}', ...(result === undefined ? {} : { result }) });

function newest(...results: (string | undefined)[]): Conversation {
	const older: Round = { id: 'old', response: 'older', toolCalls: [call('o', 'o'.repeat(5_000))] };
	return { turns: [], activeRounds: [older, { id: 'new', response: 'newest', toolCalls: results.map((r, i) => call(`n${i}`, r)) }] };
}

describe('cutNewestResults: the newest round, cut instead of refused', () => {
	it('cuts the longest result first, only as much as needed, and leaves older rounds alone', () => {
		const cut = cutNewestResults(newest('a'.repeat(1_000), 'b'.repeat(4_000)), 1_500, count)!;
		assert.equal(cut.cutCalls, 1);
		assert.ok(cut.freedTokens >= 1_500, `freed ${cut.freedTokens}`);
		const [older, latest] = cut.conversation.activeRounds;
		assert.equal(older.toolCalls[0].result, 'o'.repeat(5_000));
		assert.equal(latest.toolCalls[0].result, 'a'.repeat(1_000), 'the shorter result is untouched');
		const b = latest.toolCalls[1].result!;
		assert.ok(b.startsWith('bbb') && b.endsWith('bbb') && b.length < 4_000 - 1_400, `head and tail kept, ${b.length} characters`);
		assert.deepEqual(
			latest.toolCalls.map(c => c.id),
			['n0', 'n1'],
			'every call keeps its id and a result',
		);
	});

	it('goes on to the next result when one cannot give enough, never below the floor', () => {
		const cut = cutNewestResults(newest('a'.repeat(2_000), 'b'.repeat(2_000)), 3_000, count)!;
		assert.equal(cut.cutCalls, 2);
		for (const c of cut.conversation.activeRounds[1].toolCalls) assert.ok(c.result!.length >= MIN_KEPT_TOKENS * 0.9, `${c.id}: ${c.result!.length}`);
	});

	it('gives up when nothing in the newest round can be cut: short results, placeholders, calls without a result', () => {
		assert.equal(cutNewestResults(newest('short', elisionMarker(call('x', 'y'.repeat(3_000)), 3_000), undefined), 100, count), undefined);
	});
});
