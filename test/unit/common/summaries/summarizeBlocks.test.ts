import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { planSummarization } from '../../../../src/common/planning/planners';
import { onlyPromptTooLarge, planPrefix, summarizeBlocks } from '../../../../src/common/summaries/summarizeBlocks';
import type { SummaryFlowResult } from '../../../../src/common/summaries/summarizationFlow';

const round = (id: string, summary?: string): Round => ({ id, response: id, toolCalls: [], ...(summary ? { summary } : {}) });
const rounds = (ids: string[]) => ids.map(id => round(id));
const ok = (summary: string): SummaryFlowResult => ({ summary, mode: 'full', attempts: [{ mode: 'full', outcome: 'ok' }] });
const tooLarge: SummaryFlowResult = {
	attempts: [
		{ mode: 'full', outcome: 'prompt-too-large' },
		{ mode: 'simple', outcome: 'prompt-too-large' },
	],
};

describe('planPrefix and summarizeBlocks: a summarizer that cannot take every planned round', () => {
	const conversation: Conversation = {
		turns: [{ user: 'u', rounds: [round('p0', 'OLD'), ...rounds(['p1', 'p2'])] }],
		activeRounds: rounds(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']),
	};

	it('planPrefix summarizes exactly the oldest rounds of the plan and keeps the rest verbatim, with the same absorbed block', () => {
		const plan = planSummarization(conversation, 'legacy');
		assert.deepEqual(plan.summarizeRoundIds, ['p1', 'p2', 'a0', 'a1', 'a2', 'a3', 'a4']);
		const narrow = planPrefix(conversation, plan, 3);
		assert.ok(narrow);
		assert.deepEqual(narrow.summarizeRoundIds, ['p1', 'p2', 'a0']);
		assert.deepEqual(narrow.keepRoundIds, ['a1', 'a2', 'a3', 'a4', 'a5']);
		assert.equal(narrow.anchorRoundId, 'a0');
		assert.equal(narrow.previousSummary?.text, 'OLD');
		assert.equal(narrow.mode, 'legacy');
		assert.equal(planPrefix(conversation, plan, 0), undefined);
		assert.equal(planPrefix(conversation, plan, 7), undefined);
	});

	it('one request per turn; a turn whose prompt does not fit is halved until it does, and the compaction stops there', async () => {
		const plan = planSummarization(conversation, 'legacy');
		const tried: string[][] = [];
		const made = await summarizeBlocks(conversation, plan, async (_c, request) => {
			tried.push([...request.summarizeRoundIds]);
			return request.summarizeRoundIds.length <= 2 ? ok(`S${tried.length}`) : tooLarge;
		});
		assert.deepEqual(tried, [
			['p1', 'p2'],
			['a0', 'a1', 'a2', 'a3', 'a4'],
			['a0', 'a1', 'a2'],
			['a0', 'a1'],
		]);
		assert.deepEqual(made.blocks, ['S1', 'S4']);
		assert.deepEqual(made.plan.summarizeRoundIds, ['p1', 'p2', 'a0', 'a1']);
		assert.equal(made.requests, 4);
		assert.equal(made.attempts.length, 1 + 2 + 2 + 1);
	});

	it('the first turn absorbs its block, later turns absorb nothing', async () => {
		const plan = planSummarization(conversation, 'legacy');
		const previous: (string | undefined)[] = [];
		await summarizeBlocks(conversation, plan, async (_c, request) => {
			previous.push(request.previousSummary?.text);
			return ok('S');
		});
		assert.deepEqual(previous, ['OLD', undefined]);
	});

	it('stops at one round, and does not narrow for other failures', async () => {
		const plan = planSummarization({ turns: [], activeRounds: rounds(['x0', 'x1', 'x2', 'x3', 'x4']) }, 'legacy');
		const sizes: number[] = [];
		const never = await summarizeBlocks({ turns: [], activeRounds: rounds(['x0', 'x1', 'x2', 'x3', 'x4']) }, plan, async (_c, request) => {
			sizes.push(request.summarizeRoundIds.length);
			return tooLarge;
		});
		assert.deepEqual(sizes, [4, 2, 1]);
		assert.equal(never.blocks, undefined);
		assert.equal(never.plan, plan);

		assert.equal(
			onlyPromptTooLarge([
				{ mode: 'full', outcome: 'prompt-too-large' },
				{ mode: 'simple', outcome: 'model-error' },
			]),
			false,
		);
		assert.equal(onlyPromptTooLarge([]), false);
		let calls = 0;
		await summarizeBlocks(conversation, planSummarization(conversation, 'legacy'), async () => {
			calls++;
			return { attempts: [{ mode: 'full' as const, outcome: 'model-error' as const }] };
		});
		assert.equal(calls, 1, 'the first turn failed: nothing more is asked');
	});
});
