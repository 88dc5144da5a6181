import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { dropOlderRounds, droppedRoundsNote } from '../../../../src/common/shrinking/dropOlderRounds';
import { flattenRounds, newestSummaryIndex } from '../../../../src/common/conversation/flatten';
import { summaryBlocks } from '../../../../src/common/conversation/summaryBlocks';

const round = (id: string, summary?: string): Round => ({
	id,
	response: `response ${id}`,
	toolCalls: [{ id: `c-${id}`, name: 'read', arguments: '{}', result: `result ${id}` }],
	...(summary ? { summary } : {}),
});

describe('dropOlderRounds: truncation without a model', () => {
	const conversation: Conversation = {
		turns: [{ user: 'first request', rounds: [round('a'), round('b', 'EARLIER SUMMARY'), round('c')] }],
		activeRounds: [round('d'), round('e'), round('f'), round('g'), round('h')],
	};

	it('drops what the half-context planner would summarize, one note per turn; the block it continues is kept word for word', () => {
		const dropped = dropOlderRounds(conversation);
		assert.ok(dropped);
		assert.deepEqual(dropped.plan.summarizeRoundIds, ['c', 'd', 'e']);
		assert.deepEqual(dropped.texts, [`EARLIER SUMMARY\n\n${droppedRoundsNote(1)}`, droppedRoundsNote(2)]);
		const flat = flattenRounds(dropped.conversation);
		assert.equal(flat[newestSummaryIndex(flat)].round.id, 'e');
		assert.deepEqual(
			summaryBlocks(dropped.conversation).map(b => [b.turnIndex, b.roundIds.join(','), b.text]),
			[
				[0, 'a,b,c', dropped.texts[0]],
				[1, 'd,e', dropped.texts[1]],
			],
		);
		assert.equal(conversation.activeRounds[2].summary, undefined, 'the input is not changed');
	});

	it('without an earlier block the note stands alone; nothing to drop gives undefined', () => {
		const fresh: Conversation = { turns: [], activeRounds: [round('x'), round('y')] };
		const dropped = dropOlderRounds(fresh);
		assert.deepEqual(dropped?.texts, [droppedRoundsNote(1)]);
		assert.equal(dropOlderRounds({ turns: [], activeRounds: [round('only')] }), undefined);
	});
});
