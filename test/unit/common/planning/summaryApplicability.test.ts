import * as assert from 'node:assert/strict';
import { applySummary } from '../../helpers/conversations';
import { planSummarization } from '../../../../src/common/planning/planners';
import { summaryPlanApplicability } from '../../../../src/common/planning/summaryApplicability';
import { makeConversation, makeRound } from '../../helpers/conversations';

describe('summaryPlanApplicability: may a summary prepared in the background still be attached?', () => {
	it('yes, after more rounds were appended', () => {
		const before = makeConversation({ turns: [3], active: 4 });
		const plan = planSummarization(before, 'half-context');
		const later = { ...before, activeRounds: [...before.activeRounds, makeRound('a4'), makeRound('a5')] };
		assert.deepEqual(summaryPlanApplicability(later, plan), { ok: true });
	});

	it("yes, when the summary it follows is still the newest (another turn's block, not absorbed, or its own turn's, absorbed)", () => {
		const before = makeConversation({ turns: [3], active: 6, summaries: { t0r2: 'S0' } });
		const plan = planSummarization(before, 'legacy');
		assert.equal(plan.newestSummaryRoundId, 't0r2');
		assert.equal(plan.previousSummary, undefined, 'the block of turn 0 stays; the request in progress gets its own');
		assert.deepEqual(summaryPlanApplicability(before, plan), { ok: true });
		const sameTurn = makeConversation({ active: 9, summaries: { a2: 'S0' } });
		const next = planSummarization(sameTurn, 'half-context');
		assert.equal(next.previousSummary?.roundId, 'a2');
		assert.deepEqual(summaryPlanApplicability(sameTurn, next), { ok: true });
	});

	it('no, when another summary was attached since (it would drop or duplicate it)', () => {
		const before = makeConversation({ turns: [3], active: 6 });
		const plan = planSummarization(before, 'half-context');
		const summarizedLater = applySummary(before, 'a4', 'made in the foreground');
		assert.deepEqual(summaryPlanApplicability(summarizedLater, plan), { ok: false, reason: 'anchor-summarized' });
		const summarizedEarlier = applySummary(before, 't0r0', 'an older one');
		assert.deepEqual(summaryPlanApplicability(summarizedEarlier, plan), { ok: false, reason: 'summaries-changed' });
	});

	it('no, when the block it absorbs was edited since: a summary written from the old text would undo the edit', () => {
		const sameTurn = makeConversation({ active: 9, summaries: { a2: 'S0' } });
		const plan = planSummarization(sameTurn, 'half-context');
		assert.equal(plan.previousSummary?.text, 'S0');
		const edited = applySummary(sameTurn, 'a2', 'S0 as the user corrected it');
		assert.deepEqual(summaryPlanApplicability(edited, plan), { ok: false, reason: 'summaries-changed' });
	});

	it('no, when the anchor round is not in the conversation any more', () => {
		const plan = planSummarization(makeConversation({ active: 5 }), 'legacy');
		assert.deepEqual(summaryPlanApplicability(makeConversation({ turns: [2], active: 1 }), plan), { ok: false, reason: 'anchor-gone' });
	});
});
