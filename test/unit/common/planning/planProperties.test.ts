// Property-based tests: the planner rules hold for any conversation shape.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { isInterruptedTurn } from '../../../../src/common/conversation/conversation';
import { flattenRounds, unsummarizedRounds } from '../../../../src/common/conversation/flatten';
import { NothingToSummarizeError, type SummarizationPlan } from '../../../../src/common/planning/plan';
import { applySummary, halfContextKeepCount, planHalfContext, planLegacy } from '../../../../src/common/planning/planners';
import { deepFreeze, makeConversation } from '../../helpers/conversations';

const turnSpec = fc.oneof(
	fc.record({ rounds: fc.nat({ max: 8 }), maxToolCallsExceeded: fc.boolean(), cancelled: fc.boolean() }),
	// Short interrupted turns (a user cancelling request after request) exercise the anchor shift and its fallback.
	fc.record({ rounds: fc.integer({ min: 1, max: 2 }), maxToolCallsExceeded: fc.boolean(), cancelled: fc.constant(true) }),
);

/** Random conversations: 0–6 past turns of 0–8 rounds, 0–10 active rounds, some summaries, some unanswered calls. */
export const conversationArb: fc.Arbitrary<Conversation> = fc
	.record({
		turns: fc.array(turnSpec, { maxLength: 6 }),
		active: fc.nat({ max: 10 }),
		summaryPicks: fc.array(fc.nat(), { maxLength: 3 }),
		unansweredPicks: fc.array(fc.nat(), { maxLength: 3 }),
	})
	.map(spec => {
		const base = makeConversation({ turns: spec.turns, active: spec.active });
		const ids = flattenRounds(base).map(f => f.round.id);
		if (ids.length === 0) return base;
		const summaries = new Set(spec.summaryPicks.map(p => ids[p % ids.length]));
		const unanswered = new Set(spec.unansweredPicks.map(p => ids[p % ids.length]));
		const edit = (r: Round): Round => ({
			...r,
			...(summaries.has(r.id) ? { summary: `summary on ${r.id}` } : {}),
			...(unanswered.has(r.id) ? { toolCalls: [{ id: `call-${r.id}`, name: 'runCommand', arguments: '{}' }] } : {}),
		});
		return { turns: base.turns.map(t => ({ ...t, rounds: t.rounds.map(edit) })), activeRounds: base.activeRounds.map(edit) };
	});

/** More runs than the default 100: the interrupted-turn fallback needs a rare shape (about 1 in 170). */
const RUNS = { numRuns: 400 };

type Planner = (c: Conversation) => SummarizationPlan;
const planners: ReadonlyArray<[string, Planner]> = [
	['legacy', c => planLegacy(c)],
	['half-context', c => planHalfContext(c)],
];

/** The plan, or undefined when the planner says there is nothing to summarize (any other error fails the property). */
function tryPlan(planner: Planner, c: Conversation): SummarizationPlan | undefined {
	try {
		return planner(c);
	} catch (error) {
		if (error instanceof NothingToSummarizeError) return undefined;
		throw error;
	}
}

describe('planner properties (fast-check)', () => {
	for (const [name, planner] of planners) {
		describe(name, () => {
			it('every unsummarized round is either summarized or kept, exactly once, in order; never an empty summarization', () => {
				fc.assert(
					fc.property(conversationArb, c => {
						const plan = tryPlan(planner, c);
						if (!plan) return;
						const unsummarized = unsummarizedRounds(flattenRounds(c)).map(f => f.round.id);
						assert.deepEqual([...plan.summarizeRoundIds, ...plan.keepRoundIds], unsummarized);
						assert.ok(plan.summarizeRoundIds.length >= 1);
						assert.equal(plan.stats.totalRoundCount, unsummarized.length);
						assert.equal(plan.stats.summarizedRoundCount, plan.summarizeRoundIds.length);
						assert.equal(plan.stats.keptRoundCount, plan.keepRoundIds.length);
					}),
					RUNS,
				);
			});

			it('the kept rounds are a suffix of the conversation', () => {
				fc.assert(
					fc.property(conversationArb, c => {
						const plan = tryPlan(planner, c);
						if (!plan) return;
						const ids = flattenRounds(c).map(f => f.round.id);
						assert.deepEqual(ids.slice(ids.length - plan.keepRoundIds.length), plan.keepRoundIds);
					}),
					RUNS,
				);
			});

			it('the anchor is the last summarized round, at the location the plan names', () => {
				fc.assert(
					fc.property(conversationArb, c => {
						const plan = tryPlan(planner, c);
						if (!plan) return;
						assert.equal(plan.anchorRoundId, plan.summarizeRoundIds.at(-1));
						const at = flattenRounds(c).find(f => f.round.id === plan.anchorRoundId)!;
						assert.deepEqual(plan.anchor, { source: at.source, turnIndex: at.turnIndex, roundIndex: at.roundIndex });
						assert.equal(plan.isContinuation, at.source === 'history');
					}),
					RUNS,
				);
			});

			it('is deterministic and never mutates its input', () => {
				fc.assert(
					fc.property(conversationArb, c => {
						const snapshot = JSON.stringify(c);
						const frozen = deepFreeze(c);
						const first = tryPlan(planner, frozen);
						const second = tryPlan(planner, frozen);
						assert.deepEqual(first, second);
						assert.equal(JSON.stringify(c), snapshot);
					}),
					RUNS,
				);
			});

			it('after the summary is applied, the next plan starts exactly at the kept rounds and absorbs that summary', () => {
				fc.assert(
					fc.property(conversationArb, c => {
						const plan = tryPlan(planner, c);
						if (!plan) return;
						const next = applySummary(c, plan.anchorRoundId, 'new summary');
						assert.deepEqual(
							unsummarizedRounds(flattenRounds(next)).map(f => f.round.id),
							plan.keepRoundIds,
						);
						const nextPlan = tryPlan(planner, next);
						if (nextPlan) assert.deepEqual(nextPlan.previousSummary, { roundId: plan.anchorRoundId, text: 'new summary' });
					}),
					RUNS,
				);
			});
		});
	}

	it('half-context never keeps fewer rounds than legacy, and has nothing to summarize exactly when legacy has nothing', () => {
		fc.assert(
			fc.property(conversationArb, c => {
				const half = tryPlan(planHalfContext, c);
				const legacy = tryPlan(planLegacy, c);
				assert.equal(half === undefined, legacy === undefined);
				if (half && legacy) {
					assert.ok(half.keepRoundIds.length >= legacy.keepRoundIds.length, `half kept ${half.keepRoundIds.length}, legacy ${legacy.keepRoundIds.length}`);
				}
			}),
			RUNS,
		);
	});

	it('half-context: at level 0 it keeps at least max(2, ceil(N/2)) and never anchors on the round where an interrupted turn stopped', () => {
		fc.assert(
			fc.property(conversationArb, c => {
				const plan = tryPlan(planHalfContext, c);
				if (!plan) return;
				const n = plan.stats.totalRoundCount;
				if (n < 4) {
					assert.equal(plan.fallbackReason, 'not-enough-rounds');
					return;
				}
				if (plan.fallbackReason === 'interrupted-turn') return;
				assert.equal(plan.mode, 'half-context');
				assert.ok(plan.keepRoundIds.length >= halfContextKeepCount(n));
				const at = flattenRounds(c).find(f => f.round.id === plan.anchorRoundId)!;
				assert.ok(!(at.turn && isInterruptedTurn(at.turn) && at.roundIndex === at.turn.rounds.length - 1), `anchored on stop round ${plan.anchorRoundId}`);
			}),
			RUNS,
		);
	});

	it('half-context falls back only for the documented reasons, and then equals the legacy plan', () => {
		fc.assert(
			fc.property(conversationArb, c => {
				const half = tryPlan(planHalfContext, c);
				if (!half || half.mode === 'half-context') return;
				assert.ok(half.fallbackReason === 'not-enough-rounds' || half.fallbackReason === 'interrupted-turn');
				assert.equal(half.fallbackLevel, 1);
				const legacy = planLegacy(c);
				assert.deepEqual(half.summarizeRoundIds, legacy.summarizeRoundIds);
				assert.deepEqual(half.keepRoundIds, legacy.keepRoundIds);
			}),
			RUNS,
		);
	});
});
