// Summaries made with the model: the summarizer step (one turn's block, Full then Simple) and the
// condenser step (shortening an older block) that a request's Compactor
// (src/common/compaction/compactor.ts, built in requestCompactor.ts) holds, and the log line of
// each summarization.
import * as vscode from 'vscode';
import { summarizerPromptBudget, summaryBudget, type PromptBudget } from '../common/tokens/budget';
import type { SummarizerSteps } from '../common/compaction/compactor';
import type { PreparedSummary } from '../common/fitting/preparedSummary';
import type { CondenseBlock } from '../common/summaries/condenseBlocks';
import { condensePasses, describeAttempts, produceSummary } from '../common/summaries/summarizationFlow';
import type { SummarizeBlock } from '../common/summaries/summarizeBlocks';
import { summarizerEntries } from '../common/summaries/summarizerInput';
import { summaryLength } from '../common/summaries/summaryLength';
import { recognizePromptTooLong } from '../common/tokens/promptTooLong';
import { log } from './log';
import { renderCondense, renderCondenseBlock, renderSummarizer, type ChatPrompt } from './promptRendering';
import { extractSummary, isBudgetExceededError, summaryOfReply } from '../prompts';
import { countTokens } from '../common/tokens/tokenizer';
import { ProviderUnavailableError, callModelQuietly } from './modelCall';
import type { TokenCalibration } from './tokenCalibration';

/** What the model's summaries of one request are written with. */
export interface SummarizerInput {
	readonly model: vscode.LanguageModelChat;
	/** Read at every summary: a "prompt too long" from the provider tightens it during the request. */
	budget(): PromptBudget;
	/** Learns from a summarizer request the provider rejected as too long. */
	readonly calibration?: TokenCalibration;
	/** The user's message of the request in progress ('' for commands). */
	readonly currentRequest: string;
	/** /compact's optional focus text. */
	readonly focus?: string;
	/** Another model that writes the summaries (`longhaul.summarizerModel`, summarizerModel.ts); without it, `model` does. */
	readonly summarizerModel?: SummarizerModel;
	/** Where a wait for a rate limit is shown: the chat request's progress (none for a background job). */
	readonly onWait?: (text: string) => void;
	/** Wraps each model call (a background job's calls are timed, ProviderSlots). */
	readonly onCall?: <T>(call: () => Promise<T>) => Promise<T>;
}

/** The model call itself, wrapped as the input asks. */
function sent<T>(ctx: SummarizerInput, call: () => Promise<T>): Promise<T> {
	return ctx.onCall ? ctx.onCall(call) : call();
}

/** A model other than the request's that writes summaries, and what a summarizer prompt may take with it. */
export interface SummarizerModel {
	readonly model: vscode.LanguageModelChat;
	/** Its own window in local tokens (by its own token ratio), less the reserve: read at each summary. */
	promptBudget(): number;
}

export type SummaryReason = 'overflow' | 'command' | 'background';

/** The summarizer and the condenser of a request, on `token` (a background job's own, or the request's). */
export function modelSteps(input: SummarizerInput, token: vscode.CancellationToken): SummarizerSteps {
	return { summarize: modelSummarizer(input, token), condense: modelCondenser(input, token) };
}

/**
 * The summarizer step: one turn's block, Full then Simple with the request's model, each with one
 * condense pass when its summary comes back over the cap. The prompts state the length
 * (summaryLength.ts). Cancellation propagates as vscode.CancellationError; a provider that is
 * unavailable (quota, blocked, no permission, model gone; a rate limit past its retries) stops the
 * request as ProviderUnavailableError: it is not a summary that failed, so nothing is truncated.
 */
function modelSummarizer(ctx: SummarizerInput, token: vscode.CancellationToken): SummarizeBlock {
	return (conversation, request) => {
		const entries = summarizerEntries(conversation, request, ctx.currentRequest);
		const budget = ctx.budget();
		const cap = summaryBudget(budget);
		const length = summaryLength(cap);
		const model = ctx.summarizerModel?.model ?? ctx.model;
		const promptBudget = ctx.summarizerModel?.promptBudget() ?? summarizerPromptBudget(budget);
		const asPrompt = (rendered: ChatPrompt) => ({ prompt: rendered, tokenCount: rendered.tokenCount });
		return produceSummary<ChatPrompt>(
			{
				render: async mode =>
					asPrompt(await renderSummarizer({ mode, entries, previousSummary: request.previousSummary?.text, focus: ctx.focus, length }, promptBudget)),
				renderCondense: async summary => asPrompt(await renderCondense({ summary, length }, promptBudget)),
				send: async prompt => {
					try {
						return summaryOfReply(await sent(ctx, () => callModelQuietly(model, prompt.messages, token, ctx.onWait)));
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
function modelCondenser(ctx: SummarizerInput, token: vscode.CancellationToken): CondenseBlock {
	return async (block, targetTokens) => {
		if (token.isCancellationRequested) throw new vscode.CancellationError();
		try {
			const rendered = await renderCondenseBlock(block, targetTokens, ctx.summarizerModel?.promptBudget() ?? summarizerPromptBudget(ctx.budget()));
			const text = extractSummary(await sent(ctx, () => callModelQuietly(ctx.summarizerModel?.model ?? ctx.model, rendered.messages, token, ctx.onWait)));
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
