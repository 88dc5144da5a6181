// The order in which a conversation reaches the prompt, as plain data.
// The prompt-tsx components in src/prompts render these entries; keeping the
// order here makes it testable without a renderer.
//
// Rules (seed 003 and 004, docs/decisions.md decision 3):
// - every user request stays verbatim, in conversation order, summarized or not;
// - each turn's summary block (summaryBlocks.ts) comes right after that turn's user message (or,
//   for the request in progress, right after the request), where the first round it replaces
//   was: `[user1] [summary1] [user2] [summary2] … [userN] [live rounds]`;
// - every round after the newest summary is rendered verbatim, in order.
import { hasUnansweredCalls, type Conversation, type Round } from './conversation';
import { flattenRounds, newestSummaryIndex } from './flatten';
import { blocksOf, type SummaryBlock } from './summaryBlocks';
import type { RoundLocation } from '../planning/plan';

export type PromptEntry =
	/** The user message of past turn `turnIndex`. */
	| { readonly kind: 'user'; readonly turnIndex: number; readonly text: string }
	/** The place of the request in progress (the renderer adds its prompt and references). */
	| { readonly kind: 'request' }
	/** A turn's summary block (summaryBlocks.ts), standing in for the rounds it covers. `roundId` is its anchor. */
	| { readonly kind: 'summary'; readonly roundId: string; readonly text: string; readonly location: RoundLocation; readonly condensed?: boolean }
	/** A round kept verbatim. `interrupted` when some of its calls have no result. */
	| { readonly kind: 'round'; readonly round: Round; readonly location: RoundLocation; readonly interrupted: boolean };

export function layoutPrompt(conversation: Conversation): PromptEntry[] {
	const flat = flattenRounds(conversation);
	const covered = newestSummaryIndex(flat);
	const turnCount = conversation.turns.length;
	const blockOf = new Map<number, SummaryBlock>();
	for (const block of blocksOf(flat, turnCount)) blockOf.set(block.turnIndex, block);
	const entries: PromptEntry[] = [];
	let flatIndex = 0;

	const pushTurn = (turnIndex: number, count: number) => {
		const block = blockOf.get(turnIndex);
		if (block) {
			entries.push({ kind: 'summary', roundId: block.roundId, text: block.text, location: block.anchor, ...(block.condensed ? { condensed: true } : {}) });
		}
		for (let i = 0; i < count; i++, flatIndex++) {
			if (flatIndex <= covered) continue;
			const at = flat[flatIndex];
			const location: RoundLocation = { source: at.source, turnIndex: at.turnIndex, roundIndex: at.roundIndex };
			entries.push({ kind: 'round', round: at.round, location, interrupted: hasUnansweredCalls(at.round) });
		}
	};

	conversation.turns.forEach((turn, turnIndex) => {
		entries.push({ kind: 'user', turnIndex, text: turn.user });
		pushTurn(turnIndex, turn.rounds.length);
	});
	entries.push({ kind: 'request' });
	pushTurn(turnCount, conversation.activeRounds.length);
	return entries;
}
