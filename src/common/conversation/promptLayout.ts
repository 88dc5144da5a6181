// The order in which a conversation reaches the prompt, as plain data.
// The prompt-tsx components in src/prompts render these entries; keeping the
// order here makes it testable without a renderer.
//
// Rules (seed 003 and 004, docs/decisions.md):
// - every user request stays verbatim, in conversation order, summarized or not;
// - only the newest summary is rendered, at the position of the round it is anchored on:
//   it absorbed the earlier summaries when it was written, so nothing is lost and nothing repeats;
// - every round after the newest summary is rendered verbatim, in order.
import { hasUnansweredCalls, type Conversation, type Round } from './conversation';
import { flattenRounds, newestSummaryIndex } from './flatten';
import type { RoundLocation } from '../planning/plan';

export type PromptEntry =
	/** The user message of past turn `turnIndex`. */
	| { readonly kind: 'user'; readonly turnIndex: number; readonly text: string }
	/** The place of the request in progress (the renderer adds its prompt and references). */
	| { readonly kind: 'request' }
	/** The newest summary, standing in for its anchor round and everything before it. */
	| { readonly kind: 'summary'; readonly roundId: string; readonly text: string; readonly location: RoundLocation }
	/** A round kept verbatim. `interrupted` when some of its calls have no result. */
	| { readonly kind: 'round'; readonly round: Round; readonly location: RoundLocation; readonly interrupted: boolean };

export function layoutPrompt(conversation: Conversation): PromptEntry[] {
	const flat = flattenRounds(conversation);
	const summaryAt = newestSummaryIndex(flat);
	const entries: PromptEntry[] = [];
	let flatIndex = 0;

	const pushRounds = (count: number) => {
		for (let i = 0; i < count; i++, flatIndex++) {
			const at = flat[flatIndex];
			if (flatIndex < summaryAt) {
				continue;
			}
			const location: RoundLocation = { source: at.source, turnIndex: at.turnIndex, roundIndex: at.roundIndex };
			if (flatIndex === summaryAt) {
				entries.push({ kind: 'summary', roundId: at.round.id, text: at.round.summary!, location });
			} else {
				entries.push({ kind: 'round', round: at.round, location, interrupted: hasUnansweredCalls(at.round) });
			}
		}
	};

	conversation.turns.forEach((turn, turnIndex) => {
		entries.push({ kind: 'user', turnIndex, text: turn.user });
		pushRounds(turn.rounds.length);
	});
	entries.push({ kind: 'request' });
	pushRounds(conversation.activeRounds.length);
	return entries;
}
