import * as assert from 'node:assert/strict';
import { NothingToSummarizeError } from '../../../../src/common/planning/plan';
import { planLegacy } from '../../../../src/common/planning/legacyPlanner';
import { makeConversation } from '../../helpers/conversations';

describe('legacy planner (setting off)', () => {
	it('with more than one active round: summarizes up to the second-to-last active round, keeps the last', () => {
		const plan = planLegacy(makeConversation({ turns: [2], active: 3 }));
		assert.deepEqual(plan.summarizeRoundIds, ['t0r0', 't0r1', 'a0', 'a1']);
		assert.deepEqual(plan.keepRoundIds, ['a2']);
		assert.equal(plan.anchorRoundId, 'a1');
		assert.equal(plan.isContinuation, false);
		assert.equal(plan.mode, 'legacy');
		assert.equal(plan.fallbackReason, undefined);
		assert.equal(plan.fallbackLevel, 0);
	});

	it('with exactly two active rounds and no history: summarizes the first, keeps the second', () => {
		const plan = planLegacy(makeConversation({ active: 2 }));
		assert.deepEqual(plan.summarizeRoundIds, ['a0']);
		assert.deepEqual(plan.keepRoundIds, ['a1']);
	});

	it('with one active round and history: summarizes through the newest past turn, keeps the active round, continuation', () => {
		const plan = planLegacy(makeConversation({ turns: [2, 3], active: 1 }));
		assert.deepEqual(plan.summarizeRoundIds, ['t0r0', 't0r1', 't1r0', 't1r1', 't1r2']);
		assert.deepEqual(plan.keepRoundIds, ['a0']);
		assert.equal(plan.anchorRoundId, 't1r2');
		assert.equal(plan.isContinuation, true);
	});

	it('with no active round and history: summarizes everything and keeps nothing, continuation', () => {
		const plan = planLegacy(makeConversation({ turns: [3] }));
		assert.deepEqual(plan.summarizeRoundIds, ['t0r0', 't0r1', 't0r2']);
		assert.deepEqual(plan.keepRoundIds, []);
		assert.equal(plan.isContinuation, true);
	});

	it('anchors on the last round of the newest past turn that has rounds, skipping empty turns', () => {
		const plan = planLegacy(makeConversation({ turns: [2, 0, 0] }));
		assert.equal(plan.anchorRoundId, 't0r1');
		assert.deepEqual(plan.anchor, { source: 'history', turnIndex: 0, roundIndex: 1 });
	});

	it('nothing to summarize: no history and at most one active round', () => {
		assert.throws(() => planLegacy(makeConversation({ active: 1 })), NothingToSummarizeError);
		assert.throws(() => planLegacy(makeConversation({})), NothingToSummarizeError);
		assert.throws(() => planLegacy(makeConversation({ turns: [0, 0], active: 1 })), NothingToSummarizeError);
	});

	it('only unsummarized rounds count: history already covered by a summary leaves nothing to summarize', () => {
		const c = makeConversation({ turns: [3], active: 1, summaries: { t0r2: 'S' } });
		assert.throws(
			() => planLegacy(c),
			(e: unknown) => e instanceof NothingToSummarizeError && e.code === 'nothing-to-summarize' && e.fallbackLevel === 3,
		);
	});

	it('only unsummarized rounds count: a summary on the second-to-last active round leaves nothing', () => {
		const c = makeConversation({ active: 3, summaries: { a1: 'S' } });
		assert.throws(() => planLegacy(c), NothingToSummarizeError);
	});

	it('summarizes only what is after the newest summary and names that summary as absorbed', () => {
		const c = makeConversation({ turns: [3], active: 3, summaries: { t0r1: 'S-old' } });
		const plan = planLegacy(c);
		assert.deepEqual(plan.summarizeRoundIds, ['t0r2', 'a0', 'a1']);
		assert.deepEqual(plan.previousSummary, { roundId: 't0r1', text: 'S-old' });
		assert.equal(plan.stats.totalRoundCount, 4);
	});
});
