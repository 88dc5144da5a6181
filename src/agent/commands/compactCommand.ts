// `/compact [focus]`: summarizes the older part of the conversation now, as an overflow would, and
// stores the block in this command's turn record. Nothing changes when there is nothing to
// summarize or the model's summary fails.
import * as vscode from 'vscode';
import { condensedNotice, describePlan } from '../../common/fitting/fitNotices';
import { localize } from '../l10n';
import { summaryChanges } from '../../common/persistence/metadata';
import { summarization } from '../../common/stats/fitTelemetry';
import { describeAttemptsForUser } from '../../common/summaries/summarizationFlow';
import { compactNow } from '../requestCompactor';
import { resultFor } from '../requestResult';
import { summaryButton } from '../summaryDocuments';
import type { RequestContext } from './requestContext';

export async function compactCommand(ctx: RequestContext): Promise<vscode.ChatResult> {
	const { request, state, settings, stream } = ctx;
	const outcome = await compactNow(ctx);
	if (ctx.summarizer.notice) stream.markdown(`*${ctx.summarizer.notice}*\n\n`);
	if (outcome.kind === 'nothing-to-summarize') {
		stream.markdown(vscode.l10n.t('There is nothing to summarize yet: every round is already covered by a summary or must stay verbatim.'));
		return resultFor(state, settings, { storeLedger: false });
	}
	ctx.telemetry.send(
		summarization('command', outcome.kind === 'summarized' ? 'summarized' : 'failed', outcome.prepared, {
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
