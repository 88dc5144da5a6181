// `/compact [focus]`: summarizes the older part of the conversation now, as an overflow would, and
// stores the block in this command's turn record. Nothing changes when there is nothing to
// summarize, the model's summary fails, or the summary would leave the next prompt larger than it
// is now (docs/decisions.md 40).
import * as vscode from 'vscode';
import { condensedNotice, describePlan } from '../../common/fitting/fitNotices';
import { localize } from '../l10n';
import { summaryChanges } from '../../common/persistence/metadata';
import { summarization } from '../../common/stats/fitTelemetry';
import { describeAttemptsForUser } from '../../common/summaries/summarizationFlow';
import { compactionGain, type CompactionGain } from '../../common/summaries/compactionGain';
import type { Conversation } from '../../common/conversation/conversation';
import type { PromptBudget } from '../../common/tokens/budget';
import { pinnedFor } from '../instructionFiles';
import { nextPromptTokens } from '../nextPrompt';
import { budgetFor } from '../requestBudget';
import { compactNow } from '../requestCompactor';
import { resultFor } from '../requestResult';
import { summaryButton } from '../summaryDocuments';
import { toChatTools } from '../toolCatalog';
import type { RequestContext } from './requestContext';

export async function compactCommand(ctx: RequestContext): Promise<vscode.ChatResult> {
	const { request, state, settings, stream } = ctx;
	const outcome = await compactNow(ctx);
	// The summarizer-model fallback: once per chat, where a summary was written with the chat's model instead.
	if (ctx.summarizer.notice && outcome.kind !== 'nothing-to-summarize' && ctx.chats.firstFallbackNotice(state.conversation)) {
		stream.markdown(`*${ctx.summarizer.notice}*\n\n`);
	}
	if (outcome.kind === 'nothing-to-summarize') {
		stream.markdown(vscode.l10n.t('There is nothing to summarize yet: every round is already covered by a summary or must stay verbatim.'));
		return resultFor(state, settings, { storeLedger: false });
	}
	const budget = budgetFor(request.model, toChatTools(ctx.tools), ctx.ratio);
	const gain = outcome.kind === 'summarized' ? await nextPromptGain(ctx, budget, outcome.conversation) : undefined;
	const applied = outcome.kind === 'summarized' && gain?.apply === true;
	ctx.telemetry.send(
		summarization('command', applied ? 'summarized' : outcome.kind === 'summarized' ? 'discarded' : 'failed', outcome.prepared, {
			windowTokens: request.model.maxInputTokens,
			minRecentRounds: settings.minRecentRounds,
		}),
	);
	if (outcome.kind === 'failed') {
		stream.markdown(
			vscode.l10n.t(
				'The conversation could not be summarized ({0}). Nothing was changed; you can go on as before.',
				describeAttemptsForUser(outcome.prepared.attempts),
			),
		);
		return resultFor(state, settings, { storeLedger: false });
	}
	if (!applied && gain) {
		stream.markdown(
			vscode.l10n.t(
				'Summarizing {0} older rounds would not have made the next prompt smaller ({1} tokens instead of {2}): the summary and the done-ledger cost at least as much as the rounds they replace. Nothing was changed; those rounds stay word for word.',
				outcome.prepared.plan.stats.summarizedRoundCount,
				gain.after,
				gain.before,
			),
		);
		return resultFor(state, settings, { storeLedger: false });
	}
	state.newSummaries.push(...summaryChanges(state.conversation, outcome.conversation));
	state.conversation = outcome.conversation;
	state.tally.summarizations++;
	// Text first, the button last: a button between two texts would split what VS Code shows as the answer.
	stream.markdown(`\n\n*${localize(describePlan(outcome.prepared.plan))}*\n\n`);
	if (outcome.condensed.length) stream.markdown(`*${localize(condensedNotice(outcome.condensed.map(b => b.turnIndex)))}*\n\n`);
	const { plan, blocks } = outcome.prepared;
	const anchorTurn = plan.anchor.source === 'history' ? state.conversation.turns[plan.anchor.turnIndex]?.user : undefined;
	summaryButton(
		stream,
		ctx.documents.remember({
			roundId: plan.anchorRoundId,
			text: blocks.join('\n\n'),
			location: plan.anchor,
			request: anchorTurn,
			summarizedRounds: plan.stats.summarizedRoundCount,
		}),
	);
	return resultFor(state, settings, { storeLedger: false });
}

/** The next prompt's size without the compaction and with it (the same measure as /context and /restore). */
async function nextPromptGain(ctx: RequestContext, budget: PromptBudget, compacted: Conversation): Promise<CompactionGain & { before: number; after: number }> {
	const next = (conversation: Conversation) =>
		nextPromptTokens({
			conversation,
			chatTools: toChatTools(ctx.tools),
			budget,
			settings: ctx.settings,
			ledger: ctx.state.ledger,
			pinnedInstructions: pinnedFor(ctx.instructions, budget.messages).text,
		});
	const before = await next(ctx.state.conversation);
	const after = await next(compacted);
	return { ...compactionGain(before, after), before, after };
}
