// The one count of the overflow pipeline's steps, shared by the agent and the replay benchmark.
import * as assert from 'node:assert/strict';
import type { FitEvent } from '../../../../src/common/fitting/fitPrompt';
import { newFitTally, tallyFit } from '../../../../src/common/fitting/fitTally';

function summarized(source: 'model' | 'background', blocks: number, kept: number, moved: boolean, condensePasses = 0): FitEvent {
	const attempts = [
		{ mode: 'full', outcome: condensePasses ? 'summary-too-large' : 'ok', promptTokens: 100 },
		...Array.from({ length: condensePasses }, () => ({ mode: 'full', pass: 'condense', outcome: 'ok', promptTokens: 50 })),
	];
	return {
		kind: 'summarized',
		source,
		prepared: {
			plan: { summarizeRoundIds: ['a', 'b'], stats: { tokens: { kept, summarized: 500, previousSummary: 0 }, tokenAware: { moved } } },
			attempts,
			blocks: Array.from({ length: blocks }, (_, i) => `block ${i}`),
			narrowed: false,
			plannedRoundCount: 2,
			requests: blocks,
			durationMs: 1,
		},
	} as unknown as FitEvent;
}

describe('fitTally: what the overflow pipeline did, counted once for agent and benchmark', () => {
	it('counts summaries by source, with their blocks, split and kept tokens', () => {
		const tally = newFitTally();
		tallyFit(tally, [summarized('model', 2, 300, true, 1), summarized('background', 1, 200, false)]);
		assert.equal(tally.summarizations, 2);
		assert.equal(tally.modelSummarizations, 1);
		assert.equal(tally.multiTurnSummarizations, 1);
		assert.equal(tally.splitMovedSummarizations, 1);
		assert.deepEqual(tally.keptTokens, [300, 200]);
		assert.equal(tally.condensePasses, 1);
		assert.equal(tally.truncations, 0);
	});

	it('counts condensed blocks, those prepared ahead and those the model shortened (not cut to their first lines)', () => {
		const tally = newFitTally();
		const block = (by: 'model' | 'first-lines') => ({ turnIndex: 0, roundId: 'r', fromTokens: 100, toTokens: 20, by });
		tallyFit(tally, [{ kind: 'condensed', blocks: [block('model'), block('first-lines'), block('model')], ahead: 1 }]);
		assert.equal(tally.condensedBlocks, 3);
		assert.equal(tally.condensedAhead, 1);
		assert.equal(tally.condensedByModel, 2);
	});

	it('counts masking, elision, dropped rounds and request-wide loop breaks, and one truncation per fit', () => {
		const tally = newFitTally();
		const events = [
			{ kind: 'masked', maskedCalls: 3, duplicateCalls: 1, freedTokens: 900, keptRoundCount: 2, olderPartTokens: 10, neededTokens: 1 },
			{ kind: 'mask-declined', reason: 'x', olderPartTokens: 5 },
			{ kind: 'loop-breaker', why: 'w', scope: 'render' },
			{ kind: 'loop-breaker', why: 'w', scope: 'request' },
			{ kind: 'elided', calls: 4, freedTokens: 100, neededTokens: 1 },
			{ kind: 'dropped', plan: { summarizeRoundIds: ['x', 'y', 'z'] }, texts: [], neededTokens: 1 },
		] as unknown as FitEvent[];
		tallyFit(tally, events);
		tallyFit(tally, [events[4]]);
		assert.deepEqual(tally.masking, { maskings: 1, maskedResults: 3, maskedDuplicates: 1, freedTokens: 900, declined: 1 });
		assert.equal(tally.elidedResults, 8);
		assert.equal(tally.droppedRounds, 3);
		assert.equal(tally.requestLoopBreaks, 1);
		assert.equal(tally.truncations, 2);
		assert.equal(tally.truncationsAfterFailedSummary, 0);
	});

	it('counts a truncation after a failed summary, and the failed summary itself', () => {
		const tally = newFitTally();
		const failed = { kind: 'summary-failed', prepared: { attempts: [{ mode: 'full', outcome: 'model-error' }] } } as unknown as FitEvent;
		tallyFit(tally, [failed, { kind: 'elided', calls: 1, freedTokens: 10, neededTokens: 1 }]);
		assert.equal(tally.failedSummaries, 1);
		assert.equal(tally.truncationsAfterFailedSummary, 1);
	});
});
