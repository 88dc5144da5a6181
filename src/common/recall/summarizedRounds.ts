// Which rounds a recall may read: those a summary (or a note about dropped rounds) replaced in
// the prompt, numbered the way recall shows them.
import type { Conversation, Round } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../conversation/flatten';

export interface SummarizedRound {
	/** 1-based position among all rounds of the conversation (stable while the conversation grows). */
	readonly number: number;
	/** 1-based number of the user request the round answered. */
	readonly request: number;
	readonly round: Round;
}

export interface RecallableRounds {
	/** Rounds replaced by a summary, oldest first. */
	readonly summarized: readonly SummarizedRound[];
	/** All rounds of the conversation. */
	readonly total: number;
	/** The user requests, oldest first (the request in progress last, when known). */
	readonly requests: readonly string[];
}

/**
 * The summarized rounds of `conversation`: every round up to and including the newest one that
 * carries a summary. `currentRequest` is the text of the request in progress (its rounds are the
 * active ones).
 */
export function recallableRounds(conversation: Conversation, currentRequest?: string): RecallableRounds {
	const flat = flattenRounds(conversation);
	const newest = newestSummaryIndex(flat);
	const summarized = flat
		.slice(0, newest + 1)
		.map((f, i): SummarizedRound => ({ number: i + 1, request: f.source === 'history' ? f.turnIndex + 1 : conversation.turns.length + 1, round: f.round }));
	const requests = conversation.turns.map(t => t.user);
	if (currentRequest !== undefined) requests.push(currentRequest);
	return { summarized, total: flat.length, requests };
}

/**
 * The conversation with the request's own rounds as they were recorded (`recorded`, by round id)
 * rather than as the prompt last showed them: masking and elision replace tool results in the
 * prompt, recall gives them back. Summaries stay where the conversation has them.
 */
export function withRecordedRounds(conversation: Conversation, recorded: ReadonlyMap<string, Round>): Conversation {
	if (!recorded.size) return conversation;
	return {
		turns: conversation.turns,
		activeRounds: conversation.activeRounds.map(round => {
			const original = recorded.get(round.id);
			if (!original) return round;
			return round.summary === undefined ? original : { ...original, summary: round.summary };
		}),
	};
}
