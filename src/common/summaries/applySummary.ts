// Turning a plan and its summary texts into per-turn summary blocks (docs/decisions.md decision 3), without touching
// the input. Everything that produces a summary goes through here: the agent's compaction, a
// summary prepared in the background, the benchmark, and the deterministic "older rounds were
// dropped" note. A plan that spans several turns becomes one block per turn, in order; the first
// block absorbs its turn's existing block when the plan continues that turn (plan.previousSummary);
// blocks of earlier turns are never touched (summaryBlocks.ts).
import type { Conversation, Round, Turn } from '../conversation/conversation';
import { flattenRounds, type FlatRound } from '../conversation/flatten';
import { blockTurnIndex } from '../conversation/summaryBlocks';
import type { SummarizationPlan } from '../planning/plan';

/**
 * A summary block made (or condensed) during one request, anchored on a round of that request or
 * of an earlier turn. A later record's block on the same round replaces it (a condensed version,
 * or a block that absorbed it); the earlier text stays stored in its own record.
 */
export interface StoredSummaryBlock {
	readonly roundId: string;
	readonly text: string;
	readonly condensed?: boolean;
	/** Absorbed every earlier round and summary (0.1.0 summaries, and blocks that absorbed one). */
	readonly spansTurns?: boolean;
	/** The user wrote this text (an edit saved from the summary document). */
	readonly edited?: boolean;
	/** A model wrote this text from the user's edited text (Round.summaryBuildsOnEdit). */
	readonly buildsOnEdit?: boolean;
	/** The summary on this round was taken away (restored: its rounds are back word for word); `text` is empty. */
	readonly removed?: boolean;
}

export class UnknownRoundError extends Error {
	readonly code = 'unknown-round';
	constructor(readonly roundId: string) {
		super(`No round with id "${roundId}" in the conversation.`);
		this.name = 'UnknownRoundError';
	}
}

/** One turn's part of a plan: the rounds of that turn it summarizes, which become one block. */
export interface BlockSegment {
	/** Past turns 0…n−1, the request in progress n (summaryBlocks.ts). */
	readonly turnIndex: number;
	/** The rounds of this turn the plan summarizes, oldest first. */
	readonly roundIds: readonly string[];
	/** The newest of them: the new block is anchored on it. */
	readonly anchorRoundId: string;
	/** The turn's existing block, which the new one absorbs (only ever the first segment's). */
	readonly absorbs?: {
		readonly roundId: string;
		readonly text: string;
		readonly spansTurns: boolean;
		/** The absorbed block is the user's edit, or was written from one: the new block builds on it. */
		readonly fromEdit: boolean;
	};
}

/** The per-turn segments of a plan, oldest first. Throws {@link UnknownRoundError} for an id not in the conversation. */
export function blockSegments(conversation: Conversation, plan: Pick<SummarizationPlan, 'summarizeRoundIds' | 'previousSummary'>): BlockSegment[] {
	const flat = flattenRounds(conversation);
	const byId = new Map<string, FlatRound>();
	for (const at of flat) byId.set(at.round.id, at);
	const turnCount = conversation.turns.length;
	const segments: { turnIndex: number; roundIds: string[] }[] = [];
	for (const id of plan.summarizeRoundIds) {
		const at = byId.get(id);
		if (!at) throw new UnknownRoundError(id);
		const turnIndex = blockTurnIndex(at, turnCount);
		const last = segments[segments.length - 1];
		if (last && last.turnIndex === turnIndex) last.roundIds.push(id);
		else segments.push({ turnIndex, roundIds: [id] });
	}
	const previous = plan.previousSummary ? byId.get(plan.previousSummary.roundId) : undefined;
	return segments.map((s, i) => {
		const absorbs =
			i === 0 && previous && plan.previousSummary && blockTurnIndex(previous, turnCount) === s.turnIndex
				? {
						roundId: previous.round.id,
						text: plan.previousSummary.text,
						spansTurns: previous.round.summarySpansTurns === true,
						fromEdit: previous.round.summaryEdited === true || previous.round.summaryBuildsOnEdit === true,
					}
				: undefined;
		return { turnIndex: s.turnIndex, roundIds: s.roundIds, anchorRoundId: s.roundIds[s.roundIds.length - 1], ...(absorbs ? { absorbs } : {}) };
	});
}

export class BlockCountError extends Error {
	readonly code = 'block-count';
	constructor(
		readonly expected: number,
		readonly got: number,
	) {
		super(`The plan spans ${expected} turn${expected === 1 ? '' : 's'} and needs one summary text per turn; got ${got}.`);
		this.name = 'BlockCountError';
	}
}

/**
 * A new conversation in which the plan's rounds are covered by one block per turn: `texts[i]` is the
 * summary of segment i of {@link blockSegments} (oldest turn first). A block that absorbs a 0.1.0
 * summary stands for all it stood for (`summarySpansTurns`); one that absorbs the user's edit (or a
 * block written from one) is marked as building on it (`summaryBuildsOnEdit`). Only the paths to the anchors are
 * copied. Throws {@link BlockCountError} when the counts differ, {@link UnknownRoundError} for an
 * unknown round.
 */
export function applySummaryBlocks(
	conversation: Conversation,
	plan: Pick<SummarizationPlan, 'summarizeRoundIds' | 'previousSummary'>,
	texts: readonly string[],
): Conversation {
	const segments = blockSegments(conversation, plan);
	if (texts.length !== segments.length) throw new BlockCountError(segments.length, texts.length);
	const changes = new Map<string, (round: Round) => Round>();
	segments.forEach((segment, i) => {
		const spansTurns = segment.absorbs?.spansTurns === true;
		const buildsOnEdit = segment.absorbs?.fromEdit === true;
		changes.set(segment.anchorRoundId, round => withSummary(round, texts[i], { spansTurns, buildsOnEdit }));
	});
	return updateRounds(conversation, changes);
}

/**
 * A new conversation with `changes` applied to the rounds they name. Only the paths to those rounds
 * are copied (their rounds arrays, turns and the turns array); everything else is shared. Throws
 * {@link UnknownRoundError} when a round is not found.
 */
export function updateRounds(conversation: Conversation, changes: ReadonlyMap<string, (round: Round) => Round>): Conversation {
	const left = new Set(changes.keys());
	const change = (rounds: readonly Round[]): readonly Round[] => {
		let copy: Round[] | undefined;
		rounds.forEach((round, i) => {
			const f = changes.get(round.id);
			if (!f || !left.has(round.id)) return;
			left.delete(round.id);
			copy ??= rounds.slice();
			copy[i] = f(round);
		});
		return copy ?? rounds;
	};
	const activeRounds = change(conversation.activeRounds);
	let turns: Turn[] | undefined;
	for (let t = conversation.turns.length - 1; t >= 0 && left.size > 0; t--) {
		const turn = conversation.turns[t];
		const rounds = change(turn.rounds);
		if (rounds !== turn.rounds) {
			turns ??= conversation.turns.slice();
			turns[t] = { ...turn, rounds };
		}
	}
	if (left.size > 0) throw new UnknownRoundError([...left][0]);
	return { turns: turns ?? conversation.turns, activeRounds };
}

/** The flags a summary block carries besides its text. */
export interface SummaryFlags {
	readonly condensed?: boolean;
	readonly spansTurns?: boolean;
	readonly edited?: boolean;
	readonly buildsOnEdit?: boolean;
}

/** The round carrying `text` as its summary, with exactly the given flags (`edited` wins over `buildsOnEdit`). */
export function withSummary(round: Round, text: string, flags: SummaryFlags = {}): Round {
	const next: Round = {
		id: round.id,
		response: round.response,
		...(round.thinking !== undefined ? { thinking: round.thinking } : {}),
		toolCalls: round.toolCalls,
	};
	return {
		...next,
		summary: text,
		...(flags.condensed ? { summaryCondensed: true } : {}),
		...(flags.spansTurns ? { summarySpansTurns: true } : {}),
		...(flags.edited ? { summaryEdited: true } : {}),
		...(flags.buildsOnEdit && !flags.edited ? { summaryBuildsOnEdit: true } : {}),
	};
}

/** The round without a summary (a restored block: its rounds are back in the prompt word for word). */
export function withoutSummary(round: Round): Round {
	return { id: round.id, response: round.response, ...(round.thinking !== undefined ? { thinking: round.thinking } : {}), toolCalls: round.toolCalls };
}
