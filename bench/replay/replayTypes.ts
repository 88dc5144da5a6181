// What a replay is asked (ReplayOptions: the window, the strategy and the stand-in's settings) and
// what it answers (ReplayMetrics per session, RequestRecord per request), with the strategies and
// windows the benchmark runs.
import { MASKED_STRATEGIES, type MaskingMetrics } from './masking';
import type { ContinuityMetrics, LedgerOffComparison } from './continuity';
import type { BlockOrderMetrics } from './blockOrder';
import type { FaultMetrics } from './summarizerFaults';
import type { ClockName } from './clock';
import type { ProviderModel } from './providerQueue';

/**
 * The reference strategies again with what the product adds besides summaries: the longhaul_recall
 * tool (offered once something is dropped or summarized; it reaches the rounds the reference left
 * out) and the done-ledger (rendered again at each drop or summary, as the product's at each
 * summary). The table then shows what summaries add over truncation plus recall.
 */
export const RECALL_REFERENCES = ['truncate-half+recall', 'keep-head-tail+recall'] as const;
export const STRATEGIES = ['legacy', 'half-context', 'truncate-half', 'keep-head-tail', ...MASKED_STRATEGIES, ...RECALL_REFERENCES] as const;
export type StrategyName = (typeof STRATEGIES)[number];

/** A +recall reference strategy. */
export const withRecall = (strategy: string): boolean => (RECALL_REFERENCES as readonly string[]).includes(strategy);
/** The reference rule a strategy follows (itself, or the one it adds recall to). */
export const referenceRule = (strategy: string): string => strategy.replace(/\+recall$/, '');
export const WINDOWS = [16_000, 32_000, 64_000] as const;

export interface RequestRecord {
	readonly index: number;
	/** Tokens of the prompt sent (or, on overflow, of the prompt that did not fit). */
	readonly promptTokens: number;
	readonly overflow: boolean;
	/** Compactions done before this request: summaries, and rounds dropped (truncate-half's and the product's). */
	readonly compactions: number;
	readonly summarizations: number;
	readonly verbatimRounds: number;
	readonly limitRounds: number;
	/** undefined for the first request. */
	readonly prefixReuse?: number;
	readonly tokenized: number;
	readonly tokenizedOutsideCompaction: number;
	readonly newTokens: number;
}

export interface ReplayMetrics extends MaskingMetrics, ContinuityMetrics, BlockOrderMetrics, FaultMetrics {
	readonly session: string;
	readonly window: number;
	readonly strategy: StrategyName;
	readonly requests: number;
	readonly summarizations: number;
	readonly summarizerInputTokens: number;
	readonly mainInputTokens: number;
	readonly overflows: number;
	readonly verbatimHorizonRounds: number;
	readonly verbatimAfterSummaryRounds: number | null;
	readonly verbatimLimitRounds: number;
	readonly fillRatioMean: number;
	readonly fillRatioMin: number;
	readonly prefixReuse: number;
	readonly renderMsP50: number;
	readonly renderMsP95: number;
	readonly planMsP50: number | null;
	readonly tokenizedPerNewToken: number;
	// Extras (documented in bench/RESULTS.md).
	readonly compactions: number;
	/** Requests preceded by at least one compaction (the requests verbatimAfterSummaryRounds averages). */
	readonly compactedRequests: number;
	readonly elidedToolResults: number;
	readonly summarizerCalls: number;
	readonly tokenizedPerNewTokenOutsideCompaction: number;
	/** Share of all tokenized tokens spent inside planSummarization (its token statistics). */
	readonly tokenizedShareInPlanner: number;
	readonly messageBudget: number;
	readonly toolTokens: number;
	/** Chat requests in which the loop breaker stopped model summaries (src/common/fitting/loopBreaker.ts). */
	readonly loopBreaks: number;
	/** Rounds dropped without a summary: the product's last step of truncation (src/common/shrinking/dropOlderRounds.ts), truncate-half's every step. */
	readonly droppedRounds: number;
	/** The same replay with the done-ledger off (set by main.ts for legacy and half-context). */
	readonly ledgerOff?: LedgerOffComparison;
	/** half-context's split rule in this replay: `tokens` (the product's) or `rounds` (--half-split rounds); null for other strategies. */
	readonly halfContextSplit: 'tokens' | 'rounds' | null;
	/** Model summarizations whose split the token-aware rule moved (kept fewer rounds than the round rule). */
	readonly splitMovedSummarizations: number;
	/** Summarizations that made more than one block (they spanned turns). */
	readonly multiTurnSummarizations: number;
	/** Mean tokens of the kept rounds the plans reported, over model summarizations; null without. */
	readonly keptTokensMean: number | null;
	/** --model-token-ratio: the stand-in model's tokens per local token (null: it counts like the local tokenizer and has no hard limit). */
	readonly modelTokenRatio: number | null;
	/** The ratio the product had learned by the end of the replay (1 without --model-token-ratio). */
	readonly calibratedRatio: number;
	/** Product modes: agent requests the stand-in model still refused after the product's recovery (the request ends with an error). References: requests refused at all (they have no recovery; replay.ts fitReference). */
	readonly modelRejections: number;
	/** Agent requests the model refused as too long that the product recounted, refit and sent again (references: re-fit as their agent does and sent again). */
	readonly recoveries: number;
	/** Summarizer requests the model refused as too long (the flow then tries the next mode). */
	readonly summarizerRejections: number;
	/** Product modes: requests preceded by compactions (summaries, dropped rounds), measured against the same request without them. */
	readonly compactedRequestsMeasured?: number;
	/** Of those, the ones whose prompt the compactions did not make smaller (compactionGain.ts; the target is 0). */
	readonly compactionsNotSmaller?: number;
	/** Condense passes: a summary over the cap shortened by the model (summarizationFlow.ts). */
	readonly condensePasses: number;
	/** Summaries the model wrote over the cap (condensed ones included). */
	readonly summaryTooLarge: number;
	/** Overflows where the model's summary failed and old tool results or rounds were removed instead. */
	readonly truncationsAfterFailedSummary: number;
	/** Overflows that ended in truncation (old tool results elided or rounds dropped), whatever the reason. */
	readonly truncations: number;
	/** The virtual clock of this replay (clock.ts); null: none, and no background summaries. */
	readonly clock: ClockName | null;
	/** The session's time on that clock: model calls, tools and waits, ms. */
	readonly sessionMs: number;
	/** Overflows that attached a summary (the ones a user may wait at). */
	readonly compactionOverflows: number;
	/** Share of them served by a background summary that was ready; null without any. */
	readonly preparedAtOverflow: number | null;
	/** The user's wait at each compaction overflow, ms. */
	readonly waitMsP50: number;
	readonly waitMsP95: number;
	readonly waitMsTotal: number;
	/** Waiting time over the session's time. */
	readonly waitShare: number;
	readonly backgroundStarted: number;
	/** Of those, started ahead of an overflow (forecast or threshold) rather than by the bridge at one. */
	readonly backgroundStartedAhead: number;
	readonly backgroundUsed: number;
	readonly backgroundDiscarded: number;
	/** Summarizer tokens (in and out) of background jobs not used, over all summarizer tokens. */
	readonly backgroundTokensDiscarded: number;
	/** The two counts behind that share. */
	readonly backgroundDiscardedTokens: number;
	readonly summarizerTokens: number;
	/** Summarizer tokens of background jobs still pending when the recording ends, over all summarizer tokens (counted in backgroundTokensDiscarded too). */
	readonly backgroundTokensAtEnd: number;
	/** Tokens of `<analysis>` the summarizer calls wrote (charged on the clock at the output rate). */
	readonly analysisTokens: number;
	/** Model calls that met a rate-limit pause (--rate-limits), and the pauses' time, ms. */
	readonly rateLimitPauses: number;
	readonly rateLimitMs: number;
	/** The provider model (providerQueue.ts; null without a clock). */
	readonly provider: ProviderModel | null;
	/** Every time the user waited: at a compaction (for a summary) or, single-slot, for the provider's slot behind a started background request. */
	readonly userWaits: number;
	readonly userWaitMsTotal: number;
	/** p95 and longest of those waits, ms. */
	readonly userWaitMsP95: number;
	readonly userWaitMsMax: number;
	/** Of them, the waits for the slot (single-slot only): how many and how long in all, ms. */
	readonly slotWaits: number;
	readonly slotWaitMsTotal: number;
	/** Background summaries ran (product modes with a clock and background on). */
	readonly background: boolean;
	/** The stand-in summarizer: a share N of the facts, or `copying`. */
	readonly summaryInformation: number | 'copying';
	/** The corpus folder's name (set by main.ts for the runs over corpora). */
	readonly corpus?: string;
	/** The same replay with background summaries off (set by main.ts for the product modes): the waits. */
	readonly backgroundOff?: BackgroundOffComparison;
}

export interface BackgroundOffComparison {
	readonly compactionOverflows: number;
	readonly waitMsP50: number;
	readonly waitMsP95: number;
	readonly waitMsTotal: number;
	readonly sessionMs: number;
	readonly summarizerInputTokens: number;
}

export interface ReplayResult {
	readonly metrics: ReplayMetrics;
	readonly perRequest: readonly RequestRecord[];
}

export interface ReplayOptions {
	readonly window: number;
	readonly strategy: StrategyName;
	/** The done-ledger in the product strategies' prompts (default on, like the product; bench/replay/continuity.ts). */
	readonly doneLedger?: boolean;
	/** How often the ledger text is rendered again (continuity.ts); default at-summary. */
	readonly ledgerRefresh?: 'at-summary' | 'every-request';
	/** half-context's split rule (fitPrompt.ts FitOptions); default the product's. */
	readonly halfContextSplit?: 'tokens' | 'rounds';
	/**
	 * The stand-in model counts this many tokens per local token and refuses a request over the
	 * window by its count. Undefined: it counts like the local tokenizer and accepts everything.
	 */
	readonly modelTokenRatio?: number;
	/** The product modes sample the model's count (default true); false leaves only recovery from refusals. */
	readonly calibrate?: boolean;
	/** The virtual clock (clock.ts) and, with it, background summaries; default none (no clock, no background work). */
	readonly clock?: ClockName;
	/** --summarizer-faults P: the share of summarizer replies that fail (summarizerFaults.ts); default 0. */
	readonly summarizerFaults?: number;
	/**
	 * Which stand-in writes summaries: a share N (0–100) of the facts (informationSummary.ts; the
	 * command line's default is 30) or `copying` (standInSummary.ts, the default here, which the
	 * real-host replay test's scripted model also writes).
	 */
	readonly summaryInformation?: number | 'copying';
	/** --rate-limits P: the share of model calls that meet a rate-limit pause (clock.ts); default 0. */
	readonly rateLimits?: number;
	/** --provider: cloud (default: concurrent calls, one rate-limit budget) or single-slot (a local server: one request at a time, run to its end); providerQueue.ts. */
	readonly provider?: ProviderModel;
	/** Tests only: extra microtask and setImmediate ticks before and after every summarizer call (the figures must not move). */
	readonly extraTicks?: number;
	/** Background summaries in the product modes when there is a clock (default true). */
	readonly background?: boolean;
}
