// A summary the user corrected: the text saved from the summary document replaces that block from
// the next request on. The save is checked first (the separator line kept, not empty, within the
// summary budget, which is what any one summary may take); a save that fails the check changes
// nothing. The edit is applied at the start of the next request of the chat that holds the block,
// and only while the block is still the one the user read (or their own earlier edit): a block a
// newer summary absorbed or that was condensed since is not overwritten, and the user is told.
import type { Conversation } from '../conversation/conversation';
import { summaryBlocks, type SummaryBlock } from '../conversation/summaryBlocks';
import type { StoredSummaryBlock } from './applySummary';
import { updateRounds, withSummary } from './applySummary';
import { describeLocation, summaryTextOf, textHash } from './summaryDocument';
import { SUMMARY_SHARE } from '../tokens/budget';

export interface SummaryEdit {
	/** The block's anchor round. */
	readonly roundId: string;
	/** textHash of the block text the user edited. */
	readonly base: string;
	readonly text: string;
}

export type EditCheck =
	{ readonly kind: 'unchanged' } | { readonly kind: 'invalid'; readonly message: string } | { readonly kind: 'ok'; readonly text: string };

/** Checks a saved document against the text it showed and the largest summary allowed. */
export function checkSummaryEdit(content: string, shown: string, maxTokens: number | undefined, countTokens: (text: string) => number): EditCheck {
	const text = summaryTextOf(content);
	if (text === undefined) return { kind: 'invalid', message: 'The summary was not saved: keep the line "---", the summary is the text below it.' };
	if (text === '') {
		return {
			kind: 'invalid',
			message: 'The summary was not saved: it cannot be empty. To bring back the rounds it replaced instead, use Restore (@longhaul /restore).',
		};
	}
	if (text === shown.trim()) return { kind: 'unchanged' };
	const tokens = countTokens(text);
	if (maxTokens !== undefined && tokens > maxTokens) {
		return {
			kind: 'invalid',
			message: `The summary was not saved: it is ${tokens.toLocaleString('en-US')} tokens, and a summary may take at most ${maxTokens.toLocaleString('en-US')} (${Math.round(SUMMARY_SHARE * 100)} % of the room for messages with the chat's model). Shorten it and save again.`,
		};
	}
	return { kind: 'ok', text };
}

export type EditOutcome =
	| { readonly kind: 'applied'; readonly conversation: Conversation; readonly block: StoredSummaryBlock; readonly where: string }
	/** The block is not in this conversation (another chat's): keep the edit for that one. */
	| { readonly kind: 'elsewhere' }
	| { readonly kind: 'dropped'; readonly message: string };

/** The edit applied to the block anchored on its round, when that block is still the one edited. */
export function applySummaryEdit(conversation: Conversation, edit: SummaryEdit, maxTokens: number, countTokens: (text: string) => number): EditOutcome {
	const blocks = summaryBlocks(conversation);
	const block = blocks.find(b => b.roundId === edit.roundId);
	if (!block) {
		const covering = blocks.find(b => b.roundIds.includes(edit.roundId));
		if (!covering && !roundIn(conversation, edit.roundId)) return { kind: 'elsewhere' };
		return {
			kind: 'dropped',
			message: `Your edit of a summary was not used: a newer summary has replaced that one since. Open the newer one from /context and edit it instead.`,
		};
	}
	const where = describeLocation(block.anchor);
	if (textHash(block.text) !== edit.base && !block.edited) {
		return {
			kind: 'dropped',
			message: `Your edit of the summary up to ${where} was not used: the summary changed since you opened it (it was condensed). Open it again from /context and edit it there.`,
		};
	}
	const tokens = countTokens(edit.text);
	if (tokens > maxTokens) {
		return {
			kind: 'dropped',
			message: `Your edit of the summary up to ${where} was not used: it is ${tokens.toLocaleString('en-US')} tokens, and a summary may take at most ${maxTokens.toLocaleString('en-US')} with this model. Open it again, shorten it and save.`,
		};
	}
	const next = updateRounds(conversation, new Map([[block.roundId, round => withSummary(round, edit.text, { spansTurns: block.spansTurns, edited: true })]]));
	return { kind: 'applied', conversation: next, block: storedEdit(block, edit.text), where };
}

function storedEdit(block: SummaryBlock, text: string): StoredSummaryBlock {
	return { roundId: block.roundId, text, edited: true, ...(block.spansTurns ? { spansTurns: true } : {}) };
}

function roundIn(conversation: Conversation, roundId: string): boolean {
	return conversation.activeRounds.some(r => r.id === roundId) || conversation.turns.some(t => t.rounds.some(r => r.id === roundId));
}
