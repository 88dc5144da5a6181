// The half-context rule (setting on): summarize the older half of the unsummarized rounds
// and keep the newest half verbatim. The split is by round, not by turn: it may fall inside
// a turn and may cross from history into the request in progress (docs/planning.md).
//
// Token-aware: "half of the rounds" ignores their size. When the newest rounds are large (a few
// long test logs), keeping half of them keeps most of the tokens, frees almost nothing, and the
// next overflow comes at once with too few rounds for this rule. So, given the message budget,
// the kept rounds may hold at most half of it: fewer are kept, newest first, never fewer than
// `minRecentRounds`.
import { isInterruptedTurn, type Conversation } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex, type FlatRound } from '../conversation/flatten';
import { roundTokens } from '../tokens/roundTokens';
import { legacyPlanOf } from './legacyPlanner';
import type { SummarizationPlan, TokenAwareSplit } from './plan';
import { buildPlan, type PlanOptions } from './planParts';

/** Fewer unsummarized rounds than this and the legacy rule decides (level 1, `not-enough-rounds`). */
export const MIN_ROUNDS_FOR_HALF_CONTEXT = 4;
/** The newest rounds always kept verbatim, however few rounds there are (the default and least `minRecentRounds`). */
export const MIN_RECENT_ROUNDS = 2;
/** With a message budget, the kept rounds hold at most this share of it. */
export const KEPT_SHARE_OF_BUDGET = 0.5;

/** `minRecentRounds` as given, made a whole number of at least {@link MIN_RECENT_ROUNDS}. */
export function effectiveMinKeep(minRecentRounds: number | undefined): number {
	return minRecentRounds === undefined || !Number.isFinite(minRecentRounds) ? MIN_RECENT_ROUNDS : Math.max(MIN_RECENT_ROUNDS, Math.floor(minRecentRounds));
}

/** How many of `n` unsummarized rounds the round rule keeps verbatim: max(minRecentRounds, ceil(n/2)). */
export function halfContextKeepCount(n: number, minRecentRounds = MIN_RECENT_ROUNDS): number {
	return Math.max(effectiveMinKeep(minRecentRounds), Math.ceil(n / 2));
}

export function planHalfContext(conversation: Conversation, options: PlanOptions = {}): SummarizationPlan {
	const flat = flattenRounds(conversation);
	const start = newestSummaryIndex(flat) + 1;
	const activeCount = conversation.activeRounds.length;
	const n = flat.length - start;
	const minRecentRounds = effectiveMinKeep(options.minRecentRounds);
	if (n < MIN_ROUNDS_FOR_HALF_CONTEXT || n <= minRecentRounds) {
		return legacyPlanOf(flat, start, activeCount, 'half-context', 'not-enough-rounds', options);
	}

	const roundRuleKeep = halfContextKeepCount(n, minRecentRounds);
	const tokenAware = options.countTokens && options.messageBudget !== undefined ? tokenAwareKeep(flat, roundRuleKeep, minRecentRounds, options) : undefined;
	let split = flat.length - (tokenAware?.keep ?? roundRuleKeep);
	// Never anchor on the round where an interrupted turn was stopped: it stays verbatim so the
	// model sees exactly where it was cut off. Repeated for runs of one-round interrupted turns.
	while (split > start && isStopRound(flat[split - 1])) {
		split--;
	}
	if (split <= start) {
		return legacyPlanOf(flat, start, activeCount, 'half-context', 'interrupted-turn', options);
	}
	return buildPlan(
		{ flat, start, split, mode: 'half-context', requestedMode: 'half-context', ...(tokenAware ? { tokenAware: tokenAware.split } : {}) },
		options,
	);
}

/**
 * The token-aware keep count: the round rule's count, or, when those rounds hold more than half of
 * the message budget, as many of the newest as fit in that half (at least `minRecentRounds`).
 */
function tokenAwareKeep(
	flat: readonly FlatRound[],
	roundRuleKeep: number,
	minRecentRounds: number,
	options: PlanOptions,
): { keep: number; split: TokenAwareSplit } {
	const count = options.countTokens!;
	const limitTokens = Math.floor(options.messageBudget! * KEPT_SHARE_OF_BUDGET);
	let keep = 0;
	let tokens = 0;
	while (keep < roundRuleKeep) {
		const next = roundTokens(flat[flat.length - 1 - keep].round, count);
		if (keep >= minRecentRounds && tokens + next > limitTokens) break;
		tokens += next;
		keep++;
	}
	return { keep, split: { roundRuleKeptCount: roundRuleKeep, limitTokens, moved: keep < roundRuleKeep } };
}

/** The last round of a past turn that ended by the tool-call limit or by cancellation. */
export function isStopRound(at: FlatRound): boolean {
	return at.turn !== undefined && isInterruptedTurn(at.turn) && at.roundIndex === at.turn.rounds.length - 1;
}
