// The step before a refusal: everything older is summarized, dropped or elided, and the newest
// round alone (a tool result near its cap, next to the summary blocks and the user's requests)
// still does not fit. Refusing would end the request over one long output the model can ask for
// again in parts; instead the newest round's longest results are cut further, head and tail kept
// with the count of what was cut (cutText.ts), never below MIN_KEPT_TOKENS each. When the results
// are not enough (an agent that wrote a whole file through one call), the longest arguments of the
// newest round's calls are cut the same way: those calls already ran.
import type { Conversation, Round } from '../conversation/conversation';
import { flattenRounds, type FlatRound } from '../conversation/flatten';
import { cutArguments } from './cutArguments';
import { cutToTokens } from '../text/cutText';
import { isPlaceholderResult } from '../conversation/toolResultPlaceholders';
import { applyReplacements, resultSlots, takeReplacements } from './toolResultReplacement';

/** What a cut result keeps at the least: enough of its head and tail to show what it was. */
export const MIN_KEPT_TOKENS = 256;

export interface CutNewest {
	readonly conversation: Conversation;
	/** Calls whose result was cut. */
	readonly cutCalls: number;
	/** Calls whose arguments were cut. */
	readonly cutArguments: number;
	readonly freedTokens: number;
}

/** Cuts the newest round's results, then its calls' arguments, longest first, until `tokensToShed` are freed; undefined when none can be cut. */
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
	let freedTokens = taken.freedTokens;
	const withResults = applyReplacements(conversation, flat, taken);
	const args = freedTokens < tokensToShed ? cutNewestArguments(flattenRounds(withResults), tokensToShed - freedTokens, countTokens) : undefined;
	if (taken.count === 0 && !args) return undefined;
	freedTokens += args?.freedTokens ?? 0;
	return {
		conversation: args ? withNewestRound(withResults, args.round) : withResults,
		cutCalls: taken.count,
		cutArguments: args?.count ?? 0,
		freedTokens,
	};
}

/** The newest round with its calls' longest arguments cut until `tokensToShed` are freed. */
function cutNewestArguments(
	flat: readonly FlatRound[],
	tokensToShed: number,
	countTokens: (text: string) => number,
): { round: Round; count: number; freedTokens: number } | undefined {
	const newest = flat.at(-1)?.round;
	if (!newest) return undefined;
	const calls = newest.toolCalls.map((call, index) => ({ index, tokens: countTokens(call.arguments) })).sort((a, b) => b.tokens - a.tokens);
	const cut = new Map<number, string>();
	let freedTokens = 0;
	for (const { index, tokens } of calls) {
		if (freedTokens >= tokensToShed) break;
		const text = cutArguments(newest.toolCalls[index].arguments, tokens - (tokensToShed - freedTokens), MIN_KEPT_TOKENS, countTokens);
		const saved = text === undefined ? 0 : tokens - countTokens(text);
		if (saved <= 0) continue;
		cut.set(index, text!);
		freedTokens += saved;
	}
	if (cut.size === 0) return undefined;
	const round = { ...newest, toolCalls: newest.toolCalls.map((call, i) => (cut.has(i) ? { ...call, arguments: cut.get(i)! } : call)) };
	return { round, count: cut.size, freedTokens };
}

/** `conversation` with its newest round (the last active round, else the last round of the newest past turn with rounds) replaced. */
function withNewestRound(conversation: Conversation, round: Round): Conversation {
	if (conversation.activeRounds.length > 0) return { ...conversation, activeRounds: [...conversation.activeRounds.slice(0, -1), round] };
	let t = conversation.turns.length - 1;
	while (t >= 0 && conversation.turns[t].rounds.length === 0) t--;
	return {
		...conversation,
		turns: conversation.turns.map((turn, i) => (i === t ? { ...turn, rounds: [...turn.rounds.slice(0, -1), round] } : turn)),
	};
}
