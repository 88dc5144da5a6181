import * as vscode from 'vscode';
import { summarizerPromptBudget, summaryBudget, type PromptBudget } from '../common/budget';
import { NothingToSummarizeError, type SummarizationMode, type SummarizationPlan } from '../common/plan';
import { applySummary, planSummarization } from '../common/planners';
import { produceSummary, type SummaryAttempt } from '../common/summarizationFlow';
import { summarizerEntries } from '../common/summarizerInput';
import { log } from './log';
import { countTokens, extractSummary, isBudgetExceeded, renderSummarizer } from './promptRendering';
import { callModelQuietly } from './modelCall';
import type { RequestState } from './requestState';

export interface CompactionContext {
	readonly model: vscode.LanguageModelChat;
	readonly budget: PromptBudget;
	readonly mode: SummarizationMode;
	/** The user's message of the request in progress. */
	readonly currentRequest: string;
	readonly stream: vscode.ChatResponseStream;
	readonly token: vscode.CancellationToken;
	readonly focus?: string;
	readonly reason: 'overflow' | 'command';
}

export type CompactionOutcome =
	| { readonly kind: 'summarized'; readonly plan: SummarizationPlan; readonly attempts: readonly SummaryAttempt[] }
	| { readonly kind: 'nothing-to-summarize' }
	| { readonly kind: 'failed'; readonly plan: SummarizationPlan; readonly attempts: readonly SummaryAttempt[] };

/** One line for the chat that says what happened. */
export function describePlan(plan: SummarizationPlan): string {
	const fallback = plan.fallbackReason ? `, fell back to legacy: ${plan.fallbackReason}` : '';
	const { summarizedRoundCount: s, keptRoundCount: k } = plan.stats;
	return `Summarized ${s} older round${s === 1 ? '' : 's'}, kept ${k} recent round${k === 1 ? '' : 's'} verbatim (${plan.mode}${fallback}).`;
}

/**
 * Summarizes the older part of the conversation with the active planner. On success the
 * summary is attached to the plan's anchor round in `state` and recorded for this turn's
 * metadata; on failure `state` is untouched. Cancellation propagates.
 */
export async function compact(state: RequestState, ctx: CompactionContext): Promise<CompactionOutcome> {
	const started = Date.now();
	let plan: SummarizationPlan;
	try {
		plan = planSummarization(state.conversation, ctx.mode, { countTokens });
	} catch (error) {
		if (error instanceof NothingToSummarizeError) {
			log().info(`summarization skipped: nothing to summarize (mode ${ctx.mode}, reason ${ctx.reason})`);
			return { kind: 'nothing-to-summarize' };
		}
		throw error;
	}

	ctx.stream.progress('Summarizing conversation history…');
	const entries = summarizerEntries(state.conversation, plan, ctx.currentRequest);
	const result = await produceSummary(
		{
			render: async mode => {
				const rendered = await renderSummarizer({ mode, entries, previousSummary: plan.previousSummary?.text, focus: ctx.focus }, summarizerPromptBudget(ctx.budget));
				return { prompt: rendered.messages, tokenCount: rendered.tokenCount };
			},
			send: async prompt => extractSummary(await callModelQuietly(ctx.model, prompt, ctx.token)),
			countTokens,
			isPromptTooLarge: isBudgetExceeded,
			isCancellation: error => error instanceof vscode.CancellationError || ctx.token.isCancellationRequested,
			isCancelled: () => ctx.token.isCancellationRequested,
			cancellationError: () => new vscode.CancellationError(),
		},
		summaryBudget(ctx.budget),
	);

	const tokensBefore = plan.stats.tokens ? plan.stats.tokens.summarized + plan.stats.tokens.kept + plan.stats.tokens.previousSummary : undefined;
	log().info(
		'summarization ' +
			JSON.stringify({
				reason: ctx.reason,
				mode: plan.mode,
				requestedMode: plan.requestedMode,
				fallbackReason: plan.fallbackReason ?? null,
				summarized: plan.stats.summarizedRoundCount,
				kept: plan.stats.keptRoundCount,
				tokensBefore,
				summaryTokens: result.summary ? countTokens(result.summary) : null,
				tokensAfter: result.summary && plan.stats.tokens ? plan.stats.tokens.kept + countTokens(result.summary) : null,
				attempts: result.attempts.map(a => `${a.mode}:${a.outcome}`),
				durationMs: Date.now() - started,
			}),
	);

	if (result.summary === undefined) {
		return { kind: 'failed', plan, attempts: result.attempts };
	}
	state.conversation = applySummary(state.conversation, plan.anchorRoundId, result.summary);
	state.newSummaries.push({ roundId: plan.anchorRoundId, text: result.summary });
	state.summarizations++;
	ctx.stream.markdown(`\n\n*${describePlan(plan)}*\n\n`);
	return { kind: 'summarized', plan, attempts: result.attempts };
}
