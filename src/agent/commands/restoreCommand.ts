// `/restore [N] [newest:<count>]` (buttons of earlier versions send `id:<round>` in place of N): undoes a compaction. The summary block (the newest,
// request N's as /context numbers them, or the one a button names) is taken away with every newer
// block, and the rounds they stood for come back into the prompt word for word, as the chat history
// keeps them (the rounds recall reads). Only when the next prompt still leaves a tenth of the room
// for messages free: otherwise nothing changes, the user is told how much would not fit, and a
// button offers the newest rounds that do fit (src/common/summaries/restoreBlocks.ts).
import * as vscode from 'vscode';
import type { Conversation, Round } from '../../common/conversation/conversation';
import { flattenRounds } from '../../common/conversation/flatten';
import { summaryBlocks } from '../../common/conversation/summaryBlocks';
import { applyRestore, parseRestoreArgs, restorePlan, targetBlock, type RestorePlan } from '../../common/summaries/restoreBlocks';
import { describeLocation } from '../../common/summaries/summaryDocument';
import type { SummaryBlock } from '../../common/conversation/summaryBlocks';
import { message, plural } from '../../common/text/message';
import { budgetFor } from '../requestBudget';
import { pinnedFor } from '../instructionFiles';
import { localize } from '../l10n';
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
				? vscode.l10n.t('There is no summary to restore: every round of this chat is in the prompt word for word.')
				: vscode.l10n.t('No summary block matches that. `/context` lists the blocks by request; `/restore` alone restores the newest.'),
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
	if (fitting) {
		restoreButton(
			stream,
			{ request: block.turnIndex + 1, newest: fitting },
			localize(plural(fitting, 'Restore the newest {0} round', 'Restore the newest {0} rounds')),
		);
	}
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
	const location = describeLocation(block.anchor);
	if (!newer) return vscode.l10n.t('the summary up to {0}', location);
	return newer === 1
		? vscode.l10n.t('the summary up to {0} and the {1} newer summary block after it (summaries are undone newest first)', location, newer)
		: vscode.l10n.t('the summary up to {0} and the {1} newer summary blocks after it (summaries are undone newest first)', location, newer);
}

function restoredRounds(conversation: Conversation, plan: RestorePlan): Round[] {
	const ids = new Set(plan.restoredRoundIds);
	return flattenRounds(conversation)
		.filter(at => ids.has(at.round.id))
		.map(at => at.round);
}

function restoredText(block: SummaryBlock, plan: RestorePlan, tokens: number, room: number, shortened: boolean): string {
	const rounds = plan.restoredRoundIds.length;
	const counted = plural(rounds, '{0} round', '{0} rounds');
	const part = plan.keep
		? vscode.l10n.t('the newest {0} of the {1} rounds of {2}; the older ones stay summarized', rounds, plan.rangeRoundIds.length, what(block, plan))
		: plan.blocks.length === 1
			? localize(message('the {0} of {1}, which is gone from the prompt', counted, what(block, plan)))
			: localize(message('the {0} of {1}, which are gone from the prompt', counted, what(block, plan)));
	return [
		vscode.l10n.t('Restored {0}.', part),
		shortened
			? vscode.l10n.t(
					"They are back in the prompt word for word, as this chat's history keeps them (the history keeps tool results over 16,000 characters shortened).",
				)
			: vscode.l10n.t("They are back in the prompt word for word, as this chat's history keeps them."),
		vscode.l10n.t('The next prompt holds {0} of {1} tokens of room for messages.', fmt(tokens), fmt(room)),
	].join(' ');
}

function notFittingText(block: SummaryBlock, plan: RestorePlan, tokens: number, limit: number, fitting: number): string {
	const rounds = plan.restoredRoundIds.length;
	const bringingBack = localize(
		message(
			'Bringing back the {0} of {1} would make the next prompt {2} tokens, but it may take {3} (nine tenths of the room for messages, so that your next request fits): {4} tokens would not fit.',
			plural(rounds, '{0} round', '{0} rounds'),
			what(block, plan),
			fmt(tokens),
			fmt(limit),
			fmt(tokens - limit),
		),
	);
	const command = `\`/restore ${block.turnIndex + 1} newest:${fitting}\``;
	return [
		`${vscode.l10n.t('Nothing was restored.')} ${bringingBack}`,
		!fitting
			? vscode.l10n.t('Not even its newest round fits: pick a model with a larger window, or start a new chat.')
			: fitting === 1
				? vscode.l10n.t('The newest {0} round fit: restore them with the button below ({1}); the older ones stay summarized.', fitting, command)
				: vscode.l10n.t('The newest {0} rounds fit: restore them with the button below ({1}); the older ones stay summarized.', fitting, command),
	].join('\n\n');
}
