import * as assert from 'node:assert/strict';
import type { FitEvent } from '../../../../src/common/fitting/fitPrompt';
import type { PreparedSummary } from '../../../../src/common/fitting/preparedSummary';
import { planHalfContext } from '../../../../src/common/planning/halfContextPlanner';
import { fitTelemetry, type FitTelemetryContext } from '../../../../src/common/stats/fitTelemetry';
import { makeConversation } from '../../helpers/conversations';

const plan = planHalfContext(makeConversation({ active: 8 }), { countTokens: text => text.length });
const prepared = (summary?: string): PreparedSummary => ({
	plan,
	attempts: summary
		? [{ mode: 'full', outcome: 'ok', summaryTokens: 42 }]
		: [
				{ mode: 'full', outcome: 'model-error' },
				{ mode: 'simple', outcome: 'empty' },
			],
	...(summary ? { blocks: [summary] } : {}),
	narrowed: false,
	plannedRoundCount: plan.summarizeRoundIds.length,
	requests: 1,
	durationMs: 10,
});
const ctx: FitTelemetryContext = { windowTokens: 16000, minRecentRounds: 2, autoSummarize: true, stoppedBefore: false };
const masked: FitEvent = {
	kind: 'masked',
	neededTokens: 17000,
	maskedCalls: 3,
	duplicateCalls: 0,
	freedTokens: 1200,
	keptRoundCount: 4,
	olderPartTokens: 5000,
};
const elided: FitEvent = { kind: 'elided', calls: 2, freedTokens: 800, neededTokens: 16500 };
const shortly = (events: ReturnType<typeof fitTelemetry>) =>
	events.map(e => (e.name === 'summarization' ? `S:${e.data.trigger}:${e.data.outcome}` : `F:${e.data.step}:${e.data.why}`));

describe('telemetry of the overflow pipeline', () => {
	it('one summarization event per summary made or failed, from the model or prepared in the background', () => {
		const events = fitTelemetry(
			{
				kind: 'fits',
				events: [
					{ kind: 'summarized', source: 'background', prepared: { ...prepared('P'), blocks: ['P'] } },
					{ kind: 'summarized', source: 'model', prepared: { ...prepared('M'), blocks: ['M'] } },
				],
			},
			ctx,
		);
		assert.deepEqual(shortly(events), ['S:background:summarized', 'S:overflow:summarized']);
		assert.equal(events[1].data.summaryTokens, 42);
		assert.equal(events[1].data.summarizedRounds, plan.stats.summarizedRoundCount);
	});

	it('each fallback step says why no summary was used', () => {
		const failed = fitTelemetry({ kind: 'fits', events: [masked, { kind: 'summary-failed', prepared: prepared() }, elided] }, ctx);
		assert.deepEqual(shortly(failed), ['F:mask-tool-results:cheap-first', 'S:overflow:failed', 'F:elide-tool-results:summary-failed']);
		assert.deepEqual(
			{ ...failed[2].data },
			{ step: 'elide-tool-results', why: 'summary-failed', items: 2, freedTokens: 800, promptTokens: 16500, windowTokens: 16000 },
		);

		const looped = fitTelemetry({ kind: 'fits', events: [{ kind: 'loop-breaker', why: 'two summaries', scope: 'request' }, elided] }, ctx);
		assert.deepEqual(shortly(looped), ['F:elide-tool-results:loop-breaker']);
		assert.deepEqual(shortly(fitTelemetry({ kind: 'fits', events: [elided] }, { ...ctx, stoppedBefore: true })), ['F:elide-tool-results:loop-breaker']);
		assert.deepEqual(shortly(fitTelemetry({ kind: 'fits', events: [elided] }, ctx)), ['F:elide-tool-results:nothing-to-summarize']);
	});

	it('with automatic summaries off every step says so, and a refusal is a fallback step too', () => {
		const events = fitTelemetry(
			{
				kind: 'refused',
				neededTokens: 20000,
				events: [
					{ kind: 'summaries-off' },
					masked,
					{ kind: 'mask-declined', reason: 'too large', olderPartTokens: 9000 },
					elided,
					{ kind: 'dropped', plan, texts: ['note'], neededTokens: 16200 },
					{ kind: 'ledger-off', neededTokens: 16100 },
				],
			},
			{ ...ctx, autoSummarize: false },
		);
		assert.deepEqual(shortly(events), [
			'F:mask-tool-results:auto-summarize-off',
			'F:elide-tool-results:auto-summarize-off',
			'F:drop-rounds:auto-summarize-off',
			'F:leave-out-ledger:auto-summarize-off',
			'F:refuse:auto-summarize-off',
		]);
		assert.equal(events[2].data.items, plan.summarizeRoundIds.length);
		assert.equal(events[4].data.promptTokens, 20000);
	});
});
