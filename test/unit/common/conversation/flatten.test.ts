import * as assert from 'node:assert/strict';
import type { Round, Turn } from '../../../../src/common/conversation/conversation';
import { flattenRounds, newestSummaryIndex, unsummarizedRounds } from '../../../../src/common/conversation/flatten';
import { allRoundIds, makeConversation, makeRound } from '../../helpers/conversations';

describe('flattening', () => {
	it('lists past turns oldest first, then the active rounds, in round order', () => {
		const c = makeConversation({ turns: [2, 0, 3], active: 2 });
		assert.deepEqual(allRoundIds(c), ['t0r0', 't0r1', 't2r0', 't2r1', 't2r2', 'a0', 'a1']);
	});

	it('records where each round came from (turn and round index, or active index)', () => {
		const flat = flattenRounds(makeConversation({ turns: [1, 2], active: 1 }));
		assert.deepEqual(
			flat.map(f => [f.source, f.turnIndex, f.roundIndex]),
			[
				['history', 0, 0],
				['history', 1, 0],
				['history', 1, 1],
				['active', -1, 0],
			],
		);
		assert.equal(flat[2].turn?.user, 'request 1');
		assert.equal(flat[3].turn, undefined);
	});

	it('copies nothing: each entry references the original round and turn', () => {
		const c = makeConversation({ turns: [2], active: 1 });
		const flat = flattenRounds(c);
		assert.equal(flat[1].round, c.turns[0].rounds[1]);
		assert.equal(flat[1].turn, c.turns[0]);
		assert.equal(flat[2].round, c.activeRounds[0]);
	});

	it("reads each turn's rounds exactly once (rounds may be a computed getter)", () => {
		let reads = 0;
		const rounds: Round[] = [makeRound('x0'), makeRound('x1'), makeRound('x2')];
		const turn = {
			user: 'u',
			get rounds() {
				reads++;
				return rounds;
			},
		} as Turn;
		flattenRounds({ turns: [turn, turn], activeRounds: [] });
		assert.equal(reads, 2);
	});

	it('handles empty history and empty active rounds', () => {
		assert.deepEqual(flattenRounds({ turns: [], activeRounds: [] }), []);
		assert.deepEqual(allRoundIds(makeConversation({ active: 2 })), ['a0', 'a1']);
		assert.deepEqual(allRoundIds(makeConversation({ turns: [2] })), ['t0r0', 't0r1']);
	});

	it('the unsummarized rounds are those after the newest round carrying a summary', () => {
		const c = makeConversation({ turns: [3, 2], active: 2, summaries: { t0r1: 'S1', t1r0: 'S2' } });
		const flat = flattenRounds(c);
		assert.equal(newestSummaryIndex(flat), 3);
		assert.deepEqual(
			unsummarizedRounds(flat).map(f => f.round.id),
			['t1r1', 'a0', 'a1'],
		);
	});

	it('without any summary every round is unsummarized; with a summary on the last round none is', () => {
		const none = flattenRounds(makeConversation({ turns: [2], active: 1 }));
		assert.equal(newestSummaryIndex(none), -1);
		assert.equal(unsummarizedRounds(none).length, 3);
		const all = flattenRounds(makeConversation({ turns: [2], active: 1, summaries: { a0: 'S' } }));
		assert.equal(unsummarizedRounds(all).length, 0);
	});
});
