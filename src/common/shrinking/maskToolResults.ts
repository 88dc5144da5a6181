// Masking old tool results before any summary (cheap first): observation masking. Before paying for a summary,
// free space by replacing the results of older tool calls with a one-line placeholder that names
// the call, its size, and how to get it back. "Older" means outside the rounds the active planner
// would keep verbatim (the same boundary a summary would use: for half-context the newer half of
// the unsummarized rounds, for legacy the last round), so masking never reaches a round the
// summarizer would have kept. An older call with the same tool, arguments and result as a newer
// one is masked first and points at the newer one: dropping it loses nothing.
//
// Masking must not starve the summarizer: if the older rounds (their responses, arguments and
// placeholders) grew past what one summarizer prompt can take, no summary could ever be made and
// the prompt would end over budget. So masking frees enough to keep that older part under a
// limit, or declines and leaves the work to the summarizer (see maskForOverflow).
// The overflow pipeline's first stage calls it (FitRun.mask in src/common/fitting/fitPrompt.ts).
import type { Conversation } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../conversation/flatten';
import type { SummarizationMode } from '../planning/plan';
import { planOrNothing, type PlanOptions } from '../planning/planners';
import { roundTokens } from '../tokens/roundTokens';
import { duplicatePlaceholder, isPlaceholderResult, maskedPlaceholder } from '../conversation/toolResultPlaceholders';
import { applyReplacements, resultSlots, takeReplacements, type ResultSlot } from './toolResultReplacement';

export interface MaskOptions {
	/** The planner's options (token-aware split, minRecentRounds), so the kept part is the one the planner keeps. */
	readonly planOptions?: PlanOptions;
	/**
	 * Stop once at least this many tokens are freed (oldest results first, duplicates before
	 * everything else). Omitted: mask every result outside the kept rounds.
	 */
	readonly targetTokens?: number;
	/**
	 * The most the rounds outside the kept part (as rendered after masking) may hold. Masking
	 * frees more than `targetTokens` when needed to get under it, and masks nothing
	 * (`declined`) when even masking every result there would not: then only a summary helps,
	 * and it must be made while the summarizer can still take those rounds. Omitted: no limit.
	 */
	readonly maxOlderPartTokens?: number;
}

/** Share of the message budget freed beyond the overflow, so the next round does not overflow at once. */
export const MASK_MARGIN_SHARE = 0.05;
/**
 * Share of the message budget the masked older rounds may fill. The summarizer takes them in one
 * prompt of about the window, next to its instructions and the previous summary (up to a tenth of
 * the message budget, budget.ts): half leaves room for both.
 */
export const MASKED_OLDER_PART_MAX_SHARE = 0.5;

export interface MaskStats {
	/** Results replaced by a placeholder by this call, duplicates included. */
	readonly maskedCalls: number;
	/** Of `maskedCalls`, older exact duplicates of a newer call (same tool, arguments and result). */
	readonly duplicateCalls: number;
	/** Tokens of the masked results minus tokens of their placeholders (by the given counter). */
	readonly freedTokens: number;
	/** Rounds the active planner keeps verbatim: never masked. */
	readonly keptRoundCount: number;
	/** Tokens of the rounds outside the kept part, after this masking (parts counted one by one, see roundTokens.ts). */
	readonly olderPartTokens: number;
	/** Set when nothing was masked because the older part would stay over `maxOlderPartTokens`. */
	readonly declined?: 'older-part-too-large';
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
export function maskOldToolResults(
	conversation: Conversation,
	mode: SummarizationMode,
	countTokens: (text: string) => number,
	options: MaskOptions = {},
): MaskResult {
	const flat = flattenRounds(conversation);
	const from = newestSummaryIndex(flat) + 1;
	const plan = planOrNothing(conversation, mode, options.planOptions);
	if (!plan) {
		// The planner would summarize nothing: every unsummarized round is kept verbatim.
		return { conversation, maskedCalls: 0, duplicateCalls: 0, freedTokens: 0, keptRoundCount: flat.length - from, olderPartTokens: 0 };
	}
	const keptRoundCount = plan.keepRoundIds.length;
	const to = flat.length - keptRoundCount;
	let olderPartTokens = 0;
	for (let i = from; i < to; i++) {
		olderPartTokens += roundTokens(flat[i].round, countTokens);
	}
	const limit = options.maxOlderPartTokens ?? Infinity;
	const target = Math.max(options.targetTokens ?? Infinity, olderPartTokens - limit);

	const visible = [...resultSlots(flat, from, flat.length, isPlaceholderResult)];
	const twins = newerTwins(visible);
	const maskable = visible.filter(slot => slot.flatIndex < to);
	const ordered = [...maskable.filter(slot => twins.has(slot)), ...maskable.filter(slot => !twins.has(slot))];

	const taken = takeReplacements(ordered, target, countTokens, (slot, tokens) => {
		const twin = twins.get(slot);
		return twin ? duplicatePlaceholder(slot.call, tokens, twin.call.id) : maskedPlaceholder(slot.call, tokens);
	});
	if (olderPartTokens - taken.freedTokens > limit) {
		return { conversation, maskedCalls: 0, duplicateCalls: 0, freedTokens: 0, keptRoundCount, olderPartTokens, declined: 'older-part-too-large' };
	}
	return {
		conversation: applyReplacements(conversation, flat, taken),
		maskedCalls: taken.count,
		duplicateCalls: taken.taken.filter(slot => twins.has(slot)).length,
		freedTokens: taken.freedTokens,
		keptRoundCount,
		olderPartTokens: olderPartTokens - taken.freedTokens,
	};
}

/**
 * The masking step of the agent's render loop, with Longhaul's margins: frees at least
 * `overflowTokens` plus {@link MASK_MARGIN_SHARE} of the message budget, keeping the older part
 * under {@link MASKED_OLDER_PART_MAX_SHARE} of it. `maskedCalls === 0` means: summarize instead.
 */
export function maskForOverflow(
	conversation: Conversation,
	mode: SummarizationMode,
	countTokens: (text: string) => number,
	messageBudget: number,
	overflowTokens: number,
	planOptions: PlanOptions = {},
): MaskResult {
	return maskOldToolResults(conversation, mode, countTokens, {
		planOptions,
		targetTokens: Math.max(0, overflowTokens) + Math.ceil(messageBudget * MASK_MARGIN_SHARE),
		maxOlderPartTokens: Math.floor(messageBudget * MASKED_OLDER_PART_MAX_SHARE),
	});
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
