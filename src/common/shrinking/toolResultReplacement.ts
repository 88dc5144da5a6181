// The mechanics shared by the two ways Longhaul frees space without a summary: observation
// masking (maskToolResults.ts, before summarizing) and last-resort elision (elideToolResults.ts,
// after). Both swap some tool results for a one-line placeholder (toolResultPlaceholders.ts) in a
// chosen order until enough tokens are freed, and never touch a call that has no result.
import type { Conversation, Round, ToolCall } from '../conversation/conversation';
import type { FlatRound } from '../conversation/flatten';

/** One tool call that may have its result replaced, by position in the flattened rounds. */
export interface ResultSlot {
	readonly flatIndex: number;
	readonly callIndex: number;
	readonly call: ToolCall;
}

/** What a placeholder says about the result it stands for. */
export type PlaceholderText = (slot: ResultSlot, resultTokens: number) => string;

export interface Replacements {
	/** New result text by flat index, then call index. */
	readonly byRound: ReadonlyMap<number, ReadonlyMap<number, string>>;
	readonly count: number;
	/** Tokens of the replaced results minus tokens of their placeholders. */
	readonly freedTokens: number;
	/** Slots actually replaced, in the order they were taken. */
	readonly taken: readonly ResultSlot[];
}

/**
 * Takes slots in the given order, replacing each result by its placeholder, until at least
 * `targetTokens` are freed (all slots when the target is Infinity). A slot whose placeholder
 * would not be shorter than its result is passed over. Token counts come from `countTokens`,
 * which should be the renderer's cached counter: results are the very strings it already counted.
 */
export function takeReplacements(
	slots: Iterable<ResultSlot>,
	targetTokens: number,
	countTokens: (text: string) => number,
	placeholder: PlaceholderText,
): Replacements {
	const byRound = new Map<number, Map<number, string>>();
	const taken: ResultSlot[] = [];
	let freedTokens = 0;
	for (const slot of slots) {
		if (freedTokens >= targetTokens) {
			break;
		}
		const result = slot.call.result;
		if (result === undefined) {
			continue;
		}
		const tokens = countTokens(result);
		const text = placeholder(slot, tokens);
		const saved = tokens - countTokens(text);
		if (saved <= 0) {
			continue;
		}
		let calls = byRound.get(slot.flatIndex);
		if (!calls) {
			calls = new Map();
			byRound.set(slot.flatIndex, calls);
		}
		calls.set(slot.callIndex, text);
		taken.push(slot);
		freedTokens += saved;
	}
	return { byRound, count: taken.length, freedTokens, taken };
}

/**
 * The conversation with the replacements applied. Never mutates; turns and rounds without a
 * replaced result are shared with the input, and the input itself is returned when nothing changes.
 * Call ids and names are kept, so every call stays paired with its (new) result; the result it
 * replaces is kept as the call's `recorded` (the first one, when a result is replaced twice).
 */
export function applyReplacements(conversation: Conversation, flat: readonly FlatRound[], replacements: Replacements): Conversation {
	if (replacements.count === 0) {
		return conversation;
	}
	const swapped = new Map<Round, Round>();
	for (const [flatIndex, calls] of replacements.byRound) {
		const round = flat[flatIndex].round;
		swapped.set(round, {
			...round,
			toolCalls: round.toolCalls.map((call, i) => (calls.has(i) ? { ...call, result: calls.get(i)!, recorded: call.recorded ?? call.result } : call)),
		});
	}
	const swap = (rounds: readonly Round[]) => (rounds.some(r => swapped.has(r)) ? rounds.map(r => swapped.get(r) ?? r) : rounds);
	return {
		turns: conversation.turns.map(turn => {
			const rounds = swap(turn.rounds);
			return rounds === turn.rounds ? turn : { ...turn, rounds };
		}),
		activeRounds: swap(conversation.activeRounds),
	};
}

/** Every call with a result in `flat[from, to)`, oldest first; `skip` leaves results out (placeholders). */
export function* resultSlots(flat: readonly FlatRound[], from: number, to: number, skip: (result: string) => boolean): Generator<ResultSlot> {
	for (let flatIndex = Math.max(0, from); flatIndex < Math.min(to, flat.length); flatIndex++) {
		const calls = flat[flatIndex].round.toolCalls;
		for (let callIndex = 0; callIndex < calls.length; callIndex++) {
			const call = calls[callIndex];
			if (call.result !== undefined && !skip(call.result)) {
				yield { flatIndex, callIndex, call };
			}
		}
	}
}
