import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { narrowPlan, onlyPromptTooLarge, summarizeNarrowing } from '../../../../src/common/planning/narrowPlan';
import { planSummarization } from '../../../../src/common/planning/planners';
import type { SummarizationPlan } from '../../../../src/common/planning/plan';

const round = (id: string, summary?: string): Round => ({ id, response: id, toolCalls: [], ...(summary ? { summary } : {}) });
const rounds = (ids: string[]) => ids.map(id => round(id));

describe('narrowPlan: a summarizer that cannot take every planned round', () => {
	const conversation: Conversation = {
		turns: [{ user: 'u', rounds: [round('p0', 'OLD'), ...rounds(['p1', 'p2'])] }],
		activeRounds: rounds(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']),
	};

	it('summarizes the oldest rounds of the plan and keeps the rest verbatim, with the same previous summary', () => {
		const plan = planSummarization(conversation, 'legacy');
		assert.deepEqual(plan.summarizeRoundIds, ['p1', 'p2', 'a0', 'a1', 'a2', 'a3', 'a4']);
		const narrow = narrowPlan(conversation, plan, 3);
		assert.ok(narrow);
		assert.deepEqual(narrow.summarizeRoundIds, ['p1', 'p2', 'a0']);
		assert.deepEqual(narrow.keepRoundIds, ['a1', 'a2', 'a3', 'a4', 'a5']);
		assert.equal(narrow.anchorRoundId, 'a0');
		assert.equal(narrow.previousSummary?.text, 'OLD');
		assert.equal(narrow.mode, 'legacy');
	});

	it('never anchors on the round where an interrupted turn stopped; undefined when nothing shorter exists', () => {
		const interrupted: Conversation = { turns: [{ user: 'u', rounds: rounds(['t0', 't1']), cancelled: true }], activeRounds: rounds(['a0', 'a1']) };
		const plan = planSummarization(interrupted, 'legacy');
		assert.equal(narrowPlan(interrupted, plan, 2)?.anchorRoundId, 't0', 't1 ended the cancelled turn');
		const single = planSummarization({ turns: [], activeRounds: rounds(['x', 'y']) }, 'legacy');
		assert.equal(narrowPlan({ turns: [], activeRounds: rounds(['x', 'y']) }, single, 1), undefined);
	});

	it('summarizeNarrowing halves until the summarizer prompt fits, and stops at one round', async () => {
		const plan = planSummarization(conversation, 'legacy');
		const tried: number[] = [];
		const fitsAt = 2;
		const { plan: used, result } = await summarizeNarrowing(conversation, plan, async (p: SummarizationPlan) => {
			tried.push(p.summarizeRoundIds.length);
			return { attempts: [{ mode: 'full' as const, outcome: p.summarizeRoundIds.length <= fitsAt ? ('ok' as const) : ('prompt-too-large' as const) }] };
		});
		assert.deepEqual(tried, [7, 4, 2]);
		assert.equal(used.summarizeRoundIds.length, 2);
		assert.equal(result.attempts[0].outcome, 'ok');

		const never: number[] = [];
		const last = await summarizeNarrowing(conversation, plan, async (p: SummarizationPlan) => {
			never.push(p.summarizeRoundIds.length);
			return { attempts: [{ mode: 'simple' as const, outcome: 'prompt-too-large' as const }] };
		});
		assert.deepEqual(never, [7, 4, 2, 1]);
		assert.equal(last.plan.summarizeRoundIds.length, 1);
	});

	it('does not narrow for other failures', async () => {
		assert.equal(
			onlyPromptTooLarge([
				{ mode: 'full', outcome: 'prompt-too-large' },
				{ mode: 'simple', outcome: 'model-error' },
			]),
			false,
		);
		assert.equal(onlyPromptTooLarge([]), false);
		const plan = planSummarization(conversation, 'legacy');
		let calls = 0;
		await summarizeNarrowing(conversation, plan, async () => {
			calls++;
			return { attempts: [{ mode: 'full' as const, outcome: 'model-error' as const }] };
		});
		assert.equal(calls, 1);
	});
});
