// The step before a refusal: everything older is summarized, dropped or elided, and the newest
// round alone (a tool result near its cap, next to the summary blocks and the user's requests)
// still does not fit. Refusing would end the request over one long output the model can ask for
// again in parts; instead the newest round's longest results are cut further, head and tail kept
// with the count of what was cut (cutText.ts), never below MIN_KEPT_TOKENS each.
import type { Conversation } from '../conversation/conversation';
import { flattenRounds } from '../conversation/flatten';
import { cutToTokens } from './cutText';
import { isPlaceholderResult } from './toolResultPlaceholders';
import { applyReplacements, resultSlots, takeReplacements } from './toolResultReplacement';

/** What a cut result keeps at the least: enough of its head and tail to show what it was. */
export const MIN_KEPT_TOKENS = 256;

export interface CutNewest {
	readonly conversation: Conversation;
	readonly cutCalls: number;
	readonly freedTokens: number;
}

/** Cuts the newest round's results, longest first, until `tokensToShed` are freed; undefined when none can be cut. */
export function cutNewestResults(conversation: Conversation, tokensToShed: number, countTokens: (text: string) => number): CutNewest | undefined {
	const flat = flattenRounds(conversation);
	const slots = [...resultSlots(flat, flat.length - 1, flat.length, isPlaceholderResult)];
	const sizes = new Map(slots.map(slot => [slot, countTokens(slot.call.result!)]));
	slots.sort((a, b) => sizes.get(b)! - sizes.get(a)!);
	let stillToShed = tokensToShed;
	const taken = takeReplacements(slots, tokensToShed, countTokens, (slot, tokens) => {
		const cut = cutToTokens(slot.call.result!, Math.max(MIN_KEPT_TOKENS, tokens - stillToShed), countTokens);
		stillToShed -= tokens - countTokens(cut);
		return cut;
	});
	if (taken.count === 0) return undefined;
	return { conversation: applyReplacements(conversation, flat, taken), cutCalls: taken.count, freedTokens: taken.freedTokens };
}
