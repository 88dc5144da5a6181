// The replay: a recorded session lived again request by request, at one window, with one
// strategy. Before each model call the prompt holds the conversation so far (past turns, then the
// rounds of the request in progress); the model's side (each round) comes from the recording.
// When the prompt does not fit, the product modes call the product's own adapter and overflow
// pipeline (fitAgentPrompt → fitPrompt), as src/agent/promptFitting.ts does, with the real planners
// and prompt-tsx prompts; only the summarizer's reply is a stand-in (replaySummarizer.ts). With
// `modelTokenRatio` R, the stand-in model counts about R× the local tokens (more for code-like lines
// than for prose, standInModel.ts) and refuses what is over the window by its count; the product
// modes then learn the ratio (sampled counts, rejections: src/common/tokens/calibration.ts) and
// recover from a refusal as the agent does; the references are refused too and re-fit as their
// agents do (fitReference). With `summarizerFaults` P, a share P of summarizer replies fail
// (summarizerFaults.ts) and the product's own flow decides what happens next.
// One replay is a few stages over one state record (replayState.ts): fit the request's prompt
// (strategies.ts), send it to the stand-in model, measure what it shows (this file), add the
// recorded reply, end the turn; then the metrics (replayMetrics.ts). See bench/RESULTS.md.
import { observeSample, shouldSample } from '../../src/common/tokens/calibration';
import { retryMessageBudget } from '../../src/common/fitting/refusal';
import { noteToolCall } from '../../src/common/fitting/fitSession';
import { newFitSession } from '../../src/common/fitting/fitSession';
import type { Round } from '../../src/common/conversation/conversation';
import { summaryBlocks } from '../../src/common/conversation/summaryBlocks';
import { summaryMessageText } from '../../src/prompts/summaryMessage';
import type { FitSettings } from '../../src/prompts/fitAgentPrompt';
import { MIN_KEPT_ROUNDS } from '../../src/common/planning/halfContextPlanner';
import { MASKED_STRATEGIES, productSettings, type MaskingMetrics } from './masking';
import type { ContinuityMetrics, LedgerOffComparison } from './continuity';
import type { BlockOrderMetrics } from './blockOrder';
import type { FaultMetrics } from './summarizerFaults';
import type { Session } from './session';
import { HEAD_ROUNDS, fitHeadTail, fitProduct, fitTruncateHalf } from './strategies';
import {
	budgetNow,
	learnRefusal,
	messageKey,
	modelCount,
	newReplayState,
	refusedByModel,
	roundTokens,
	sentRequest,
	type Fitted,
	type ReplayState,
} from './replayState';
import { replayMetrics } from './replayMetrics';
import { loadBashParser } from '../../src/common/shell/bashParser';
import type { ClockName } from './clock';
import { considerBackground, endBackground, newReplayBackground, settleBackground } from './backgroundReplay';

export { HEAD_ROUNDS, HEAD_TAIL_SUMMARIES_PER_RENDER } from './strategies';
export { TOOL_NAMES, WORKSPACE } from './replayState';

export const STRATEGIES = ['legacy', 'half-context', 'truncate-half', 'keep-head-tail', ...MASKED_STRATEGIES] as const;
export type StrategyName = (typeof STRATEGIES)[number];
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
	/** Calls the provider served at once (null without a clock). */
	readonly providerConcurrency: number | null;
	/** Background summaries ran (product modes with a clock and background on). */
	readonly background: boolean;
	/** The stand-in summarizer: a share N of the facts, or `copying`. */
	readonly summaryInformation: number | 'copying';
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
	/** --provider-concurrency N: calls the provider serves at once (providerQueue.ts); default 1. */
	readonly providerConcurrency?: number;
	/** Background summaries in the product modes when there is a clock (default true). */
	readonly background?: boolean;
}

/** The product's settings behind a strategy name (the replay uses the product's defaults for the rest). */
function productFitSettings(r: ReplayState): FitSettings | undefined {
	const product = productSettings(r.strategy);
	if (!product) return undefined;
	return {
		mode: product.mode,
		maskOldToolResults: product.mask,
		autoSummarize: true,
		minKeep: MIN_KEPT_ROUNDS,
		...(r.options.halfContextSplit ? { halfContextSplit: r.options.halfContextSplit } : {}),
	};
}

export async function replaySession(session: Session, options: ReplayOptions): Promise<ReplayResult> {
	await loadBashParser(); // the done-ledger's shell classifier reads command lines with it
	const r = newReplayState(session, options);
	const records: RequestRecord[] = [];
	for (const turn of r.recorded.turns) {
		startTurn(r, turn.user);
		for (const [callIndex, round] of turn.rounds.entries()) {
			const fitted = await fitRequest(r, turn.user, callIndex);
			records.push(await recordRequest(r, fitted, records.length));
			addReply(r, round, fitted.prompt.tokenCount);
		}
		endTurn(r, turn);
	}
	await endBackground(r);
	if (process.env.LONGHAUL_BENCH_DEBUG) for (const p of r.blocks.problems) process.stderr.write(`block order: ${p}\n`);
	return { metrics: replayMetrics(session.name, r, records), perRequest: records };
}

/** A recorded turn starts: a new chat request, with a new memory of the overflow pipeline. */
function startTurn(r: ReplayState, user: string): void {
	r.pendingNew += 3 + r.mt.countTokens(user);
	r.continuity.startTurn(user);
	r.request = user;
	r.fit = newFitSession();
}

/** The request's prompt, made to fit by the strategy and, for the product, sent to the stand-in model. */
async function fitRequest(r: ReplayState, request: string, callIndex: number): Promise<Fitted> {
	r.counters.compactionsThisRequest = 0;
	r.counters.summarizationsThisRequest = 0;
	const settings = productFitSettings(r);
	if (!settings) return fitReference(r, request);
	r.background ??= r.clock && r.options.background !== false ? newReplayBackground(r, settings, () => r.request) : undefined;
	let fitted = await fitProduct(r, settings, request);
	if (!fitted.overflow) considerBackground(r, r.conversation, fitted.prompt.tokenCount);
	if (r.options.modelTokenRatio === undefined || fitted.overflow) return fitted;
	// The stand-in model's hard limit, and the product's recovery (src/agent/modelRetry.ts): recount
	// with what the refusal says, refit at the tightened count, send once more.
	const sent = sentRequest(r, fitted.prompt);
	if (refusedByModel(r, sent)) {
		const before = budgetNow(r);
		learnRefusal(r, sent);
		r.counters.recoveries++;
		const after = budgetNow(r);
		fitted = await fitProduct(r, settings, request, retryMessageBudget(fitted.prompt.tokenCount, before.ratio, after.ratio, after.messages));
		const resent = sentRequest(r, fitted.prompt);
		if (!fitted.overflow && refusedByModel(r, resent)) {
			r.counters.modelRejections++;
			r.counters.refusedInTheEnd++;
			learnRefusal(r, resent);
		}
	}
	// The product's background sample of the model's count, ready for the next request.
	if (r.options.calibrate !== false && shouldSample(callIndex)) {
		const sent = sentRequest(r, fitted.prompt);
		r.calibration = observeSample(r.calibration, sent.tokens, modelCount(r, sent), 0);
	}
	return fitted;
}

/**
 * The reference strategies, held to the product's rules: under --model-token-ratio the stand-in
 * model refuses their prompts over the window too. They learn no ratio, so a refusal counts as a
 * rejection; then the reference does what its agent does on a context-window error (strategies.ts:
 * truncate-half drops three quarters of the visible rounds as Cline does, keep-head-tail summarizes
 * once more with half the tail as OpenHands' condensation request does) and sends again. Refused
 * again, the request is lost (refusedInTheEnd, requestsLost).
 */
async function fitReference(r: ReplayState, request: string): Promise<Fitted> {
	const fitted = await fitReferenceOnce(r, request, false);
	if (fitted.overflow || !refusedByModel(r, sentRequest(r, fitted.prompt))) return fitted;
	r.counters.modelRejections++;
	r.counters.recoveries++;
	const refit = await fitReferenceOnce(r, request, true);
	if (!refit.overflow && refusedByModel(r, sentRequest(r, refit.prompt))) r.counters.refusedInTheEnd++;
	return refit;
}

/** One fit of a reference; keep-head-tail's summaries are waits like the product's (the clock's). */
async function fitReferenceOnce(r: ReplayState, request: string, afterRefusal: boolean): Promise<Fitted> {
	if (r.strategy === 'truncate-half') return fitTruncateHalf(r, request, afterRefusal);
	r.timing.fitWaitMs = 0;
	const fitted = await fitHeadTail(r, request, afterRefusal);
	if (r.clock && r.counters.summarizationsThisRequest > 0) r.timing.waits.push(r.timing.fitWaitMs);
	return fitted;
}

/** What the prompt sent for one request shows: its horizon, ceiling, reused prefix and new tokens; the probes see it too. */
async function recordRequest(r: ReplayState, fitted: Fitted, index: number): Promise<RequestRecord> {
	const { counters } = r;
	// Verbatim horizon: newest rounds shown verbatim, counted back from the newest.
	let horizon = 0;
	while (horizon < r.allIds.length && fitted.verbatimIds.has(r.allIds[r.allIds.length - 1 - horizon])) horizon++;
	r.masking.recordRequest(r.allRounds, fitted.verbatimRounds);
	await r.continuity.recordRequest({
		compacted: counters.compactionsThisRequest > 0,
		messages: fitted.prompt.messages,
		shown: fitted.verbatimRounds,
		summaries: shownSummaries(r, fitted),
		conversation: r.conversation,
		request: r.request,
	});
	const tokenizedNow = r.tok.stats().tokenizedTokens;
	const tokenized = tokenizedNow - r.lastTokenized;
	const compactionTokenized = counters.tokenizedInCompaction - r.lastCompactionTokenized;
	r.lastTokenized = tokenizedNow;
	r.lastCompactionTokenized = counters.tokenizedInCompaction;
	const summaryTokens = newSummaryTokens(r, fitted);
	const newTokens = index === 0 ? fitted.prompt.tokenCount : r.pendingNew + summaryTokens;
	r.pendingNew = 0;
	return {
		index,
		promptTokens: fitted.prompt.tokenCount,
		overflow: fitted.overflow,
		compactions: counters.compactionsThisRequest,
		summarizations: counters.summarizationsThisRequest,
		verbatimRounds: horizon,
		limitRounds: verbatimLimit(r, fitted),
		prefixReuse: prefixReuse(r, fitted),
		tokenized,
		tokenizedOutsideCompaction: tokenized - compactionTokenized,
		newTokens,
	};
}

/** The summaries a strategy laid out for this prompt: the product's blocks, keep-head-tail's one. */
function shownSummaries(r: ReplayState, fitted: Fitted): string[] {
	if (productSettings(r.strategy)) return summaryBlocks(r.conversation).map(b => b.text);
	return fitted.summaryText !== undefined ? [fitted.summaryText] : [];
}

/** Ceiling: the newest rounds that would fit next to the same fixed part (instructions, users, summary). */
function verbatimLimit(r: ReplayState, fitted: Fitted): number {
	const fixed = fitted.prompt.tokenCount - fitted.verbatimRounds.reduce((s, round) => s + roundTokens(r, round), 0);
	let limit = 0;
	let used = fixed;
	while (limit < r.allRounds.length && used + roundTokens(r, r.allRounds[r.allRounds.length - 1 - limit]) <= budgetNow(r).messages) {
		used += roundTokens(r, r.allRounds[r.allRounds.length - 1 - limit]);
		limit++;
	}
	return limit;
}

/** Prefix reuse at message level: tokens of the leading messages identical to the previous prompt's (undefined for the first). */
function prefixReuse(r: ReplayState, fitted: Fitted): number | undefined {
	const keys = fitted.prompt.messages.map(messageKey);
	const previous = r.previousKeys;
	r.previousKeys = keys;
	if (!previous) return undefined;
	let same = 0;
	let sameTokens = 0;
	while (same < keys.length && same < previous.length && keys[same] === previous[same]) {
		sameTokens += r.mt.countMessageTokens(fitted.prompt.messages[same]);
		same++;
	}
	return fitted.prompt.tokenCount ? sameTokens / fitted.prompt.tokenCount : 0;
}

/** A summary written for this request is new prompt content too. */
function newSummaryTokens(r: ReplayState, fitted: Fitted): number {
	let tokens = 0;
	if (productSettings(r.strategy)) {
		const now = summaryBlocks(r.conversation);
		for (const b of now) if (!r.shownBlockTexts.has(b.text)) tokens += 3 + r.mt.countTokens(summaryMessageText(b.text, b.condensed));
		r.shownBlockTexts = new Set(now.map(b => b.text));
	} else if (r.counters.compactionsThisRequest > 0 && fitted.summaryText !== undefined) {
		tokens += 3 + r.mt.countTokens(summaryMessageText(fitted.summaryText));
	}
	return tokens;
}

/** The model's reply: the recorded round joins the request in progress. */
function addReply(r: ReplayState, round: Round, promptTokens: number): void {
	r.clock?.agentRound(promptTokens + budgetNow(r).toolTokens, round, r.mt);
	settleBackground(r);
	r.conversation = { turns: r.conversation.turns, activeRounds: [...r.conversation.activeRounds, round] };
	r.allIds.push(round.id);
	r.allRounds.push(round);
	if (r.allIds.length <= HEAD_ROUNDS) r.headIds.add(round.id);
	r.pendingNew += roundTokens(r, round);
	r.continuity.addRound(round);
	if (!productSettings(r.strategy)) return;
	for (const call of round.toolCalls) {
		if (noteToolCall(r.fit, call.name, call.arguments, call.result)) r.counters.repeatLoopBreaks++;
	}
}

/** The request ends: its rounds become a past turn (keeping any summaries and elisions on them). */
function endTurn(r: ReplayState, turn: { user: string; maxToolCallsExceeded?: boolean; cancelled?: boolean }): void {
	r.conversation = {
		turns: [
			...r.conversation.turns,
			{
				user: turn.user,
				rounds: r.conversation.activeRounds,
				...(turn.maxToolCallsExceeded ? { maxToolCallsExceeded: true } : {}),
				...(turn.cancelled ? { cancelled: true } : {}),
			},
		],
		activeRounds: [],
	};
}
