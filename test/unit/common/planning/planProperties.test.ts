// Property-based tests: the planner rules hold for any conversation shape.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { isInterruptedTurn } from '../../../../src/common/conversation/conversation';
import { flattenRounds, unsummarizedRounds } from '../../../../src/common/conversation/flatten';
import { NothingToSummarizeError, type SummarizationPlan } from '../../../../src/common/planning/plan';
import { halfContextKeepCount, planHalfContext } from '../../../../src/common/planning/halfContextPlanner';
import { planLegacy } from '../../../../src/common/planning/legacyPlanner';
import { applySummaryBlocks, blockSegments } from '../../../../src/common/summaries/applySummary';
import { summaryBlocks } from '../../../../src/common/conversation/summaryBlocks';
import { roundTokens } from '../../../../src/common/tokens/roundTokens';
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

			it('after its blocks are applied, the next plan starts exactly at the kept rounds and absorbs the newest block only when it continues its turn', () => {
				fc.assert(
					fc.property(conversationArb, c => {
						const plan = tryPlan(planner, c);
						if (!plan) return;
						const segments = blockSegments(c, plan);
						const next = applySummaryBlocks(
							c,
							plan,
							segments.map((_, i) => `block ${i}`),
						);
						assert.deepEqual(
							unsummarizedRounds(flattenRounds(next)).map(f => f.round.id),
							plan.keepRoundIds,
						);
						const nextPlan = tryPlan(planner, next);
						if (!nextPlan) return;
						assert.equal(nextPlan.newestSummaryRoundId, plan.anchorRoundId);
						const flat = flattenRounds(next);
						const anchor = flat.find(f => f.round.id === plan.anchorRoundId)!;
						const first = flat.find(f => f.round.id === nextPlan.summarizeRoundIds[0])!;
						const continues = anchor.source === first.source && anchor.turnIndex === first.turnIndex;
						assert.deepEqual(nextPlan.previousSummary, continues ? { roundId: plan.anchorRoundId, text: `block ${segments.length - 1}` } : undefined);
					}),
					RUNS,
				);
			});

			it('its blocks: one per turn it spans, in turn order, each in its own turn; no earlier block is dropped or moved', () => {
				fc.assert(
					fc.property(conversationArb, c => {
						const plan = tryPlan(planner, c);
						if (!plan) return;
						const before = summaryBlocks(c);
						const segments = blockSegments(c, plan);
						const next = applySummaryBlocks(
							c,
							plan,
							segments.map((_, i) => `new ${i}`),
						);
						const after = summaryBlocks(next);
						const turns = after.map(b => b.turnIndex);
						assert.deepEqual(
							turns,
							[...new Set(turns)].sort((a, b) => a - b),
							'one block per turn, in order',
						);
						const created = after.filter(b => b.text.startsWith('new '));
						assert.deepEqual(
							created.map(b => b.turnIndex),
							segments.map(s => s.turnIndex),
						);
						// A new block covers only rounds of its own turn (the first may also cover what the block it absorbed did).
						for (const b of created.slice(segments[0].absorbs ? 1 : 0)) {
							const turnOf = (id: string) => {
								const at = flattenRounds(next).find(f => f.round.id === id)!;
								return at.source === 'active' ? next.turns.length : at.turnIndex;
							};
							assert.ok(
								b.roundIds.every(id => turnOf(id) === b.turnIndex),
								`block of turn ${b.turnIndex} covers ${b.roundIds.join(',')}`,
							);
						}
						// Earlier blocks: still there, same text, unless the first new block absorbed its own turn's.
						for (const old of before) {
							const now = after.find(b => b.turnIndex === old.turnIndex);
							assert.ok(now, `the block of turn ${old.turnIndex} vanished`);
							if (now.text !== old.text) assert.equal(segments[0].absorbs?.roundId, old.roundId);
						}
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

	it('half-context with minRecentRounds and a message budget: keeps at least minRecentRounds, at most the round rule (before the interrupted-turn shift), and within half the budget unless at minRecentRounds', () => {
		const count = (text: string) => Math.ceil(text.length / 4);
		fc.assert(
			fc.property(conversationArb, fc.integer({ min: 0, max: 6 }), fc.integer({ min: 10, max: 200 }), (c, minRecentRounds, messageBudget) => {
				const plan = tryPlan(conv => planHalfContext(conv, { minRecentRounds, messageBudget, countTokens: count }), c);
				if (!plan || plan.mode !== 'half-context') return;
				const effective = Math.max(2, minRecentRounds);
				const n = plan.stats.totalRoundCount;
				const token = plan.stats.tokenAware!;
				assert.equal(token.roundRuleKeptCount, Math.max(effective, Math.ceil(n / 2)));
				assert.equal(token.limitTokens, Math.floor(messageBudget / 2));
				const kept = plan.keepRoundIds.length;
				assert.ok(kept >= effective, `kept ${kept} < minRecentRounds ${effective}`);
				const keptTokens = plan.stats.tokens!.kept;
				const flat = flattenRounds(c);
				const keptRounds = flat.slice(flat.length - kept).map(f => f.round);
				assert.equal(
					keptTokens,
					keptRounds.reduce((sum, r) => sum + roundTokens(r, count), 0),
				);
				// Without the shift (anchor not moved), the token rule alone decided.
				const shifted = kept > token.roundRuleKeptCount || (token.moved && keptTokens > token.limitTokens && kept > effective);
				if (!shifted && kept > effective && kept <= token.roundRuleKeptCount && token.moved) {
					assert.ok(keptTokens <= token.limitTokens, `kept ${keptTokens} tokens over the limit ${token.limitTokens}`);
				}
				if (!token.moved) assert.ok(kept >= token.roundRuleKeptCount);
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
