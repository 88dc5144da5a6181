// Attaching a finished summary to its anchor round, without touching the input.
import type { Conversation, Round } from '../conversation/conversation';

export class UnknownRoundError extends Error {
	readonly code = 'unknown-round';
	constructor(readonly roundId: string) {
		super(`No round with id "${roundId}" in the conversation.`);
		this.name = 'UnknownRoundError';
	}
}

/**
 * A new conversation in which round `anchorRoundId` carries `summaryText`. Only the path to
 * that round is copied (the rounds array holding it and, for a past turn, the turn and the
 * turns array); everything else is shared. Throws {@link UnknownRoundError} for an unknown id.
 */
export function applySummary(conversation: Conversation, anchorRoundId: string, summaryText: string): Conversation {
	// Anchors are usually recent: look at the request in progress first, then newest turns first.
	const active = conversation.activeRounds;
	const activeIndex = active.findIndex(r => r.id === anchorRoundId);
	if (activeIndex >= 0) {
		return { turns: conversation.turns, activeRounds: withSummary(active, activeIndex, summaryText) };
	}
	const turns = conversation.turns;
	for (let t = turns.length - 1; t >= 0; t--) {
		const index = turns[t].rounds.findIndex(r => r.id === anchorRoundId);
		if (index >= 0) {
			const newTurns = turns.slice();
			newTurns[t] = { ...turns[t], rounds: withSummary(turns[t].rounds, index, summaryText) };
			return { turns: newTurns, activeRounds: active };
		}
	}
	throw new UnknownRoundError(anchorRoundId);
}

function withSummary(rounds: readonly Round[], index: number, summary: string): Round[] {
	const copy = rounds.slice();
	copy[index] = { ...rounds[index], summary };
	return copy;
}
