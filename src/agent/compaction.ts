// Summaries made with the model: the summarizer step the overflow pipeline (fitPrompt) and the
// background summarizer inject, the log line of each summarization, and /compact.
import * as vscode from 'vscode';
import { summarizerPromptBudget, summaryBudget, type PromptBudget } from '../common/tokens/budget';
import type { Conversation } from '../common/conversation/conversation';
import type { SummarizationMode, SummarizationPlan } from '../common/planning/plan';
import { planOrNothing } from '../common/planning/planners';
import { attachSummary, makeSummary, type PreparedSummary, type Summarize } from '../common/fitting/preparedSummary';
import { condensePasses, describeAttempts, produceSummary } from '../common/summaries/summarizationFlow';
import { summarizerEntries } from '../common/summaries/summarizerInput';
import { summaryLength } from '../common/summaries/summaryLength';
import { recognizePromptTooLong } from '../common/tokens/promptTooLong';
import { log } from './log';
import { countTokens, extractSummary, isBudgetExceeded, renderCondense, renderSummarizer, type RenderedPrompt } from './promptRendering';
import { callModelQuietly } from './modelCall';
import type { TokenCalibration } from './tokenCalibration';

/** Everything a summary of this request needs; built once per request. */
export interface SummarizerContext {
	readonly model: vscode.LanguageModelChat;
	/** Read at every summary: a "prompt too long" from the provider tightens it during the request. */
	readonly budget: PromptBudget;
	/** Learns from a summarizer request the provider rejected as too long. */
	readonly calibration?: TokenCalibration;
	readonly mode: SummarizationMode;
	/** The user's message of the request in progress ('' for commands). */
	readonly currentRequest: string;
	readonly token: vscode.CancellationToken;
	/** /compact's optional focus text. */
	readonly focus?: string;
}

export type SummaryReason = 'overflow' | 'command' | 'background';

/**
 * The summarizer step: Full then Simple with the request's model, each with one condense pass when
 * its summary comes back over the cap. The prompts state the length (summaryLength.ts). Cancellation
 * propagates as vscode.CancellationError.
 */
export function modelSummarizer(ctx: SummarizerContext, token: vscode.CancellationToken = ctx.token): Summarize {
	return (conversation, plan) => {
		const entries = summarizerEntries(conversation, plan, ctx.currentRequest);
		const budget = ctx.budget;
		const cap = summaryBudget(budget);
		const length = summaryLength(cap);
		const asPrompt = (rendered: RenderedPrompt) => ({ prompt: rendered, tokenCount: rendered.tokenCount });
		return produceSummary<RenderedPrompt>(
			{
				render: async mode =>
					asPrompt(
						await renderSummarizer({ mode, entries, previousSummary: plan.previousSummary?.text, focus: ctx.focus, length }, summarizerPromptBudget(budget)),
					),
				renderCondense: async summary => asPrompt(await renderCondense({ summary, length }, summarizerPromptBudget(budget))),
				send: async prompt => {
					try {
						return extractSummary(await callModelQuietly(ctx.model, prompt.messages, token));
					} catch (error) {
						// The provider counted the summarizer prompt over its limit: the next ones are counted tighter.
						const tooLong = token.isCancellationRequested ? undefined : recognizePromptTooLong(error);
						if (tooLong) ctx.calibration?.rejected(ctx.model, tooLong, prompt.tokenCount);
						throw error;
					}
				},
				countTokens,
				isPromptTooLarge: isBudgetExceeded,
				isCancellation: error => error instanceof vscode.CancellationError || token.isCancellationRequested,
				isCancelled: () => token.isCancellationRequested,
				cancellationError: () => new vscode.CancellationError(),
			},
			cap,
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
				attempts: describeAttempts(prepared.attempts),
				condensePasses: condensePasses(prepared.attempts),
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
