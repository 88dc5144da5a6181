// What every Longhaul response returns to VS Code: `ChatResult.metadata` holds this turn's record
// (rounds, summary blocks, done-ledger; src/common/persistence/metadata.ts), which the next request
// reads back from the chat history, plus the request's statistics that tests and telemetry read.
import type * as vscode from 'vscode';
import { encodeTurnRecord } from '../common/persistence/metadata';
import { percentile } from '../common/stats/percentile';
import type { RequestState } from './requestState';
import type { LonghaulSettings } from './settings';

/** What every Longhaul response stores in `ChatResult.metadata`. */
export interface LonghaulResultMetadata {
	readonly summarizationMode: LonghaulSettings['summarizationMode'];
	/** This turn's rounds and the summaries made during it (src/common/persistence/metadata.ts). */
	readonly longhaul: unknown;
	readonly summarizations: number;
	readonly toolCalls: number;
	/** Summaries prepared in the background during this request, and what became of them. */
	readonly background: RequestState['background'];
	/** Longhaul's own time per round in this request (from a model reply to the next request, less tool runs and summary waits), ms. */
	readonly ownTimeMs: { readonly rounds: number; readonly p50: number; readonly p95: number; readonly max: number };
	/** Fits of this request that waited for a summary or a condensation: how many, the longest and the total wait, ms. */
	readonly compactionWaitMs: { readonly fits: number; readonly max: number; readonly total: number };
	/** Rounds dropped without a model summary, the last step of truncation. */
	readonly droppedRounds: number;
	/** Old tool results replaced by placeholders in this request (cheap-first compaction). */
	readonly masking: { readonly maskings: number; readonly maskedResults: number; readonly freedTokens: number };
	/** Why the loop breaker stopped model summaries in this request, if it did. */
	readonly loopBreaker?: string;
	/** Steps the provider rejected as too long and that went through after recounting. */
	readonly recoveries: number;
	/** Older summary blocks condensed in this request to keep all blocks within the summary budget; `ahead`: of those, prepared by a background summary's job. */
	readonly condensedBlocks: { readonly count: number; readonly ahead: number; readonly byModel: number };
	/** Condense passes (a too-long summary shortened by the model) in this request. */
	readonly condensePasses: number;
	/** Overflows where the model's summary failed and old tool results or rounds were removed instead. */
	readonly truncationsAfterFailedSummary: number;
	/** The model's tokens per local token (token calibration) at the start and end of the request, and when it changed. */
	readonly tokenRatio: RequestState['tokenRatio'];
	/** The model that wrote this request's summaries, when it was not the request's own (`longhaul.summarizerModel`). */
	readonly summarizerModel?: string;
}

export interface ResultOptions {
	readonly errorMessage?: string;
	/** The request did not fit the window and was not answered. */
	readonly refused?: boolean;
	/** Commands (/context, /compact, /restore) store no ledger: the next request takes the previous one. */
	readonly storeLedger?: boolean;
}

export function resultFor(state: RequestState, settings: LonghaulSettings, options: ResultOptions = {}): vscode.ChatResult {
	const metadata: LonghaulResultMetadata = {
		summarizationMode: settings.summarizationMode,
		longhaul: encodeTurnRecord({
			rounds: state.conversation.activeRounds,
			maxToolCallsExceeded: state.maxToolCallsExceeded || undefined,
			cancelled: state.cancelled || undefined,
			refused: options.refused || undefined,
			summaryBlocks: state.newSummaries,
			doneLedger: options.storeLedger === false ? undefined : state.ledger,
		}),
		summarizations: state.tally.summarizations,
		toolCalls: state.toolCallCount,
		background: state.background,
		masking: { maskings: state.tally.masking.maskings, maskedResults: state.tally.masking.maskedResults, freedTokens: state.tally.masking.freedTokens },
		droppedRounds: state.tally.droppedRounds,
		ownTimeMs: timeSummary(state.ownTimeMs),
		compactionWaitMs: waitSummary(state.compactionWaitsMs),
		...(state.fit.modelSummariesStopped ? { loopBreaker: state.fit.modelSummariesStopped } : {}),
		recoveries: state.recoveries,
		condensedBlocks: { count: state.tally.condensedBlocks, ahead: state.tally.condensedAhead, byModel: state.tally.condensedByModel },
		condensePasses: state.tally.condensePasses,
		truncationsAfterFailedSummary: state.tally.truncationsAfterFailedSummary,
		tokenRatio: state.tokenRatio,
		...(state.summarizerModel ? { summarizerModel: state.summarizerModel } : {}),
	};
	return options.errorMessage ? { metadata, errorDetails: { message: options.errorMessage } } : { metadata };
}

function timeSummary(times: readonly number[]): LonghaulResultMetadata['ownTimeMs'] {
	const at = (p: number) => Math.round(percentile(times, p) * 10) / 10;
	return { rounds: times.length, p50: at(50), p95: at(95), max: at(100) };
}

function waitSummary(waits: readonly number[]): LonghaulResultMetadata['compactionWaitMs'] {
	return { fits: waits.length, max: Math.round(Math.max(0, ...waits)), total: Math.round(waits.reduce((a, b) => a + b, 0)) };
}
