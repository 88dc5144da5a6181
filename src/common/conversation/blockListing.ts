// What `/context` lists about the summary blocks: one row per block, in conversation order, with
// the request it belongs to, the rounds it stands for and its size.
import type { Conversation } from './conversation';
import { flattenRounds } from './flatten';
import { blockTurnIndex, summaryBlocks, type SummaryBlock } from './summaryBlocks';

export interface BlockRow {
	readonly block: SummaryBlock;
	/** 1-based request number as the user sees it; the request in progress is the last. */
	readonly request: number;
	readonly current: boolean;
	/** The rounds it stands for, 1-based within its request; `fromEarlier` when it also stands for rounds of earlier requests (0.1.0). */
	readonly firstRound: number;
	readonly lastRound: number;
	readonly roundCount: number;
	readonly fromEarlier: boolean;
	/** Tokens of its text (and of the condensed note, when condensed). */
	readonly tokens: number;
}

export function blockRows(conversation: Conversation, tokensOf: (block: SummaryBlock) => number): BlockRow[] {
	const flat = flattenRounds(conversation);
	const at = new Map(flat.map(f => [f.round.id, f]));
	const turns = conversation.turns.length;
	return summaryBlocks(conversation).map(block => {
		const own = block.roundIds.map(id => at.get(id)!).filter(f => blockTurnIndex(f, turns) === block.turnIndex);
		return {
			block,
			request: block.turnIndex + 1,
			current: block.turnIndex === turns,
			firstRound: (own[0]?.roundIndex ?? 0) + 1,
			lastRound: (own[own.length - 1]?.roundIndex ?? 0) + 1,
			roundCount: block.roundIds.length,
			fromEarlier: own.length < block.roundIds.length,
			tokens: tokensOf(block),
		};
	});
}
