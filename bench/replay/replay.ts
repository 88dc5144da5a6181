// The replay: a recorded session lived again request by request, at one window, with one
// strategy. Before each model call the prompt holds the conversation so far (past turns, then the
// rounds of the request in progress); the model's side (each round) comes from the recording.
// When the prompt does not fit, the product modes call the product's own Compactor and overflow
// pipeline (Compactor.fit → fitPrompt, replayCompactor.ts), as src/agent/promptFitting.ts does, with the real planners
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
import { noteToolCall } from '../../src/common/fitting/fitMemory';
import { newFitMemory } from '../../src/common/fitting/fitMemory';
import type { Round } from '../../src/common/conversation/conversation';
import { summaryBlocks } from '../../src/common/conversation/summaryBlocks';
import { summaryMessageText } from '../../src/prompts/summaryMessage';
import type { CompactorSettings } from '../../src/common/compaction/compactor';
import { MIN_RECENT_ROUNDS } from '../../src/common/planning/halfContextPlanner';
import { productSettings } from './masking';
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
import { computeBackground, endBackground, LATEST_SHARE, replayCompactor, settleBackground } from './replayCompactor';
import type { ReplayOptions, ReplayResult, RequestRecord } from './replayTypes';

// What a replay is asked and answers lives in replayTypes.ts (what replay.ts imports reads it there,
// so no import runs back here); main.ts takes it from here with replaySession.
export { STRATEGIES, WINDOWS } from './replayTypes';
export type { ReplayMetrics, ReplayOptions, ReplayResult, StrategyName } from './replayTypes';

/** The product's settings behind a strategy name (the replay uses the product's defaults for the rest). */
function productFitSettings(r: ReplayState): CompactorSettings | undefined {
	const product = productSettings(r.strategy);
	if (!product) return undefined;
	return {
		mode: product.mode,
		maskOldToolResults: product.mask,
		autoSummarize: true,
		minRecentRounds: MIN_RECENT_ROUNDS,
		latestShare: LATEST_SHARE,
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
			await addReply(r, round, fitted.prompt.tokenCount);
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
	r.fit = newFitMemory();
}

/** The request's prompt, made to fit by the strategy and, for the product, sent to the stand-in model. */
async function fitRequest(r: ReplayState, request: string, callIndex: number): Promise<Fitted> {
	r.counters.compactionsThisRequest = 0;
	r.counters.summarizationsThisRequest = 0;
	const settings = productFitSettings(r);
	if (!settings) return fitReference(r, request);
	const compactor = (r.compactor ??= replayCompactor(r, settings));
	let fitted = await fitProduct(r, compactor, request);
	// A job the fit started (the bridge) is computed before the next decision, and one started now before anything moves on.
	await computeBackground(r);
	if (!fitted.overflow) compactor.considerBackground(r.conversation, fitted.prompt.tokenCount, r.fit);
	await computeBackground(r);
	if (r.options.modelTokenRatio === undefined || fitted.overflow) return fitted;
	// The stand-in model's hard limit, and the product's recovery (src/agent/modelRetry.ts): recount
	// with what the refusal says, refit at the tightened count, send once more.
	const sent = sentRequest(r, fitted.prompt);
	if (refusedByModel(r, sent)) {
		const before = budgetNow(r);
		learnRefusal(r, sent);
		r.counters.recoveries++;
		const after = budgetNow(r);
		fitted = await fitProduct(r, compactor, request, retryMessageBudget(fitted.prompt.tokenCount, before.ratio, after.ratio, after.messages));
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
async function addReply(r: ReplayState, round: Round, promptTokens: number): Promise<void> {
	await computeBackground(r);
	r.clock?.agentRound(promptTokens + budgetNow(r).toolTokens, round, r.mt);
	await settleBackground(r);
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
