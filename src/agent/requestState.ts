import type { Conversation, Round } from '../common/conversation';

/** A summary made during this request, stored in this turn's metadata (it may anchor on an earlier turn's round). */
export interface NewSummary {
	readonly roundId: string;
	readonly text: string;
}

/** What one request accumulates while it runs; everything needed to write its metadata. */
export interface RequestState {
	conversation: Conversation;
	readonly newSummaries: NewSummary[];
	toolCallCount: number;
	maxToolCallsExceeded: boolean;
	cancelled: boolean;
	summarizations: number;
}

export function newRequestState(past: Conversation): RequestState {
	return { conversation: { turns: past.turns, activeRounds: [] }, newSummaries: [], toolCallCount: 0, maxToolCallsExceeded: false, cancelled: false, summarizations: 0 };
}

export function addActiveRound(state: RequestState, round: Round): void {
	state.conversation = { turns: state.conversation.turns, activeRounds: [...state.conversation.activeRounds, round] };
}

let counter = 0;
/** Round ids are unique across sessions and reloads: summaries are anchored on them. */
export function newRoundId(): string {
	counter = (counter + 1) % 1_000_000;
	return `r${Date.now().toString(36)}${counter.toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}
