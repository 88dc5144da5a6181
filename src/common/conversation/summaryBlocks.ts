// Summary blocks (docs/decisions.md decision 3): the summaries a prompt shows, one per turn, in conversation order.
//
// A summary is stored on the round it is anchored on (`Round.summary`). Everything up to the
// newest anchor is covered; planners only look at the rounds after it. Each turn whose rounds are
// (partly) covered has one block: the newest summary anchored in that turn. It stands for that
// turn's covered rounds and is rendered right after the turn's user message, where the first round
// it replaces was. An older summary in the same turn was absorbed by the newer one when that was
// written; blocks of other turns are kept as they are (never dropped, never moved).
//
// Summaries written by Longhaul 0.1.0 absorbed everything before them, across turns
// (`summarySpansTurns`): the newest such summary stands for every round before it, and the
// summaries before it are not shown (their content is in it).
import type { Conversation } from './conversation';
import { flattenRounds, newestSummaryIndex, type FlatRound } from './flatten';
import type { RoundLocation } from './conversation';

/** What a condensed block says about itself, ahead of its text, in the prompt. */
export const CONDENSED_NOTE =
	'[Condensed: this older summary was shortened to keep every summary within the context window. Details it no longer gives are gone; read files again rather than guessing.]';

export interface SummaryBlock {
	/** The turn the block belongs to: past turns 0…n−1, the request in progress n. */
	readonly turnIndex: number;
	/** The round it is anchored on: the newest round it stands for. */
	readonly roundId: string;
	/** Where that round is. */
	readonly anchor: RoundLocation;
	/** Every round it stands for, oldest first (its own turn's, or more for a 0.1.0 summary). */
	readonly roundIds: readonly string[];
	readonly text: string;
	readonly condensed: boolean;
	readonly spansTurns: boolean;
	/** The user wrote its text (an edit saved from the summary document). */
	readonly edited: boolean;
	/** A model wrote it from the user's edited text (Round.summaryBuildsOnEdit). */
	readonly buildsOnEdit: boolean;
}

/** The turn index of a flattened round in block numbering (the request in progress is `turns.length`). */
export function blockTurnIndex(at: Pick<FlatRound, 'source' | 'turnIndex'>, turnCount: number): number {
	return at.source === 'active' ? turnCount : at.turnIndex;
}

/** The blocks the prompt shows, oldest first (increasing turn index). */
export function summaryBlocks(conversation: Conversation): SummaryBlock[] {
	return blocksOf(flattenRounds(conversation), conversation.turns.length);
}

/** {@link summaryBlocks} over already flattened rounds. */
export function blocksOf(flat: readonly FlatRound[], turnCount: number): SummaryBlock[] {
	const newest = newestSummaryIndex(flat);
	if (newest < 0) return [];
	let from = 0;
	for (let i = newest; i >= 0; i--) {
		if (flat[i].round.summary !== undefined && flat[i].round.summarySpansTurns) {
			from = i;
			break;
		}
	}
	// The newest summary of each turn, from the newest whole-history summary on.
	const anchors: number[] = [];
	for (let i = from; i <= newest; i++) {
		if (flat[i].round.summary === undefined) continue;
		const last = anchors[anchors.length - 1];
		if (last !== undefined && sameTurn(flat[last], flat[i])) anchors[anchors.length - 1] = i;
		else anchors.push(i);
	}
	let coveredFrom = 0;
	return anchors.map(i => {
		const at = flat[i];
		const roundIds = flat.slice(coveredFrom, i + 1).map(f => f.round.id);
		coveredFrom = i + 1;
		return {
			turnIndex: blockTurnIndex(at, turnCount),
			roundId: at.round.id,
			anchor: { source: at.source, turnIndex: at.turnIndex, roundIndex: at.roundIndex },
			roundIds,
			text: at.round.summary!,
			condensed: at.round.summaryCondensed === true,
			spansTurns: at.round.summarySpansTurns === true,
			edited: at.round.summaryEdited === true,
			buildsOnEdit: at.round.summaryBuildsOnEdit === true,
		};
	});
}

function sameTurn(a: FlatRound, b: FlatRound): boolean {
	return a.source === b.source && a.turnIndex === b.turnIndex;
}
