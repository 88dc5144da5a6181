// Summaries made with the model: the summarizer step the overflow pipeline (fitPrompt) and the
// background summarizer inject, the log line of each summarization, and /compact.
import * as vscode from 'vscode';
import { summarizerPromptBudget, summaryBudget, type PromptBudget } from '../common/tokens/budget';
import type { Conversation } from '../common/conversation/conversation';
import type { SummarizationMode, SummarizationPlan } from '../common/planning/plan';
import { planOrNothing } from '../common/planning/planners';
import { attachSummary, makeSummary, type PreparedSummary, type Summarize } from '../common/fitting/preparedSummary';
import { produceSummary } from '../common/summaries/summarizationFlow';
import { summarizerEntries } from '../common/summaries/summarizerInput';
import { log } from './log';
import { countTokens, extractSummary, isBudgetExceeded, renderSummarizer } from './promptRendering';
import { callModelQuietly } from './modelCall';

/** Everything a summary of this request needs; built once per request. */
export interface SummarizerContext {
	readonly model: vscode.LanguageModelChat;
	readonly budget: PromptBudget;
	readonly mode: SummarizationMode;
	/** The user's message of the request in progress ('' for commands). */
	readonly currentRequest: string;
	readonly token: vscode.CancellationToken;
	/** /compact's optional focus text. */
	readonly focus?: string;
}

export type SummaryReason = 'overflow' | 'command' | 'background';

/** The summarizer step: Full then Simple with the request's model. Cancellation propagates as vscode.CancellationError. */
export function modelSummarizer(ctx: SummarizerContext, token: vscode.CancellationToken = ctx.token): Summarize {
	return (conversation, plan) => {
		const entries = summarizerEntries(conversation, plan, ctx.currentRequest);
		return produceSummary(
			{
				render: async mode => {
					const rendered = await renderSummarizer(
						{ mode, entries, previousSummary: plan.previousSummary?.text, focus: ctx.focus },
						summarizerPromptBudget(ctx.budget),
					);
					return { prompt: rendered.messages, tokenCount: rendered.tokenCount };
				},
				send: async prompt => extractSummary(await callModelQuietly(ctx.model, prompt, token)),
				countTokens,
				isPromptTooLarge: isBudgetExceeded,
				isCancellation: error => error instanceof vscode.CancellationError || token.isCancellationRequested,
				isCancelled: () => token.isCancellationRequested,
				cancellationError: () => new vscode.CancellationError(),
			},
			summaryBudget(ctx.budget),
		);
	};
}

/** The Longhaul log's JSON line for one summarization (never text of the conversation). */
export function logSummary(reason: SummaryReason, prepared: PreparedSummary): void {
	const { plan, summary } = prepared;
	const tokensBefore = plan.stats.tokens ? plan.stats.tokens.summarized + plan.stats.tokens.kept + plan.stats.tokens.previousSummary : undefined;
	log().info(
		'summarization ' +
			JSON.stringify({
				reason,
				mode: plan.mode,
				requestedMode: plan.requestedMode,
				fallbackReason: plan.fallbackReason ?? null,
				summarized: plan.stats.summarizedRoundCount,
				narrowedFrom: prepared.narrowed ? prepared.plannedRoundCount : null,
				kept: plan.stats.keptRoundCount,
				tokensBefore,
				summaryTokens: summary ? countTokens(summary) : null,
				tokensAfter: summary && plan.stats.tokens ? plan.stats.tokens.kept + countTokens(summary) : null,
				attempts: prepared.attempts.map(a => `${a.mode}:${a.outcome}`),
				durationMs: prepared.durationMs,
			}),
	);
}

/** The planner's decision with the token statistics the log reports; undefined when there is nothing to summarize. */
export function planWithStats(conversation: Conversation, mode: SummarizationMode): SummarizationPlan | undefined {
	return planOrNothing(conversation, mode, { countTokens });
}

export type CompactOutcome =
	| { readonly kind: 'nothing-to-summarize' }
	| { readonly kind: 'failed'; readonly prepared: PreparedSummary }
	| { readonly kind: 'summarized'; readonly prepared: PreparedSummary & { readonly summary: string }; readonly conversation: Conversation };

/** /compact: summarizes the older part now. The conversation is only changed when a summary was made. */
export async function compactNow(conversation: Conversation, ctx: SummarizerContext, stream: vscode.ChatResponseStream): Promise<CompactOutcome> {
	const plan = planWithStats(conversation, ctx.mode);
	if (!plan) {
		log().info(`summarization skipped: nothing to summarize (mode ${ctx.mode}, reason command)`);
		return { kind: 'nothing-to-summarize' };
	}
	stream.progress('Summarizing conversation history…');
	const prepared = await makeSummary(conversation, plan, modelSummarizer(ctx));
	logSummary('command', prepared);
	if (prepared.summary === undefined) {
		return { kind: 'failed', prepared };
	}
	return {
		kind: 'summarized',
		prepared: { ...prepared, summary: prepared.summary },
		conversation: attachSummary(conversation, prepared.plan, prepared.summary),
	};
}
