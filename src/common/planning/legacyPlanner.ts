// The legacy rule, as VS Code's Copilot Chat applies it (setting off), counting only
// unsummarized rounds:
// - the request in progress has more than one unsummarized round: summarize everything up to
//   and including its second-to-last round, keep its last round verbatim;
// - otherwise, if there is history: summarize everything up to and including the last round of
//   the newest past turn that has rounds, keep the current request's rounds (0 or 1), and mark
//   the request as a continuation;
// - otherwise, or when that would summarize no unsummarized round: nothing to summarize.
import type { Conversation } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex, type FlatRound } from '../conversation/flatten';
import type { FallbackReason, SummarizationMode, SummarizationPlan } from './plan';
import { buildPlan, type PlanOptions } from './planParts';

export function planLegacy(conversation: Conversation, options: PlanOptions = {}): SummarizationPlan {
	const flat = flattenRounds(conversation);
	return legacyPlanOf(flat, newestSummaryIndex(flat) + 1, conversation.activeRounds.length, 'legacy', undefined, options);
}

/** The legacy plan over already flattened rounds; also the half-context planner's fallback. */
export function legacyPlanOf(
	flat: readonly FlatRound[],
	start: number,
	activeCount: number,
	requestedMode: SummarizationMode,
	fallbackReason: FallbackReason | undefined,
	options: PlanOptions,
): SummarizationPlan {
	return buildPlan({ flat, start, split: legacySplit(flat, start, activeCount), mode: 'legacy', requestedMode, fallbackReason }, options);
}

/** Index of the first kept round; `start` (nothing to summarize) when the rule finds nothing. */
function legacySplit(flat: readonly FlatRound[], start: number, activeCount: number): number {
	const unsummarizedActive = Math.min(activeCount, flat.length - start);
	if (unsummarizedActive > 1) {
		return flat.length - 1;
	}
	// Active rounds come last in `flat`, so the last history entry is the last round of the
	// newest past turn that has rounds. If it is already summarized, the split lands at or
	// before `start` and buildPlan reports nothing to summarize.
	const lastHistoryRound = flat.length - activeCount - 1;
	return lastHistoryRound >= 0 ? Math.max(start, lastHistoryRound + 1) : start;
}
