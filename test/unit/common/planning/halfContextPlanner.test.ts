import * as assert from 'node:assert/strict';
import { NothingToSummarizeError } from '../../../../src/common/planning/plan';
import { planSummarization } from '../../../../src/common/planning/planners';
import { halfContextKeepCount, planHalfContext } from '../../../../src/common/planning/halfContextPlanner';
import { planLegacy } from '../../../../src/common/planning/legacyPlanner';
import { makeConversation, makeRound } from '../../helpers/conversations';

describe('half-context planner (setting on)', () => {
	describe('split size: keep the newest max(2, ceil(N/2)) rounds', () => {
		for (const [n, keep] of [
			[4, 2],
			[5, 3],
			[6, 3],
			[7, 4],
			[8, 4],
			[20, 10],
			[189, 95],
		] as const) {
			it(`N=${n} keeps ${keep}`, () => {
				assert.equal(halfContextKeepCount(n), keep);
				const plan = planHalfContext(makeConversation({ active: n }));
				assert.equal(plan.stats.keptRoundCount, keep);
				assert.equal(plan.stats.summarizedRoundCount, n - keep);
				assert.equal(plan.stats.totalRoundCount, n);
				assert.equal(plan.mode, 'half-context');
				assert.equal(plan.fallbackLevel, 0);
			});
		}

		it('6 active rounds: summarize a0..a2, keep a3..a5, anchor a2', () => {
			const plan = planHalfContext(makeConversation({ active: 6 }));
			assert.deepEqual(plan.summarizeRoundIds, ['a0', 'a1', 'a2']);
			assert.deepEqual(plan.keepRoundIds, ['a3', 'a4', 'a5']);
			assert.equal(plan.anchorRoundId, 'a2');
			assert.equal(plan.isContinuation, false);
		});
	});

	describe('fewer than 4 unsummarized rounds: legacy rule, level 1, not-enough-rounds', () => {
		it('2 active rounds: legacy summarizes the first', () => {
			const plan = planHalfContext(makeConversation({ active: 2 }));
			assert.equal(plan.mode, 'legacy');
			assert.equal(plan.requestedMode, 'half-context');
			assert.equal(plan.fallbackReason, 'not-enough-rounds');
			assert.equal(plan.fallbackLevel, 1);
			assert.deepEqual(plan.summarizeRoundIds, ['a0']);
			assert.deepEqual(plan.keepRoundIds, ['a1']);
		});

		it('3 rounds across history and active: exactly the legacy plan, plus the fallback reason', () => {
			const c = makeConversation({ turns: [2], active: 1 });
			const half = planHalfContext(c);
			const legacy = planLegacy(c);
			assert.deepEqual({ ...half, requestedMode: 'legacy', fallbackLevel: 0, fallbackReason: undefined }, { ...legacy, fallbackReason: undefined });
			assert.equal(half.fallbackReason, 'not-enough-rounds');
		});

		it('1 active round and no history: nothing to summarize (level 3), not an empty request', () => {
			assert.throws(() => planHalfContext(makeConversation({ active: 1 })), NothingToSummarizeError);
		});

		it('no rounds at all: nothing to summarize', () => {
			assert.throws(() => planHalfContext(makeConversation({ turns: [0] })), NothingToSummarizeError);
		});
	});

	describe('the split is by round and may cross turn boundaries', () => {
		it('10 rounds across 3 turns: summarizes the older 5, split inside turn 1, user message recorded', () => {
			const plan = planHalfContext(makeConversation({ turns: [3, 4, 3] }));
			assert.deepEqual(plan.summarizeRoundIds, ['t0r0', 't0r1', 't0r2', 't1r0', 't1r1']);
			assert.deepEqual(plan.keepRoundIds, ['t1r2', 't1r3', 't2r0', 't2r1', 't2r2']);
			assert.equal(plan.anchorRoundId, 't1r1');
			assert.equal(plan.splitInsideTurnIndex, 1);
			assert.equal(plan.isContinuation, true);
		});

		it('a split exactly at a turn boundary is not moved and is not inside a turn', () => {
			const plan = planHalfContext(makeConversation({ turns: [3, 3] }));
			assert.equal(plan.anchorRoundId, 't0r2');
			assert.equal(plan.splitInsideTurnIndex, undefined);
		});

		it('crosses from history into the active rounds: the anchor is in history, kept rounds span both', () => {
			const plan = planHalfContext(makeConversation({ turns: [4], active: 2 }));
			assert.deepEqual(plan.summarizeRoundIds, ['t0r0', 't0r1', 't0r2']);
			assert.deepEqual(plan.keepRoundIds, ['t0r3', 'a0', 'a1']);
			assert.equal(plan.splitInsideTurnIndex, 0);
			assert.equal(plan.isContinuation, true);
		});

		it('crosses from history into the active rounds: the anchor is an active round', () => {
			const plan = planHalfContext(makeConversation({ turns: [2], active: 6 }));
			assert.deepEqual(plan.summarizeRoundIds, ['t0r0', 't0r1', 'a0', 'a1']);
			assert.equal(plan.anchorRoundId, 'a1');
			assert.deepEqual(plan.anchor, { source: 'active', turnIndex: -1, roundIndex: 1 });
			assert.equal(plan.isContinuation, false);
			assert.equal(plan.splitInsideTurnIndex, undefined);
		});

		it('a single turn with many rounds is split inside it (turn-boundary splitting would summarize nothing or all)', () => {
			const plan = planHalfContext(makeConversation({ turns: [150] }));
			assert.equal(plan.stats.summarizedRoundCount, 75);
			assert.equal(plan.anchorRoundId, 't0r74');
			assert.equal(plan.splitInsideTurnIndex, 0);
		});
	});

	describe('already-summarized rounds', () => {
		it('counts and splits only the rounds after the newest summary', () => {
			const c = makeConversation({ turns: [6], active: 4, summaries: { t0r3: 'S1' } });
			const plan = planHalfContext(c);
			assert.equal(plan.stats.totalRoundCount, 6);
			assert.deepEqual(plan.summarizeRoundIds, ['t0r4', 't0r5', 'a0']);
			assert.deepEqual(plan.keepRoundIds, ['a1', 'a2', 'a3']);
		});

		it('names the newest earlier summary as the one to absorb', () => {
			const c = makeConversation({ turns: [6], active: 4, summaries: { t0r1: 'S-older', t0r3: 'S-newest' } });
			assert.deepEqual(planHalfContext(c).previousSummary, { roundId: 't0r3', text: 'S-newest' });
		});

		it('too few rounds left after the summary: legacy fallback', () => {
			const c = makeConversation({ turns: [8], active: 3, summaries: { t0r7: 'S' } });
			const plan = planHalfContext(c);
			assert.equal(plan.fallbackReason, 'not-enough-rounds');
			assert.deepEqual(plan.summarizeRoundIds, ['a0', 'a1']);
		});

		it('everything summarized: nothing to summarize', () => {
			const c = makeConversation({ turns: [8], active: 1, summaries: { a0: 'S' } });
			assert.throws(() => planHalfContext(c), NothingToSummarizeError);
		});
	});

	describe('interrupted turns', () => {
		it('an anchor on the round where a turn hit the tool-call limit moves one round earlier', () => {
			const c = makeConversation({ turns: [{ rounds: 3, maxToolCallsExceeded: true }, 3] });
			const plan = planHalfContext(c);
			assert.equal(plan.anchorRoundId, 't0r1');
			assert.deepEqual(plan.keepRoundIds, ['t0r2', 't1r0', 't1r1', 't1r2']);
			assert.equal(plan.splitInsideTurnIndex, 0);
			assert.equal(plan.mode, 'half-context');
		});

		it('the same for a cancelled turn', () => {
			const c = makeConversation({ turns: [{ rounds: 2, cancelled: true }], active: 2 });
			const plan = planHalfContext(c);
			assert.equal(plan.anchorRoundId, 't0r0');
			assert.deepEqual(plan.keepRoundIds, ['t0r1', 'a0', 'a1']);
		});

		it('an interrupted turn whose last round is not the anchor changes nothing', () => {
			const plain = planHalfContext(makeConversation({ turns: [3, 3] }));
			const interruptedLater = planHalfContext(makeConversation({ turns: [3, { rounds: 3, cancelled: true }] }));
			assert.deepEqual(interruptedLater.summarizeRoundIds, plain.summarizeRoundIds);
		});

		it('runs of one-round interrupted turns: the shift repeats, so no stop round becomes the anchor', () => {
			const c = makeConversation({ turns: [2, { rounds: 1, cancelled: true }, { rounds: 1, maxToolCallsExceeded: true }], active: 4 });
			// N=8 keeps 4: the anchor would be t2r0, then t1r0 (both stop rounds), so it lands on t0r1.
			const plan = planHalfContext(c);
			assert.equal(plan.anchorRoundId, 't0r1');
			assert.deepEqual(plan.keepRoundIds, ['t1r0', 't2r0', 'a0', 'a1', 'a2', 'a3']);
		});

		it('when every candidate anchor is a stop round: legacy fallback with reason interrupted-turn (level 1)', () => {
			const c = makeConversation({
				turns: [
					{ rounds: 1, cancelled: true },
					{ rounds: 1, cancelled: true },
				],
				active: 2,
			});
			const plan = planHalfContext(c);
			assert.equal(plan.mode, 'legacy');
			assert.equal(plan.fallbackReason, 'interrupted-turn');
			assert.equal(plan.fallbackLevel, 1);
			assert.deepEqual(plan.summarizeRoundIds, planLegacy(c).summarizeRoundIds);
		});

		it('a round whose calls lack results is listed so the renderer closes them; it is never split from its calls', () => {
			const c = makeConversation({ turns: [3], active: 3 });
			const unanswered = makeRound('t0r1', { toolCalls: [{ id: 'c', name: 'runCommand', arguments: '{}' }] });
			const conversation = { ...c, turns: [{ ...c.turns[0], rounds: [c.turns[0].rounds[0], unanswered, c.turns[0].rounds[2]] }] };
			const plan = planHalfContext(conversation);
			assert.deepEqual(plan.interruptedRoundIds, ['t0r1']);
			assert.ok(plan.summarizeRoundIds.includes('t0r1'));
		});
	});

	describe('the setting toggled', () => {
		it('planSummarization dispatches on the mode', () => {
			const c = makeConversation({ turns: [3], active: 5 });
			assert.deepEqual(planSummarization(c, 'legacy'), planLegacy(c));
			assert.deepEqual(planSummarization(c, 'half-context'), planHalfContext(c));
			assert.equal(planSummarization(c, 'legacy').stats.keptRoundCount, 1);
			assert.equal(planSummarization(c, 'half-context').stats.keptRoundCount, 4);
		});

		it('a summary written by one planner bounds the other: both start after it', () => {
			const c = makeConversation({ turns: [6], active: 6, summaries: { t0r5: 'written by legacy' } });
			const half = planHalfContext(c);
			const legacy = planLegacy(c);
			assert.deepEqual(half.summarizeRoundIds, ['a0', 'a1', 'a2']);
			assert.deepEqual(legacy.summarizeRoundIds, ['a0', 'a1', 'a2', 'a3', 'a4']);
			// The summary ends turn 0, so it is turn 0's block: neither plan absorbs it.
			assert.equal(half.previousSummary, undefined);
			assert.equal(legacy.previousSummary, undefined);
			assert.equal(half.newestSummaryRoundId, 't0r5');
			assert.equal(legacy.newestSummaryRoundId, 't0r5');
		});

		it('a plan that continues a turn with a block absorbs that block, whichever planner wrote it', () => {
			const c = makeConversation({ turns: [2], active: 8, summaries: { a1: 'written by legacy' } });
			assert.deepEqual(planHalfContext(c).previousSummary, { roundId: 'a1', text: 'written by legacy' });
			assert.deepEqual(planLegacy(c).previousSummary, { roundId: 'a1', text: 'written by legacy' });
		});
	});

	describe('minRecentRounds: the fewest rounds kept (default 2, at least 2)', () => {
		it('keeps max(minRecentRounds, ceil(N/2))', () => {
			assert.equal(halfContextKeepCount(10, 8), 8);
			assert.equal(halfContextKeepCount(10, 3), 5);
			assert.equal(halfContextKeepCount(10, 1), 5, 'less than 2 counts as 2');
			assert.equal(halfContextKeepCount(3, 0), 2);
			const plan = planHalfContext(makeConversation({ active: 12 }), { minRecentRounds: 9 });
			assert.equal(plan.stats.keptRoundCount, 9);
			assert.equal(plan.mode, 'half-context');
		});

		it('N not above minRecentRounds: the legacy rule decides (not-enough-rounds), as with N < 4', () => {
			const plan = planHalfContext(makeConversation({ active: 6 }), { minRecentRounds: 6 });
			assert.equal(plan.mode, 'legacy');
			assert.equal(plan.fallbackReason, 'not-enough-rounds');
			assert.equal(planHalfContext(makeConversation({ active: 7 }), { minRecentRounds: 6 }).stats.keptRoundCount, 6);
		});

		it('ignores values below 2 and fractions', () => {
			const c = makeConversation({ active: 5 });
			assert.deepEqual(planHalfContext(c, { minRecentRounds: 0 }), planHalfContext(c));
			assert.deepEqual(planHalfContext(c, { minRecentRounds: -3 }), planHalfContext(c));
			assert.equal(planHalfContext(makeConversation({ active: 20 }), { minRecentRounds: 12.9 }).stats.keptRoundCount, 12);
		});
	});

	describe('token-aware: with a message budget, the kept rounds hold at most half of it', () => {
		/** Active rounds whose tool results have the given sizes (in characters; the counter below counts characters). */
		const sized = (sizes: readonly number[]) => ({
			turns: [],
			activeRounds: sizes.map((size, i) =>
				makeRound(`a${i}`, { response: '', toolCalls: [{ id: `c${i}`, name: 'r', arguments: '', result: 'x'.repeat(size) }] }),
			),
		});
		const count = (text: string) => text.length;
		// roundTokens counts the response, and each call's name, arguments and result: 1 + size here.

		it('small rounds: the round rule decides, the split does not move', () => {
			const plan = planHalfContext(sized([10, 10, 10, 10, 10, 10, 10, 10]), { countTokens: count, messageBudget: 1000 });
			assert.equal(plan.stats.keptRoundCount, 4);
			assert.deepEqual(plan.stats.tokenAware, { roundRuleKeptCount: 4, limitTokens: 500, moved: false });
			assert.equal(plan.stats.tokens!.kept, 44);
		});

		it('large newest rounds: keeps fewer, newest first, down to half the budget', () => {
			// Newest four hold 4 x 201 = 804 > 500; the newest two hold 402 <= 500, three would hold 603.
			const plan = planHalfContext(sized([10, 10, 10, 10, 200, 200, 200, 200]), { countTokens: count, messageBudget: 1000 });
			assert.deepEqual(plan.keepRoundIds, ['a6', 'a7']);
			assert.deepEqual(plan.stats.tokenAware, { roundRuleKeptCount: 4, limitTokens: 500, moved: true });
			assert.equal(plan.stats.tokens!.kept, 402);
			// Without the budget: the pure round rule.
			assert.equal(planHalfContext(sized([10, 10, 10, 10, 200, 200, 200, 200]), { countTokens: count }).stats.keptRoundCount, 4);
		});

		it('never fewer than minRecentRounds, even over the limit', () => {
			const plan = planHalfContext(sized([10, 10, 10, 10, 900, 900, 900, 900]), { countTokens: count, messageBudget: 1000 });
			assert.deepEqual(plan.keepRoundIds, ['a6', 'a7']);
			assert.equal(plan.stats.tokenAware!.moved, true);
			assert.ok(plan.stats.tokens!.kept > 500);
			const three = planHalfContext(sized([10, 10, 10, 10, 10, 900, 900, 900, 900, 900]), { countTokens: count, messageBudget: 1000, minRecentRounds: 3 });
			assert.equal(three.stats.keptRoundCount, 3);
		});

		it('the interrupted-turn rule still applies after the token rule', () => {
			const stop = { rounds: 3, cancelled: true };
			const c = makeConversation({ turns: [4, stop, 2] });
			// 9 rounds: the round rule keeps 5 (t1r0..t2r1); with a tiny budget, 2 (t2r0, t2r1), whose anchor would be t1r2, the stop round.
			const plan = planHalfContext(c, { countTokens: count, messageBudget: 10 });
			assert.equal(plan.anchorRoundId, 't1r1');
			assert.deepEqual(plan.keepRoundIds, ['t1r2', 't2r0', 't2r1']);
			assert.equal(plan.stats.tokenAware!.moved, true);
		});
	});

	describe('statistics', () => {
		it('counts tokens of the summarized part, the kept part and the absorbed summary when given a counter', () => {
			const c = makeConversation({ turns: [4], active: 4, summaries: { t0r0: 'previous summary text' } });
			const count = (text: string) => text.length;
			const plan = planHalfContext(c, { countTokens: count });
			assert.ok(plan.stats.tokens);
			assert.equal(plan.stats.tokens.previousSummary, 'previous summary text'.length);
			const total = plan.stats.tokens.summarized + plan.stats.tokens.kept;
			assert.ok(plan.stats.tokens.summarized > 0 && plan.stats.tokens.kept > plan.stats.tokens.summarized);
			assert.equal(planLegacy(c, { countTokens: count }).stats.tokens!.summarized + planLegacy(c, { countTokens: count }).stats.tokens!.kept, total);
		});

		it('has no token statistics without a counter', () => {
			assert.equal(planHalfContext(makeConversation({ active: 5 })).stats.tokens, undefined);
		});
	});
});
