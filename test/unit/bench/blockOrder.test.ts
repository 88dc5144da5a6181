// Seed 004's probe in the replay (bench/replay/blockOrder.ts): a summary that was in one prompt is
// gone from the next only when condensed or absorbed. The bridge's provisional block (setAside.ts)
// is not a summary: its real summary may replace it at the same anchor, but it must never hide the
// real block it continues.
import * as assert from 'node:assert/strict';
import { Raw } from '@vscode/prompt-tsx';
import { blockOrderProbe } from '../../../bench/replay/blockOrder';
import type { Conversation } from '../../../src/common/conversation/conversation';
import { summaryBlocks } from '../../../src/common/conversation/summaryBlocks';
import { setAside } from '../../../src/common/fitting/setAside';
import { applySummaryBlocks } from '../../../src/common/summaries/applySummary';
import { currentRequestText } from '../../../src/prompts/currentRequestMessage';
import { summaryMessageText } from '../../../src/prompts/summaryMessage';
import { applySummary, makeConversation } from '../helpers/conversations';

const REQUEST = 'fix the reloader';

function text(role: Raw.ChatRole.User | Raw.ChatRole.System, value: string): Raw.ChatMessage {
	return { role, content: [{ type: Raw.ChatCompletionContentPartKind.Text, text: value }] } as Raw.ChatMessage;
}

/** The messages a prompt of the request in progress shows: the request, then its one block. */
function messages(conversation: Conversation): Raw.ChatMessage[] {
	return [
		text(Raw.ChatRole.User, currentRequestText(REQUEST, [])),
		...summaryBlocks(conversation).map(block => text(Raw.ChatRole.User, summaryMessageText(block.text, block.condensed))),
	];
}

describe('the replay benchmark block-order probe (seed 004)', () => {
	const base = applySummary(makeConversation({ active: 8 }), 'a2', 'SUMMARY of a0-a2');
	const plan = { summarizeRoundIds: ['a3', 'a4', 'a5'], previousSummary: { roundId: 'a2', text: 'SUMMARY of a0-a2' } };

	it('a provisional block replaced by its summary at the same anchor loses nothing', () => {
		const provisional = setAside(base, plan);
		const summarized = applySummaryBlocks(base, plan, ['SUMMARY of a0-a5, written from SUMMARY of a0-a2']);
		assert.equal(summaryBlocks(provisional)[0].roundId, summaryBlocks(summarized)[0].roundId, 'the same anchor');
		const probe = blockOrderProbe(true);
		for (const conversation of [base, provisional, summarized]) probe.recordRequest(conversation, REQUEST, messages(conversation));
		assert.deepEqual(probe.problems, []);
		assert.equal(probe.metrics().summariesLost, 0);
		assert.equal(probe.metrics().orderViolations, 0);
	});

	it('a real summary dropped while its rounds are set aside is lost; one hidden by the provisional block is out of place', () => {
		const probe = blockOrderProbe(true);
		probe.recordRequest(base, REQUEST, messages(base));
		// The set-aside made as if there were no summary before it: the summary of a0-a2 is gone.
		const dropped = setAside(makeConversation({ active: 8 }), { summarizeRoundIds: ['a0', 'a1', 'a2', 'a3'] });
		probe.recordRequest(dropped, REQUEST, messages(dropped));
		assert.equal(probe.metrics().summariesLost, 1);
		// The summary stays stored but the provisional block does not show it.
		const hiding = applySummaryBlocks(base, { summarizeRoundIds: ['a3', 'a4'] }, ['an index that forgot the summary']);
		const hidden = { ...hiding, activeRounds: hiding.activeRounds.map(r => (r.id === 'a4' ? { ...r, summaryProvisional: true } : r)) };
		probe.recordRequest(hidden, REQUEST, messages(hidden));
		assert.equal(probe.metrics().orderViolations, 1);
		assert.match(probe.problems.join('\n'), /hidden behind a provisional block/);
	});
});
