import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { dropOlderRounds, droppedRoundsNote } from '../../../../src/common/shrinking/dropOlderRounds';
import { flattenRounds, newestSummaryIndex } from '../../../../src/common/conversation/flatten';

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

	it('drops what the half-context planner would summarize and keeps the earlier summary word for word', () => {
		const dropped = dropOlderRounds(conversation);
		assert.ok(dropped);
		assert.deepEqual(dropped.plan.summarizeRoundIds, ['c', 'd', 'e']);
		assert.ok(dropped.text.startsWith('EARLIER SUMMARY\n\n'), dropped.text);
		assert.ok(dropped.text.endsWith(droppedRoundsNote(3)));
		const flat = flattenRounds(dropped.conversation);
		assert.equal(flat[newestSummaryIndex(flat)].round.id, 'e');
		assert.equal(conversation.activeRounds[2].summary, undefined, 'the input is not changed');
	});

	it('without an earlier summary the note stands alone; nothing to drop gives undefined', () => {
		const fresh: Conversation = { turns: [], activeRounds: [round('x'), round('y')] };
		const dropped = dropOlderRounds(fresh);
		assert.equal(dropped?.text, droppedRoundsNote(1));
		assert.equal(dropOlderRounds({ turns: [], activeRounds: [round('only')] }), undefined);
	});
});
