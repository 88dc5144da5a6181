// The conversation model: past turns, the rounds the agent made in each, and the
// rounds of the request in progress. Pure data, no `vscode` import: everything
// that plans or renders a prompt works on these shapes.
import type { ProviderState } from '../provider/providerState';

/** Where a round sits: a past turn (turnIndex >= 0) or the active request (turnIndex -1). */
export interface RoundLocation {
	readonly source: 'history' | 'active';
	readonly turnIndex: number;
	readonly roundIndex: number;
}

/** One tool call a model made, and what the tool answered. */
export interface ToolCall {
	readonly id: string;
	readonly name: string;
	/** The arguments exactly as the model produced them (JSON text, possibly invalid). */
	readonly arguments: string;
	/**
	 * The tool's answer as text. `undefined` means the call never got a result
	 * (the request was cancelled or stopped while it ran): the renderer closes
	 * such a call with an "interrupted" result instead of sending it unpaired.
	 */
	readonly result?: string;
	/**
	 * The tool's answer as it came, kept when `result` was replaced to fit the window (a masked or
	 * elided placeholder, or a cut): the prompt shows `result`, longhaul_recall gives this back,
	 * also in later requests (it is stored with the turn).
	 */
	readonly recorded?: string;
}

/** One model response: its text, optional thinking, and the tool calls it made. */
export interface Round {
	/** Unique within the session; summaries are anchored on it. */
	readonly id: string;
	readonly response: string;
	readonly thinking?: string;
	readonly toolCalls: readonly ToolCall[];
	/**
	 * What the provider attached to this response for itself (stateful markers): sent back with the
	 * round while the prompt before it is unchanged, never shown, never summarized (providerState.ts).
	 */
	readonly providerState?: ProviderState;
	/**
	 * A summary block anchored on this round: in the prompt it stands, right after its turn's user
	 * message, for this round and the earlier rounds of the same turn (summaryBlocks.ts).
	 */
	readonly summary?: string;
	/** The block was condensed (shortened) to keep all blocks together within the summary budget. */
	readonly summaryCondensed?: boolean;
	/**
	 * The summary absorbed every earlier round and summary of every turn, as summaries written by
	 * Longhaul 0.1.0 did (metadata schema 1): it stands for all of them, and earlier blocks are not shown.
	 */
	readonly summarySpansTurns?: boolean;
	/** The block's text was written by the user (saved from the summary document), not by a model. */
	readonly summaryEdited?: boolean;
	/**
	 * A model wrote the block from a block the user had edited (it absorbed that text, or a block that
	 * did): the user's correction lives on in it (docs/decisions.md decision 35). Never with `summaryEdited`.
	 */
	readonly summaryBuildsOnEdit?: boolean;
	/**
	 * The block stands in for a summary still being written (the bridge's set-aside, setAside.ts):
	 * it lives only in the prompt, each fit starts without it, and it is never stored.
	 */
	readonly summaryProvisional?: boolean;
}

/** A finished request: the user's message and the rounds the agent made answering it. */
export interface Turn {
	readonly user: string;
	readonly rounds: readonly Round[];
	/** The turn ended because the per-request tool-call limit was hit. */
	readonly maxToolCallsExceeded?: boolean;
	/** The user cancelled the turn. */
	readonly cancelled?: boolean;
}

/** Past turns (oldest first) plus the rounds of the request in progress. */
export interface Conversation {
	readonly turns: readonly Turn[];
	readonly activeRounds: readonly Round[];
}

/** True when the turn was stopped from outside rather than finishing on its own. */
export function isInterruptedTurn(turn: Turn): boolean {
	return turn.maxToolCallsExceeded === true || turn.cancelled === true;
}

/** True when at least one of the round's tool calls has no result. */
export function hasUnansweredCalls(round: Round): boolean {
	return round.toolCalls.some(call => call.result === undefined);
}

/** All text of a round that reaches a prompt, for token accounting. */
export function roundText(round: Round): string {
	let text = round.response;
	if (round.thinking) {
		text += '\n' + round.thinking;
	}
	for (const call of round.toolCalls) {
		text += '\n' + call.name + ' ' + call.arguments + '\n' + (call.result ?? '');
	}
	return text;
}

/** The result the prompt gives a call that never got one, so no call is sent unpaired. */
export const INTERRUPTED_RESULT = 'No result: the call was interrupted before it finished.';
