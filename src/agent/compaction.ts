// Summaries made with the model: the summarizer step the overflow pipeline (fitPrompt) and the
// background summarizer inject, the step that condenses older blocks, the log line of each
// summarization, and /compact.
import * as vscode from 'vscode';
import { summarizerPromptBudget, summaryBudget, type PromptBudget } from '../common/tokens/budget';
import type { Conversation } from '../common/conversation/conversation';
import type { SummarizationMode, SummarizationPlan } from '../common/planning/plan';
import { planOrNothing, type PlanOptions } from '../common/planning/planners';
import { attachSummary, makeSummary, type PreparedSummary, type Summarize } from '../common/fitting/preparedSummary';
import { fitPlanOptions } from '../common/fitting/fitPrompt';
import { condenseOldestBlocks, type CondenseBlock, type CondenseResult } from '../common/summaries/condenseBlocks';
import { condensePasses, describeAttempts, produceSummary } from '../common/summaries/summarizationFlow';
import { summarizerEntries } from '../common/summaries/summarizerInput';
import { summaryLength } from '../common/summaries/summaryLength';
import { recognizePromptTooLong } from '../common/tokens/promptTooLong';
import { log } from './log';
import { renderCondense, renderCondenseBlock, renderSummarizer, type RenderedPrompt } from './promptRendering';
import { extractSummary, isBudgetExceededError, summaryOfReply } from '../prompts';
import { countTokens } from '../common/tokens/tokenizer';
import { ProviderUnavailableError, callModelQuietly } from './modelCall';
import type { TokenCalibration } from './tokenCalibration';
import { summarizingLine } from './summarizingProgress';

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
	/** The fewest rounds half-context keeps verbatim (default 2); one value for the overflow, the background and /compact. */
	readonly minKeep?: number;
	/** Another model that writes the summaries (`longhaul.summarizerModel`, summarizerModel.ts); without it, `model` does. */
	readonly summarizerModel?: SummarizerModel;
}

/** A model other than the request's that writes summaries, and what a summarizer prompt may take with it. */
export interface SummarizerModel {
	readonly model: vscode.LanguageModelChat;
	/** Its own window in local tokens (by its own token ratio), less the reserve: read at each summary. */
	promptBudget(): number;
}

export type SummaryReason = 'overflow' | 'command' | 'background';

/** The planner options every summary of this request uses: the token-aware half at this budget. */
export function plannerOptions(ctx: Pick<SummarizerContext, 'mode' | 'budget' | 'minKeep'>): PlanOptions {
	return fitPlanOptions({ mode: ctx.mode, messageBudget: ctx.budget.messages, maskOldToolResults: false, minKeep: ctx.minKeep }, countTokens);
}

/**
 * The summarizer step: one turn's block, Full then Simple with the request's model, each with one
 * condense pass when its summary comes back over the cap. The prompts state the length
 * (summaryLength.ts). Cancellation propagates as vscode.CancellationError; a provider that is
 * unavailable (quota, blocked, no permission, model gone; a rate limit past its retries) stops the
 * request as ProviderUnavailableError: it is not a summary that failed, so nothing is truncated.
 */
export function modelSummarizer(ctx: SummarizerContext, token: vscode.CancellationToken = ctx.token): Summarize {
	return (conversation, request) => {
		const entries = summarizerEntries(conversation, request, ctx.currentRequest);
		const budget = ctx.budget;
		const cap = summaryBudget(budget);
		const length = summaryLength(cap);
		const model = ctx.summarizerModel?.model ?? ctx.model;
		const promptBudget = ctx.summarizerModel?.promptBudget() ?? summarizerPromptBudget(budget);
		const asPrompt = (rendered: RenderedPrompt) => ({ prompt: rendered, tokenCount: rendered.tokenCount });
		return produceSummary<RenderedPrompt>(
			{
				render: async mode =>
					asPrompt(await renderSummarizer({ mode, entries, previousSummary: request.previousSummary?.text, focus: ctx.focus, length }, promptBudget)),
				renderCondense: async summary => asPrompt(await renderCondense({ summary, length }, promptBudget)),
				send: async prompt => {
					try {
						return summaryOfReply(await callModelQuietly(model, prompt.messages, token));
					} catch (error) {
						// The provider counted the summarizer prompt over its limit: the next ones are counted tighter.
						const tooLong = token.isCancellationRequested ? undefined : recognizePromptTooLong(error);
						if (tooLong) ctx.calibration?.rejected(model, tooLong, prompt.tokenCount);
						throw error;
					}
				},
				countTokens,
				isPromptTooLarge: isBudgetExceededError,
				isCancellation: error => error instanceof vscode.CancellationError || error instanceof ProviderUnavailableError || token.isCancellationRequested,
				isCancelled: () => token.isCancellationRequested,
				cancellationError: () => new vscode.CancellationError(),
			},
			cap,
		);
	};
}

/**
 * The step that shortens an older summary block (bounded growth): the same model, asked to shorten
 * that block alone. A failed request is no summary (the block is then cut to its first lines);
 * cancellation and an unavailable provider propagate.
 */
export function modelCondenser(ctx: SummarizerContext, token: vscode.CancellationToken = ctx.token): CondenseBlock {
	return async (block, targetTokens) => {
		if (token.isCancellationRequested) throw new vscode.CancellationError();
		try {
			const rendered = await renderCondenseBlock(block, targetTokens, ctx.summarizerModel?.promptBudget() ?? summarizerPromptBudget(ctx.budget));
			const text = extractSummary(await callModelQuietly(ctx.summarizerModel?.model ?? ctx.model, rendered.messages, token));
			if (token.isCancellationRequested) throw new vscode.CancellationError();
			return text;
		} catch (error) {
			if (error instanceof vscode.CancellationError || token.isCancellationRequested) {
				throw error instanceof vscode.CancellationError ? error : new vscode.CancellationError();
			}
			if (error instanceof ProviderUnavailableError) throw error;
			log().info(`condensing an older summary block failed: ${error instanceof Error ? error.name : 'error'}`);
			return undefined;
		}
	};
}

/** Condenses the oldest blocks when all blocks together pass the summary budget (after a summary was attached). */
export function boundBlocks(conversation: Conversation, ctx: SummarizerContext): Promise<CondenseResult> {
	return condenseOldestBlocks(conversation, summaryBudget(ctx.budget), countTokens, modelCondenser(ctx));
}

/** The Longhaul log's JSON line for one summarization (never text of the conversation). */
export function logSummary(reason: SummaryReason, prepared: PreparedSummary): void {
	const { plan, blocks } = prepared;
	const summaryTokens = blocks ? blocks.reduce((n, b) => n + countTokens(b), 0) : undefined;
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
				keptTokens: plan.stats.tokens?.kept ?? null,
				splitMoved: plan.stats.tokenAware?.moved ?? null,
				blocks: blocks?.length ?? 0,
				requests: prepared.requests,
				tokensBefore,
				summaryTokens: summaryTokens ?? null,
				tokensAfter: summaryTokens !== undefined && plan.stats.tokens ? plan.stats.tokens.kept + summaryTokens : null,
				attempts: describeAttempts(prepared.attempts),
				condensePasses: condensePasses(prepared.attempts),
				durationMs: prepared.durationMs,
			}),
	);
}

/** The planner's decision with the token statistics the log reports; undefined when there is nothing to summarize. */
export function planWithStats(conversation: Conversation, ctx: Pick<SummarizerContext, 'mode' | 'budget' | 'minKeep'>): SummarizationPlan | undefined {
	return planOrNothing(conversation, ctx.mode, plannerOptions(ctx));
}

export type CompactOutcome =
	| { readonly kind: 'nothing-to-summarize' }
	| { readonly kind: 'failed'; readonly prepared: PreparedSummary }
	| {
			readonly kind: 'summarized';
			readonly prepared: PreparedSummary & { readonly blocks: readonly string[] };
			readonly conversation: Conversation;
			/** Older blocks condensed to make room. */
			readonly condensed: CondenseResult['condensed'];
	  };

/** /compact: summarizes the older part now. The conversation is only changed when a summary was made. */
export async function compactNow(conversation: Conversation, ctx: SummarizerContext, stream: vscode.ChatResponseStream): Promise<CompactOutcome> {
	const plan = planWithStats(conversation, ctx);
	if (!plan) {
		log().info(`summarization skipped: nothing to summarize (mode ${ctx.mode}, reason command)`);
		return { kind: 'nothing-to-summarize' };
	}
	stream.progress(summarizingLine(vscode.l10n.t('Summarizing conversation history…')));
	const prepared = await makeSummary(conversation, plan, modelSummarizer(ctx));
	logSummary('command', prepared);
	if (prepared.blocks === undefined) {
		return { kind: 'failed', prepared };
	}
	const bounded = await boundBlocks(attachSummary(conversation, prepared.plan, prepared.blocks), ctx);
	return { kind: 'summarized', prepared: { ...prepared, blocks: prepared.blocks }, conversation: bounded.conversation, condensed: bounded.condensed };
}
