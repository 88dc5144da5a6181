// Round flattening: every round of the conversation in chronological order,
// each with where it came from. References only, nothing is copied.
import type { Conversation, Round, Turn } from './conversation';
import type { RoundLocation } from './conversation';

export interface FlatRound extends RoundLocation {
	readonly round: Round;
	/** The past turn the round belongs to; undefined for active rounds. */
	readonly turn?: Turn;
}

/** All rounds, past turns oldest first, then the active rounds. Reads each turn's rounds once. */
export function flattenRounds(conversation: Conversation): FlatRound[] {
	const flat: FlatRound[] = [];
	const turns = conversation.turns;
	for (let turnIndex = 0; turnIndex < turns.length; turnIndex++) {
		const turn = turns[turnIndex];
		const rounds = turn.rounds;
		for (let roundIndex = 0; roundIndex < rounds.length; roundIndex++) {
			flat.push({ source: 'history', turnIndex, roundIndex, round: rounds[roundIndex], turn });
		}
	}
	const active = conversation.activeRounds;
	for (let roundIndex = 0; roundIndex < active.length; roundIndex++) {
		flat.push({ source: 'active', turnIndex: -1, roundIndex, round: active[roundIndex] });
	}
	return flat;
}

/**
 * Index in `flat` of the newest round that carries a summary, or -1. That round and
 * everything before it are already covered by its summary.
 */
export function newestSummaryIndex(flat: readonly FlatRound[]): number {
	for (let i = flat.length - 1; i >= 0; i--) {
		if (flat[i].round.summary !== undefined) {
			return i;
		}
	}
	return -1;
}

/** The rounds after the newest summary: the only ones a planner may summarize or keep. */
export function unsummarizedRounds(flat: readonly FlatRound[]): readonly FlatRound[] {
	return flat.slice(newestSummaryIndex(flat) + 1);
}
