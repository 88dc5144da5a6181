// The first step of truncation when no summary could be made: free space deterministically by
// replacing the results of the oldest visible tool calls with a short marker.
import type { Conversation, Round } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../conversation/flatten';
import { elisionMarker, isPlaceholderResult, withElidedRoundRestored } from '../conversation/toolResultPlaceholders';
import { applyReplacements, resultSlots, takeReplacements } from './toolResultReplacement';
import { updateRounds } from '../summaries/applySummary';

export interface ElisionResult {
	readonly conversation: Conversation;
	readonly elidedCalls: number;
	readonly shedTokens: number;
}

/**
 * Elides tool results oldest first, among the rounds the prompt shows verbatim, until at least
 * `tokensToShed` tokens are freed. The newest round is never touched: it is what the model is
 * working on. Results that already are placeholders (elided or masked) are left as they are.
 * The input is not mutated; untouched turns and rounds are shared.
 */
export function elideOldestToolResults(conversation: Conversation, tokensToShed: number, countTokens: (text: string) => number): ElisionResult {
	const flat = flattenRounds(conversation);
	const slots = resultSlots(flat, newestSummaryIndex(flat) + 1, flat.length - 1, isPlaceholderResult);
	const taken = takeReplacements(slots, tokensToShed, countTokens, (slot, tokens) => elisionMarker(slot.call, tokens));
	return { conversation: applyReplacements(conversation, flat, taken), elidedCalls: taken.count, shedTokens: taken.freedTokens };
}

/**
 * The conversation with every elided result of the unsummarized rounds back as it was recorded:
 * the bridge's elisions (FitOptions.bridge) hold only until a summary makes room, and are made
 * again only where the prompt still does not fit. Returns the input when nothing was elided.
 */
export function restoreElided(conversation: Conversation): Conversation {
	const flat = flattenRounds(conversation);
	const restored = new Map<string, () => Round>();
	for (const { round } of flat.slice(newestSummaryIndex(flat) + 1)) {
		const whole = withElidedRoundRestored(round);
		if (whole !== round) restored.set(round.id, () => whole);
	}
	return restored.size ? updateRounds(conversation, restored) : conversation;
}
