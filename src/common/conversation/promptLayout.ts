// The order in which a conversation reaches the prompt, as plain data.
// The prompt-tsx components in src/prompts render these entries; keeping the
// order here makes it testable without a renderer.
//
// Rules (docs/decisions.md decision 3):
// - every user request stays verbatim, in conversation order, summarized or not;
// - each turn's summary block (summaryBlocks.ts) comes right after that turn's user message (or,
//   for the request in progress, right after the request), where the first round it replaces
//   was: `[user1] [summary1] [user2] [summary2] … [userN] [live rounds]`;
// - every round after the newest summary is rendered verbatim, in order;
// - when the user messages of past turns together pass a share of the window (a day-long chat of
//   long pasted requests), the requests of turns whose rounds are all summarized are shortened to
//   their first lines, oldest first, with a note: their work is in the block that follows them.
//   The request in progress and turns with verbatim rounds are never shortened.
import { hasUnansweredCalls, type Conversation, type Round } from './conversation';
import { flattenRounds, newestSummaryIndex } from './flatten';
import { blocksOf, type SummaryBlock } from './summaryBlocks';
import type { RoundLocation } from './conversation';
import { firstLines } from '../text/cutText';

/** Share of the message budget the user messages of past turns may hold before summarized ones are shortened. */
export const OLDER_REQUESTS_SHARE = 0.2;
/** What a shortened request keeps: its first lines, up to this many tokens. */
export const SHORTENED_REQUEST_TOKENS = 200;

/** The `olderRequestsMaxTokens` of a prompt with this message budget. */
export function olderRequestsBudget(messageBudget: number): number {
	return Math.floor(messageBudget * OLDER_REQUESTS_SHARE);
}

/** The note a shortened request ends with. */
export function shortenedRequestNote(leftOut: number): string {
	return `[Request shortened to fit the context window: ${leftOut} more tokens left out. The work done for it is summarized right after it.]`;
}

export interface LayoutOptions {
	/** The most the user messages of past turns may hold (OLDER_REQUESTS_SHARE of the message budget); without it, none is shortened. */
	readonly olderRequestsMaxTokens?: number;
	readonly countTokens?: (text: string) => number;
}

export type PromptEntry =
	/** The user message of past turn `turnIndex`; `shortened` when only its first lines are shown. */
	| { readonly kind: 'user'; readonly turnIndex: number; readonly text: string; readonly shortened?: boolean }
	/** The place of the request in progress (the renderer adds its prompt and references). */
	| { readonly kind: 'request' }
	/** A turn's summary block (summaryBlocks.ts), standing in for the rounds it covers. `roundId` is its anchor. */
	| {
			readonly kind: 'summary';
			readonly roundId: string;
			readonly text: string;
			readonly location: RoundLocation;
			readonly condensed?: boolean;
			/** The user wrote its text (a saved edit). */
			readonly edited?: boolean;
	  }
	/** A round kept verbatim. `interrupted` when some of its calls have no result. */
	| { readonly kind: 'round'; readonly round: Round; readonly location: RoundLocation; readonly interrupted: boolean };

export function layoutPrompt(conversation: Conversation, options: LayoutOptions = {}): PromptEntry[] {
	const flat = flattenRounds(conversation);
	const covered = newestSummaryIndex(flat);
	const turnCount = conversation.turns.length;
	const blockOf = new Map<number, SummaryBlock>();
	for (const block of blocksOf(flat, turnCount)) blockOf.set(block.turnIndex, block);
	const users = shownRequests(conversation, covered, blockOf, options);
	const entries: PromptEntry[] = [];
	let flatIndex = 0;

	const pushTurn = (turnIndex: number, count: number) => {
		const block = blockOf.get(turnIndex);
		if (block) {
			entries.push({
				kind: 'summary',
				roundId: block.roundId,
				text: block.text,
				location: block.anchor,
				...(block.condensed ? { condensed: true } : {}),
				...(block.edited ? { edited: true } : {}),
			});
		}
		for (let i = 0; i < count; i++, flatIndex++) {
			if (flatIndex <= covered) continue;
			const at = flat[flatIndex];
			const location: RoundLocation = { source: at.source, turnIndex: at.turnIndex, roundIndex: at.roundIndex };
			entries.push({ kind: 'round', round: at.round, location, interrupted: hasUnansweredCalls(at.round) });
		}
	};

	conversation.turns.forEach((turn, turnIndex) => {
		const text = users[turnIndex];
		entries.push({ kind: 'user', turnIndex, text, ...(text !== turn.user ? { shortened: true } : {}) });
		pushTurn(turnIndex, turn.rounds.length);
	});
	entries.push({ kind: 'request' });
	pushTurn(turnCount, conversation.activeRounds.length);
	return entries;
}

/** The user message each past turn shows: verbatim, or shortened when older requests crowd the window. */
function shownRequests(conversation: Conversation, covered: number, blockOf: ReadonlyMap<number, SummaryBlock>, options: LayoutOptions): string[] {
	const users = conversation.turns.map(t => t.user);
	const { olderRequestsMaxTokens: max, countTokens } = options;
	if (max === undefined || !countTokens) return users;
	let total = users.reduce((n, u) => n + countTokens(u), 0);
	let roundsBefore = 0;
	conversation.turns.forEach((turn, t) => {
		roundsBefore += turn.rounds.length;
		// Only a turn whose every round is summarized: its block carries the work.
		if (total <= max || turn.rounds.length === 0 || roundsBefore - 1 > covered || !blockOf.has(t)) return;
		const tokens = countTokens(turn.user);
		if (tokens <= SHORTENED_REQUEST_TOKENS) return;
		const head = firstLines(turn.user, SHORTENED_REQUEST_TOKENS, countTokens);
		const shortened = `${head}\n${shortenedRequestNote(tokens - countTokens(head))}`;
		total += countTokens(shortened) - tokens;
		users[t] = shortened;
	});
	return users;
}
