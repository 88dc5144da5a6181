// Cheap-first compaction (issue 7, part 2): observation masking. Before paying for a summary,
// free space by replacing the results of older tool calls with a one-line placeholder that names
// the call, its size, and how to get it back. "Older" means outside the rounds the active planner
// would keep verbatim (the same boundary a summary would use: for half-context the newer half of
// the unsummarized rounds, for legacy the last round), so masking never reaches a round the
// summarizer would have kept. An older call with the same tool, arguments and result as a newer
// one is masked first and points at the newer one: dropping it loses nothing.
//
// Usage (the agent's renderFitting, on BudgetExceededError, before compacting):
//   const masked = maskOldToolResults(state.conversation, mode, countTokens, { targetTokens: overflow + margin });
//   if (masked.maskedCalls > 0) { state.conversation = masked.conversation; re-render; }
//   else summarize as before.
import type { Conversation } from './conversation';
import { flattenRounds, newestSummaryIndex } from './flatten';
import { NothingToSummarizeError, type SummarizationMode } from './plan';
import { planSummarization } from './planners';
import { duplicatePlaceholder, isPlaceholderResult, maskedPlaceholder } from './toolResultPlaceholders';
import { applyReplacements, resultSlots, takeReplacements, type ResultSlot } from './toolResultReplacement';

export { isMaskedResult, maskedPlaceholder, duplicatePlaceholder } from './toolResultPlaceholders';

export interface MaskOptions {
	/**
	 * Stop once at least this many tokens are freed (oldest results first, duplicates before
	 * everything else). Omitted: mask every result outside the kept rounds.
	 */
	readonly targetTokens?: number;
}

export interface MaskStats {
	/** Results replaced by a placeholder by this call, duplicates included. */
	readonly maskedCalls: number;
	/** Of `maskedCalls`, older exact duplicates of a newer call (same tool, arguments and result). */
	readonly duplicateCalls: number;
	/** Tokens of the masked results minus tokens of their placeholders (by the given counter). */
	readonly freedTokens: number;
	/** Rounds the active planner keeps verbatim: never masked. */
	readonly keptRoundCount: number;
}

export interface MaskResult extends MaskStats {
	/** The masked conversation; the input itself when nothing was masked. Untouched rounds are shared. */
	readonly conversation: Conversation;
}

/**
 * Masks tool results outside the rounds `mode`'s planner keeps verbatim. Deterministic, never
 * mutates its input, idempotent (placeholders, and results the last-resort elision already
 * removed, are never masked again). User messages, summaries, responses and arguments are never
 * touched; call ids stay, so every call keeps exactly one result. Calls without a result are left
 * without one. `countTokens` should be the renderer's cached counter: the results are the strings
 * it has already counted, so only the short placeholders are new to it.
 */
export function maskOldToolResults(conversation: Conversation, mode: SummarizationMode, countTokens: (text: string) => number, options: MaskOptions = {}): MaskResult {
	const flat = flattenRounds(conversation);
	const from = newestSummaryIndex(flat) + 1;
	let keptRoundCount: number;
	try {
		keptRoundCount = planSummarization(conversation, mode).keepRoundIds.length;
	} catch (error) {
		if (!(error instanceof NothingToSummarizeError)) {
			throw error;
		}
		// The planner would summarize nothing: every unsummarized round is kept verbatim.
		return { conversation, maskedCalls: 0, duplicateCalls: 0, freedTokens: 0, keptRoundCount: flat.length - from };
	}
	const to = flat.length - keptRoundCount;

	const visible = [...resultSlots(flat, from, flat.length, isPlaceholderResult)];
	const twins = newerTwins(visible);
	const maskable = visible.filter(slot => slot.flatIndex < to);
	const ordered = [...maskable.filter(slot => twins.has(slot)), ...maskable.filter(slot => !twins.has(slot))];

	const taken = takeReplacements(ordered, options.targetTokens ?? Infinity, countTokens, (slot, tokens) => {
		const twin = twins.get(slot);
		return twin ? duplicatePlaceholder(slot.call, tokens, twin.call.id) : maskedPlaceholder(slot.call, tokens);
	});
	return {
		conversation: applyReplacements(conversation, flat, taken),
		maskedCalls: taken.count,
		duplicateCalls: taken.taken.filter(slot => twins.has(slot)).length,
		freedTokens: taken.freedTokens,
		keptRoundCount,
	};
}

/**
 * For each call that has a newer call with the same tool, arguments and result, the newest such
 * call. Grouped by tool and arguments first, so large results are only compared within a group.
 */
function newerTwins(slots: readonly ResultSlot[]): Map<ResultSlot, ResultSlot> {
	const twins = new Map<ResultSlot, ResultSlot>();
	const newestByCall = new Map<string, ResultSlot[]>();
	for (let i = slots.length - 1; i >= 0; i--) {
		const slot = slots[i];
		const key = slot.call.name + '\u0000' + slot.call.arguments;
		const newer = newestByCall.get(key);
		const twin = newer?.find(other => other.call.result === slot.call.result);
		if (twin) {
			twins.set(slot, twin);
		} else if (newer) {
			newer.push(slot);
		} else {
			newestByCall.set(key, [slot]);
		}
	}
	return twins;
}
