// Bounded growth of summary blocks (docs/decisions.md decision 3). Blocks are never
// dropped, so over a day-long chat they add up. When all blocks together pass the summary budget,
// the oldest are condensed, oldest first and never the newest: by the model (an injected step) to
// at most a quarter of their size, and when the model fails or writes too much, deterministically
// to their first lines. A condensed block is marked, and the prompt says so (CONDENSED_NOTE). A
// block already condensed is only cut further deterministically, never below a line or two. A
// block the user edited is their words: it is condensed only after every other older block, and
// only by cutting it to its first lines (still marked as theirs), never rewritten by the model.
// Nothing is deleted: each earlier text stays stored in the record of the request that made it.
// A summary prepared in the background also prepares the condensations attaching it will need
// (prepareCondensations), so the overflow waits for neither.
import type { Conversation, Round } from '../conversation/conversation';
import { CONDENSED_NOTE, summaryBlocks, type SummaryBlock } from '../conversation/summaryBlocks';
import { firstLines } from '../text/cutText';
import { updateRounds, withSummary } from './applySummary';

/** A block condensed for the first time is asked to shrink to at most this share of its size. */
export const CONDENSE_SHARE = 0.25;
/** No block is cut below this many tokens (its first line or two). */
export const CONDENSED_FLOOR_TOKENS = 48;

/** Asks the model to shorten one block to at most `targetTokens`; undefined when it could not. */
export type CondenseBlock = (text: string, targetTokens: number) => Promise<string | undefined>;

export interface CondensedBlock {
	readonly turnIndex: number;
	readonly roundId: string;
	readonly fromTokens: number;
	readonly toTokens: number;
	/** `model`: the model's shorter text was used as it was; `first-lines`: cut deterministically. */
	readonly by: 'model' | 'first-lines';
}

export interface CondenseResult {
	readonly conversation: Conversation;
	readonly condensed: readonly CondensedBlock[];
	/** All blocks together, in tokens, after condensing (as counted by {@link blockTokens}). */
	readonly totalTokens: number;
}

/** A block's size as the prompt shows it: its text, and the note a condensed block carries. */
export function blockTokens(block: Pick<SummaryBlock, 'text' | 'condensed'>, countTokens: (text: string) => number): number {
	return countTokens(block.text) + (block.condensed ? countTokens(CONDENSED_NOTE) : 0);
}

/**
 * Condenses the oldest blocks until all of them together hold at most `budgetTokens` (or only the
 * newest and blocks at the floor are left). The input is not changed; a cancellation thrown by
 * `condense` propagates and leaves the caller's conversation as it was.
 */
export async function condenseOldestBlocks(
	conversation: Conversation,
	budgetTokens: number,
	countTokens: (text: string) => number,
	condense?: CondenseBlock,
): Promise<CondenseResult> {
	const blocks = summaryBlocks(conversation);
	const sizes = blocks.map(b => blockTokens(b, countTokens));
	let total = sizes.reduce((a, b) => a + b, 0);
	const condensed: CondensedBlock[] = [];
	const changes = new Map<string, (round: Round) => Round>();
	const noteTokens = countTokens(CONDENSED_NOTE);
	// Oldest first, the user's edited blocks after all others; never the newest.
	const order = blocks.slice(0, -1).map((_, i) => i);
	order.sort((a, b) => Number(blocks[a].edited) - Number(blocks[b].edited) || a - b);
	for (const i of order) {
		if (total <= budgetTokens) break;
		const block = blocks[i];
		const textTokens = countTokens(block.text);
		const excess = total - budgetTokens;
		// A first condensation takes the block to a quarter at most (less when the excess needs it); a
		// condensed block only loses what the excess asks for. Never below the floor.
		const wanted = block.condensed ? textTokens - excess : Math.min(Math.floor(textTokens * CONDENSE_SHARE), textTokens + noteTokens - excess);
		const target = Math.max(CONDENSED_FLOOR_TOKENS, wanted);
		// Nothing to gain: a first condensation also adds the note.
		if (target + (block.condensed ? 0 : noteTokens) >= textTokens) continue;
		let text = !block.condensed && !block.edited && condense ? await condense(block.text, target) : undefined;
		let by: CondensedBlock['by'] = 'model';
		if (text === undefined || text.trim() === '' || countTokens(text) > target) {
			text = firstLines(text?.trim() ? text : block.text, target, countTokens);
			by = 'first-lines';
		}
		const size = blockTokens({ text, condensed: true }, countTokens);
		total += size - sizes[i];
		sizes[i] = size;
		const { spansTurns, edited, buildsOnEdit } = block;
		const newText = text;
		changes.set(block.roundId, round => withSummary(round, newText, { condensed: true, spansTurns, edited, buildsOnEdit }));
		condensed.push({ turnIndex: block.turnIndex, roundId: block.roundId, fromTokens: textTokens, toTokens: countTokens(text), by });
	}
	return { conversation: changes.size ? updateRounds(conversation, changes) : conversation, condensed, totalTokens: total };
}

/** What the model wrote when asked ahead to shorten a block, and the target it was given. */
export interface CondensedAhead {
	readonly text: string;
	readonly targetTokens: number;
}

/** Older blocks shortened ahead of an overflow (by a background summary's job), by the block's text. */
export type PreparedCondensations = ReadonlyMap<string, CondensedAhead>;

/**
 * The condensations that condensing the blocks of `conversation` (a summary just attached) would
 * ask the model for, made now: each block's text with what the model wrote for it. Nothing is
 * changed; the deterministic cuts (of a text over its target) are left to the moment the blocks
 * are really condensed.
 */
export async function prepareCondensations(
	conversation: Conversation,
	budgetTokens: number,
	countTokens: (text: string) => number,
	condense: CondenseBlock,
): Promise<PreparedCondensations> {
	const made = new Map<string, CondensedAhead>();
	await condenseOldestBlocks(conversation, budgetTokens, countTokens, async (text, targetTokens) => {
		const shorter = await condense(text, targetTokens);
		if (shorter !== undefined) made.set(text, { text: shorter, targetTokens });
		return shorter;
	});
	return made;
}

/**
 * `condense`, answered from `prepared` without a model call when the block was condensed ahead for
 * the same target or a tighter one (the blocks may have changed since: it is looked up by text).
 * The answer is then read as a fresh one would be: over the target, it is cut to its first lines.
 */
export function usingPreparedCondensations(
	prepared: PreparedCondensations | undefined,
	condense?: CondenseBlock,
	onUsed?: () => void,
): CondenseBlock | undefined {
	if (!prepared) return condense;
	return async (text, targetTokens) => {
		const ready = prepared.get(text);
		if (ready !== undefined && ready.targetTokens <= targetTokens) {
			onUsed?.();
			return ready.text;
		}
		return condense?.(text, targetTokens);
	};
}

/** How many condensations made ahead a chat keeps for its next jobs (a few blocks; the oldest go first). */
export const CONDENSED_AHEAD_MEMORY = 32;

/**
 * Keeps what a job condensed ahead for the jobs after it: a chain's next job plans on the summaries
 * before it attached and would otherwise ask again for the same older block.
 */
export function rememberCondensations(memory: Map<string, CondensedAhead>, made: PreparedCondensations | undefined): void {
	for (const [block, condensed] of made ?? []) {
		memory.delete(block);
		memory.set(block, condensed);
	}
	for (const block of memory.keys()) {
		if (memory.size <= CONDENSED_AHEAD_MEMORY) break;
		memory.delete(block);
	}
}
