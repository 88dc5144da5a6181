import * as assert from 'node:assert/strict';
import { applySummary } from '../../../../src/common/summaries/applySummary';
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

	it('yes, when it absorbed the summary that is still the newest', () => {
		const before = makeConversation({ turns: [3], active: 6, summaries: { t0r2: 'S0' } });
		const plan = planSummarization(before, 'legacy');
		assert.equal(plan.previousSummary?.roundId, 't0r2');
		assert.deepEqual(summaryPlanApplicability(before, plan), { ok: true });
	});

	it('no, when another summary was attached since (it would drop or duplicate it)', () => {
		const before = makeConversation({ turns: [3], active: 6 });
		const plan = planSummarization(before, 'half-context');
		const summarizedLater = applySummary(before, 'a4', 'made in the foreground');
		assert.deepEqual(summaryPlanApplicability(summarizedLater, plan), { ok: false, reason: 'anchor-summarized' });
		const summarizedEarlier = applySummary(before, 't0r0', 'an older one');
		assert.deepEqual(summaryPlanApplicability(summarizedEarlier, plan), { ok: false, reason: 'summaries-changed' });
	});

	it('no, when the anchor round is not in the conversation any more', () => {
		const plan = planSummarization(makeConversation({ active: 5 }), 'legacy');
		assert.deepEqual(summaryPlanApplicability(makeConversation({ turns: [2], active: 1 }), plan), { ok: false, reason: 'anchor-gone' });
	});
});
