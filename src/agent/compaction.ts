import * as vscode from 'vscode';
import { summarizerPromptBudget, summaryBudget, type PromptBudget } from '../common/tokens/budget';
import { NothingToSummarizeError, type SummarizationMode, type SummarizationPlan } from '../common/planning/plan';
import type { Conversation } from '../common/conversation/conversation';
import { applySummary, planSummarization } from '../common/planning/planners';
import { produceSummary, type SummaryAttempt } from '../common/summaries/summarizationFlow';
import { summarizeNarrowing } from '../common/planning/narrowPlan';
import { summarizerEntries } from '../common/summaries/summarizerInput';
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
	readonly reason: 'overflow' | 'command' | 'background';
}

export type CompactionOutcome =
	| { readonly kind: 'summarized'; readonly plan: SummarizationPlan; readonly attempts: readonly SummaryAttempt[]; readonly narrowed: boolean }
	| { readonly kind: 'nothing-to-summarize' }
	| { readonly kind: 'failed'; readonly plan: SummarizationPlan; readonly attempts: readonly SummaryAttempt[] };

/** One line for the chat that says what happened. */
export function describePlan(plan: SummarizationPlan): string {
	const fallback = plan.fallbackReason ? `, fell back to legacy: ${plan.fallbackReason}` : '';
	const { summarizedRoundCount: s, keptRoundCount: k } = plan.stats;
	return `Summarized ${s} older round${s === 1 ? '' : 's'}, kept ${k} recent round${k === 1 ? '' : 's'} verbatim (${plan.mode}${fallback}).`;
}

/** A summary made for a plan but not attached yet. */
export interface PreparedSummary {
	readonly plan: SummarizationPlan;
	readonly attempts: readonly SummaryAttempt[];
	/** Undefined when every attempt failed. */
	readonly summary?: string;
	/** The summarizer could not take every planned round, so only the oldest were summarized (narrowPlan.ts). */
	readonly narrowed: boolean;
}

/**
 * Plans the summarization of `conversation` with the active planner and asks the model for the
 * summary (Full, then Simple). Changes nothing; `undefined` when there is nothing to summarize.
 * Cancellation propagates as vscode.CancellationError.
 */
export async function prepareSummary(conversation: Conversation, ctx: Omit<CompactionContext, 'stream'>): Promise<PreparedSummary | undefined> {
	const started = Date.now();
	let plan: SummarizationPlan;
	try {
		plan = planSummarization(conversation, ctx.mode, { countTokens });
	} catch (error) {
		if (error instanceof NothingToSummarizeError) {
			log().info(`summarization skipped: nothing to summarize (mode ${ctx.mode}, reason ${ctx.reason})`);
			return undefined;
		}
		throw error;
	}
	const planned = plan;
	const narrowed = await summarizeNarrowing(
		conversation,
		plan,
		candidate => {
			const entries = summarizerEntries(conversation, candidate, ctx.currentRequest);
			return produceSummary(
				{
					render: async mode => {
						const rendered = await renderSummarizer(
							{ mode, entries, previousSummary: candidate.previousSummary?.text, focus: ctx.focus },
							summarizerPromptBudget(ctx.budget),
						);
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
		},
		{ countTokens },
	);
	plan = narrowed.plan;
	const result = narrowed.result;

	const tokensBefore = plan.stats.tokens ? plan.stats.tokens.summarized + plan.stats.tokens.kept + plan.stats.tokens.previousSummary : undefined;
	log().info(
		'summarization ' +
			JSON.stringify({
				reason: ctx.reason,
				mode: plan.mode,
				requestedMode: plan.requestedMode,
				fallbackReason: plan.fallbackReason ?? null,
				summarized: plan.stats.summarizedRoundCount,
				narrowedFrom: plan === planned ? null : planned.stats.summarizedRoundCount,
				kept: plan.stats.keptRoundCount,
				tokensBefore,
				summaryTokens: result.summary ? countTokens(result.summary) : null,
				tokensAfter: result.summary && plan.stats.tokens ? plan.stats.tokens.kept + countTokens(result.summary) : null,
				attempts: result.attempts.map(a => `${a.mode}:${a.outcome}`),
				durationMs: Date.now() - started,
			}),
	);
	return { plan, attempts: result.attempts, summary: result.summary, narrowed: plan !== planned };
}

/** Attaches a prepared summary to its anchor round, records it for this turn's metadata and tells the user. */
export function attachSummary(state: RequestState, prepared: PreparedSummary & { summary: string }, stream: vscode.ChatResponseStream, note = ''): void {
	state.conversation = applySummary(state.conversation, prepared.plan.anchorRoundId, prepared.summary);
	state.newSummaries.push({ roundId: prepared.plan.anchorRoundId, text: prepared.summary });
	state.summarizations++;
	stream.markdown(`\n\n*${describePlan(prepared.plan)}${note}*\n\n`);
}

/**
 * Summarizes the older part of the conversation with the active planner. On success the
 * summary is attached to the plan's anchor round in `state` and recorded for this turn's
 * metadata; on failure `state` is untouched. Cancellation propagates.
 */
export async function compact(state: RequestState, ctx: CompactionContext): Promise<CompactionOutcome> {
	if (!canPlan(state.conversation, ctx.mode)) {
		log().info(`summarization skipped: nothing to summarize (mode ${ctx.mode}, reason ${ctx.reason})`);
		return { kind: 'nothing-to-summarize' };
	}
	ctx.stream.progress('Summarizing conversation history…');
	const prepared = await prepareSummary(state.conversation, ctx);
	if (!prepared) {
		return { kind: 'nothing-to-summarize' };
	}
	if (prepared.summary === undefined) {
		return { kind: 'failed', plan: prepared.plan, attempts: prepared.attempts };
	}
	attachSummary(state, { ...prepared, summary: prepared.summary }, ctx.stream);
	return { kind: 'summarized', plan: prepared.plan, attempts: prepared.attempts, narrowed: prepared.narrowed };
}

/** True when the planner finds something to summarize (checked before showing progress). */
export function canPlan(conversation: Conversation, mode: SummarizationMode): boolean {
	try {
		planSummarization(conversation, mode);
		return true;
	} catch (error) {
		if (error instanceof NothingToSummarizeError) return false;
		throw error;
	}
}
