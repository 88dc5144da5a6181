// Which rounds a recall may read: those a summary (or a note about dropped rounds) replaced in
// the prompt, and those whose tool results the prompt shows masked or elided (the placeholder's
// round is there, its output is not), numbered the way recall shows them.
import type { Conversation, Round } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../conversation/flatten';
import { isPlaceholderResult } from '../conversation/toolResultPlaceholders';

export interface SummarizedRound {
	/** 1-based position among all rounds of the conversation (stable while the conversation grows). */
	readonly number: number;
	/** 1-based number of the user request the round answered. */
	readonly request: number;
	readonly round: Round;
}

export interface RecallableRounds {
	/** Rounds replaced by a summary, or shown with a masked or elided result, oldest first. */
	readonly summarized: readonly SummarizedRound[];
	/** All rounds of the conversation. */
	readonly total: number;
	/** The user requests, oldest first (the request in progress last, when known). */
	readonly requests: readonly string[];
}

/** The prompt shows one of the round's results as a placeholder (masked or elided). */
function hasPlaceholder(round: Round): boolean {
	return round.toolCalls.some(call => call.result !== undefined && isPlaceholderResult(call.result));
}

/** Recall has something to give: a summary, or a masked or elided tool result. */
export function hasRecallableRounds(conversation: Conversation): boolean {
	const flat = flattenRounds(conversation);
	return newestSummaryIndex(flat) !== -1 || flat.some(f => hasPlaceholder(f.round));
}

/**
 * The recallable rounds of `conversation` (as the prompt shows it): every round up to and
 * including the newest one that carries a summary, and every later round with a masked or elided
 * result. `currentRequest` is the text of the request in progress (its rounds are the active
 * ones); `recorded` its rounds as recorded, by id, read in their place (withRecordedRounds).
 */
export function recallableRounds(conversation: Conversation, currentRequest?: string, recorded?: ReadonlyMap<string, Round>): RecallableRounds {
	const flat = flattenRounds(conversation);
	const read = flattenRounds(withRecordedRounds(conversation, recorded ?? new Map()));
	const newest = newestSummaryIndex(flat);
	const summarized = flat.flatMap((f, i): SummarizedRound[] =>
		i <= newest || hasPlaceholder(f.round)
			? [{ number: i + 1, request: f.source === 'history' ? f.turnIndex + 1 : conversation.turns.length + 1, round: read[i].round }]
			: [],
	);
	const requests = conversation.turns.map(t => t.user);
	if (currentRequest !== undefined) requests.push(currentRequest);
	return { summarized, total: flat.length, requests };
}

/**
 * The conversation with the request's own rounds as they were recorded (`recorded`, by round id)
 * rather than as the prompt last showed them, and past turns' replaced results given back (each
 * call's `recorded`): masking and elision replace tool results in the prompt, recall gives them
 * back. Summaries stay where the conversation has them.
 */
export function withRecordedRounds(conversation: Conversation, recorded: ReadonlyMap<string, Round>): Conversation {
	const turns = conversation.turns.map(turn => (turn.rounds.some(hasRecordedResult) ? { ...turn, rounds: turn.rounds.map(withRecordedResults) } : turn));
	return {
		turns,
		activeRounds: conversation.activeRounds.map(round => {
			const original = recorded.get(round.id);
			if (!original) return withRecordedResults(round);
			return round.summary === undefined ? original : { ...original, summary: round.summary };
		}),
	};
}

const hasRecordedResult = (round: Round) => round.toolCalls.some(call => call.recorded !== undefined);

/** The round with each replaced result given back (`recorded`, stored with past turns). */
function withRecordedResults(round: Round): Round {
	if (!hasRecordedResult(round)) return round;
	return { ...round, toolCalls: round.toolCalls.map(({ recorded, ...call }) => (recorded === undefined ? call : { ...call, result: recorded })) };
}
