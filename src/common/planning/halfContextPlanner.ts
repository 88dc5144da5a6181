// The half-context rule (setting on): summarize the older half of the unsummarized rounds
// and keep the newest half verbatim. The split is by round, not by turn: it may fall inside
// a turn and may cross from history into the request in progress (docs/planning.md).
import { isInterruptedTurn, type Conversation } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex, type FlatRound } from '../conversation/flatten';
import { legacyPlanOf } from './legacyPlanner';
import type { SummarizationPlan } from './plan';
import { buildPlan, type PlanOptions } from './planParts';

/** Fewer unsummarized rounds than this and the legacy rule decides (level 1, `not-enough-rounds`). */
export const MIN_ROUNDS_FOR_HALF_CONTEXT = 4;
/** The newest rounds always kept verbatim, however few rounds there are. */
export const MIN_KEPT_ROUNDS = 2;

/** How many of `n` unsummarized rounds stay verbatim before the interrupted-turn shift: max(2, ceil(n/2)). */
export function halfContextKeepCount(n: number): number {
	return Math.max(MIN_KEPT_ROUNDS, Math.ceil(n / 2));
}

export function planHalfContext(conversation: Conversation, options: PlanOptions = {}): SummarizationPlan {
	const flat = flattenRounds(conversation);
	const start = newestSummaryIndex(flat) + 1;
	const activeCount = conversation.activeRounds.length;
	const n = flat.length - start;
	if (n < MIN_ROUNDS_FOR_HALF_CONTEXT) {
		return legacyPlanOf(flat, start, activeCount, 'half-context', 'not-enough-rounds', options);
	}

	let split = flat.length - halfContextKeepCount(n);
	// Never anchor on the round where an interrupted turn was stopped: it stays verbatim so the
	// model sees exactly where it was cut off. Repeated for runs of one-round interrupted turns.
	while (split > start && isStopRound(flat[split - 1])) {
		split--;
	}
	if (split <= start) {
		return legacyPlanOf(flat, start, activeCount, 'half-context', 'interrupted-turn', options);
	}
	return buildPlan({ flat, start, split, mode: 'half-context', requestedMode: 'half-context' }, options);
}

/** The last round of a past turn that ended by the tool-call limit or by cancellation. */
export function isStopRound(at: FlatRound): boolean {
	return at.turn !== undefined && isInterruptedTurn(at.turn) && at.roundIndex === at.turn.rounds.length - 1;
}
