// Undoing a compaction: a summary block is taken away and the rounds it stood for come back into
// the prompt word for word, from the rounds the chat history keeps (the store recall reads).
// Compactions are undone newest first: every round up to the newest summary counts as summarized
// (summaryBlocks.ts), so restoring a block also restores every newer block. When all of it does
// not fit, the newest part can come back alone: the rounds before it stay summarized by the block
// that covered them, re-anchored on the newest round that stays summarized (its text also tells of
// the restored rounds, which costs a few tokens but loses nothing).
import type { Conversation, Round } from '../conversation/conversation';
import { flattenRounds } from '../conversation/flatten';
import { summaryBlocks, type SummaryBlock } from '../conversation/summaryBlocks';
import type { StoredSummaryBlock } from './applySummary';
import { updateRounds, withoutSummary, withSummary } from './applySummary';

export interface RestorePlan {
	/** The block asked for, and every newer one, oldest first. */
	readonly blocks: readonly SummaryBlock[];
	/** Every round those blocks stand for, oldest first. */
	readonly rangeRoundIds: readonly string[];
	/** The rounds that come back word for word (all of the range, or its newest part), oldest first. */
	readonly restoredRoundIds: readonly string[];
	/** With a partial restore: the block that stays for the older rounds, re-anchored on the newest of them. */
	readonly keep?: { readonly roundId: string; readonly block: SummaryBlock };
}

export type RestoreTarget =
	{ readonly kind: 'newest' } | { readonly kind: 'request'; readonly request: number } | { readonly kind: 'round'; readonly roundId: string };

export interface RestoreRequest {
	readonly target: RestoreTarget;
	/** Restore only this many of the newest rounds. */
	readonly newest?: number;
}

/** `/restore` arguments: nothing (the newest block), a request number as /context lists it, or `id:<round>`; then optionally `newest:<N>`. */
export function parseRestoreArgs(prompt: string): RestoreRequest | { readonly error: string } {
	let target: RestoreTarget = { kind: 'newest' };
	let newest: number | undefined;
	for (const word of prompt.trim().split(/\s+/).filter(Boolean)) {
		const n = /^newest:(\d+)$/.exec(word);
		if (n && Number(n[1]) > 0) newest = Number(n[1]);
		else if (/^id:\S+$/.test(word)) target = { kind: 'round', roundId: word.slice(3) };
		else if (/^\d+$/.test(word) && Number(word) > 0) target = { kind: 'request', request: Number(word) };
		else {
			return {
				error: `"${word}" is not something /restore understands. Use /restore alone for the newest summary, /restore N for the summary of request N as /context lists it.`,
			};
		}
	}
	return { target, ...(newest !== undefined ? { newest } : {}) };
}

/** The block a target names: a block's anchor, or a round a block stands for; a request number as /context counts them. */
export function targetBlock(conversation: Conversation, target: RestoreTarget): SummaryBlock | undefined {
	const blocks = summaryBlocks(conversation);
	switch (target.kind) {
		case 'newest':
			return blocks[blocks.length - 1];
		case 'request':
			return blocks.find(b => b.turnIndex + 1 === target.request);
		case 'round':
			return blocks.find(b => b.roundId === target.roundId) ?? blocks.find(b => b.roundIds.includes(target.roundId));
	}
}

/** What restoring `block` (and every newer block) brings back; with `newest`, only that many of the newest rounds. */
export function restorePlan(conversation: Conversation, block: SummaryBlock, newest?: number): RestorePlan {
	const blocks = summaryBlocks(conversation);
	const from = blocks.findIndex(b => b.roundId === block.roundId);
	const removed = blocks.slice(from);
	const range = removed.flatMap(b => b.roundIds);
	if (newest === undefined || newest >= range.length) return { blocks: removed, rangeRoundIds: range, restoredRoundIds: range };
	const count = Math.max(1, Math.floor(newest));
	const cut = range.length - count - 1;
	const keepRound = range[cut];
	const covering = removed.find(b => b.roundIds.includes(keepRound))!;
	return {
		blocks: removed,
		rangeRoundIds: range,
		restoredRoundIds: range.slice(cut + 1),
		...(covering.roundId === keepRound ? {} : { keep: { roundId: keepRound, block: covering } }),
	};
}

/**
 * The conversation with the plan applied, and the summary changes to store with this turn (a
 * removal for every summary taken off a restored round, the re-anchored block when there is one).
 */
export function applyRestore(conversation: Conversation, plan: RestorePlan): { conversation: Conversation; changes: StoredSummaryBlock[] } {
	const restored = new Set(plan.restoredRoundIds);
	const changes = new Map<string, (round: Round) => Round>();
	const stored: StoredSummaryBlock[] = [];
	for (const at of flattenRounds(conversation)) {
		if (!restored.has(at.round.id) || at.round.summary === undefined) continue;
		changes.set(at.round.id, withoutSummary);
		stored.push({ roundId: at.round.id, text: '', removed: true });
	}
	if (plan.keep) {
		const { block } = plan.keep;
		changes.set(plan.keep.roundId, round => withSummary(round, block.text, block));
		stored.push({
			roundId: plan.keep.roundId,
			text: block.text,
			...(block.condensed ? { condensed: true } : {}),
			...(block.spansTurns ? { spansTurns: true } : {}),
			...(block.edited ? { edited: true } : {}),
			...(block.buildsOnEdit ? { buildsOnEdit: true } : {}),
		});
	}
	return { conversation: updateRounds(conversation, changes), changes: stored };
}
