// `/restore [N | id:<round>] [newest:<count>]`: undoes a compaction. The summary block (the newest,
// request N's as /context numbers them, or the one a button names) is taken away with every newer
// block, and the rounds they stood for come back into the prompt word for word, as the chat history
// keeps them (the rounds recall reads). Only when the next prompt still leaves a tenth of the room
// for messages free: otherwise nothing changes, the user is told how much would not fit, and a
// button offers the newest rounds that do fit (src/common/summaries/restoreBlocks.ts).
import type * as vscode from 'vscode';
import type { Conversation, Round } from '../../common/conversation/conversation';
import { flattenRounds } from '../../common/conversation/flatten';
import { summaryBlocks } from '../../common/conversation/summaryBlocks';
import { applyRestore, parseRestoreArgs, restorePlan, targetBlock, type RestorePlan } from '../../common/summaries/restoreBlocks';
import { describeLocation } from '../../common/summaries/summaryDocument';
import type { SummaryBlock } from '../../common/conversation/summaryBlocks';
import { budgetFor } from '../agentLoop';
import { pinnedFor } from '../instructionFiles';
import { nextPromptTokens, type NextPromptInput } from '../nextPrompt';
import { resultFor } from '../requestResult';
import { restoreButton } from '../summaryDocuments';
import { toChatTools } from '../toolCatalog';
import type { RequestContext } from './requestContext';

/** Share of the room for messages a restore may fill: the rest is for the next request and its first rounds. */
export const RESTORE_SHARE = 0.9;

const fmt = (n: number) => n.toLocaleString('en-US');

export async function restoreCommand(ctx: RequestContext): Promise<vscode.ChatResult> {
	const { state, settings, stream } = ctx;
	const done = () => resultFor(state, settings, { storeLedger: false });
	const args = parseRestoreArgs(ctx.request.prompt);
	if ('error' in args) {
		stream.markdown(args.error);
		return done();
	}
	const block = targetBlock(state.conversation, args.target);
	if (!block) {
		stream.markdown(
			summaryBlocks(state.conversation).length === 0
				? 'There is no summary to restore: every round of this chat is in the prompt word for word.'
				: 'No summary block matches that. `/context` lists the blocks by request; `/restore` alone restores the newest.',
		);
		return done();
	}
	const budget = budgetFor(ctx.request.model, toChatTools(ctx.tools), ctx.ratio);
	const limit = Math.floor(budget.messages * RESTORE_SHARE);
	const next = (conversation: Conversation): NextPromptInput => ({
		conversation,
		chatTools: toChatTools(ctx.tools),
		budget,
		settings,
		ledger: state.ledger,
		pinnedInstructions: pinnedFor(ctx.instructions, budget.messages).text,
	});
	const tokensAfter = async (plan: RestorePlan) => nextPromptTokens(next(applyRestore(state.conversation, plan).conversation));
	const plan = restorePlan(state.conversation, block, args.newest);
	const tokens = await tokensAfter(plan);
	if (tokens <= limit) {
		const applied = applyRestore(state.conversation, plan);
		state.newSummaries.push(...applied.changes);
		state.conversation = applied.conversation;
		const shortened = restoredRounds(state.conversation, plan).some(r => r.toolCalls.some(c => c.result?.includes('were not stored in the chat history')));
		stream.markdown(restoredText(block, plan, tokens, budget.messages, shortened));
		return done();
	}
	const fitting = await newestThatFit(plan.restoredRoundIds.length, count => tokensAfter(restorePlan(state.conversation, block, count)), limit);
	stream.markdown(notFittingText(block, plan, tokens, limit, fitting));
	if (fitting) restoreButton(stream, { roundId: block.roundId, newest: fitting }, `Restore the newest ${fitting} round${fitting === 1 ? '' : 's'}`);
	return done();
}

/** The most of the newest rounds (fewer than `all`) whose restore fits within `limit`, or 0; a binary search (more rounds, more tokens). */
async function newestThatFit(all: number, tokensWith: (count: number) => Promise<number>, limit: number): Promise<number> {
	let low = 0;
	let high = all - 1;
	while (low < high) {
		const middle = Math.ceil((low + high) / 2);
		if ((await tokensWith(middle)) <= limit) low = middle;
		else high = middle - 1;
	}
	return low;
}

function what(block: SummaryBlock, plan: RestorePlan): string {
	const newer = plan.blocks.length - 1;
	return `the summary up to ${describeLocation(block.anchor)}${newer ? ` and the ${newer} newer summary block${newer === 1 ? '' : 's'} after it (summaries are undone newest first)` : ''}`;
}

function restoredRounds(conversation: Conversation, plan: RestorePlan): Round[] {
	const ids = new Set(plan.restoredRoundIds);
	return flattenRounds(conversation)
		.filter(at => ids.has(at.round.id))
		.map(at => at.round);
}

function restoredText(block: SummaryBlock, plan: RestorePlan, tokens: number, room: number, shortened: boolean): string {
	const rounds = plan.restoredRoundIds.length;
	const part = plan.keep
		? `the newest ${rounds} of the ${plan.rangeRoundIds.length} rounds of ${what(block, plan)}; the older ones stay summarized`
		: `the ${rounds} round${rounds === 1 ? '' : 's'} of ${what(block, plan)}, which ${plan.blocks.length === 1 ? 'is' : 'are'} gone from the prompt`;
	return (
		`Restored ${part}. They are back in the prompt word for word, as this chat's history keeps them` +
		`${shortened ? ' (the history keeps tool results over 16,000 characters shortened)' : ''}. The next prompt holds ${fmt(tokens)} of ${fmt(room)} tokens of room for messages.`
	);
}

function notFittingText(block: SummaryBlock, plan: RestorePlan, tokens: number, limit: number, fitting: number): string {
	const rounds = plan.restoredRoundIds.length;
	return [
		`Nothing was restored. Bringing back the ${rounds} round${rounds === 1 ? '' : 's'} of ${what(block, plan)} would make the next prompt ${fmt(tokens)} tokens, ` +
			`but it may take ${fmt(limit)} (nine tenths of the room for messages, so that your next request fits): ${fmt(tokens - limit)} tokens would not fit.`,
		fitting
			? `The newest ${fitting} round${fitting === 1 ? '' : 's'} fit: restore them with the button below (\`/restore id:${block.roundId} newest:${fitting}\`); the older ones stay summarized.`
			: 'Not even its newest round fits: pick a model with a larger window, or start a new chat.',
	].join('\n\n');
}
