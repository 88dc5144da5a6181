// The metrics of one replay, from its per-request records, the FitTally the product's pipeline
// kept, and the replay's own counters (bench/RESULTS.md explains each).
import { calibrationRatio } from '../../src/common/tokens/calibration';
import { percentile } from '../../src/common/stats/percentile';
import { productSettings } from './masking';
import { faultMetrics } from './summarizerFaults';
import type { ReplayMetrics, RequestRecord } from './replayTypes';
import type { ReplayState } from './replayState';

function mean(values: readonly number[]): number {
	return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Metrics of the requests themselves: sizes, horizons, fill, reuse and tokenizing. */
function requestMetrics(records: readonly RequestRecord[], window: number) {
	const afterCompaction = records.filter(r => r.compactions > 0).map(r => r.verbatimRounds);
	const sent = records.filter(r => !r.overflow);
	const totalTokenized = records.reduce((s, r) => s + r.tokenized, 0);
	const totalOutside = records.reduce((s, r) => s + r.tokenizedOutsideCompaction, 0);
	const totalNew = records.reduce((s, r) => s + r.newTokens, 0);
	const fills = records.map(r => r.promptTokens / window);
	const reuses = records.flatMap(r => (r.prefixReuse === undefined ? [] : [r.prefixReuse]));
	return {
		totalTokenized,
		requests: records.length,
		mainInputTokens: sent.reduce((s, r) => s + r.promptTokens, 0),
		overflows: records.length - sent.length,
		verbatimHorizonRounds: round3(mean(records.map(r => r.verbatimRounds))),
		verbatimAfterSummaryRounds: afterCompaction.length ? round3(mean(afterCompaction)) : null,
		verbatimLimitRounds: round3(mean(records.map(r => r.limitRounds))),
		fillRatioMean: round3(mean(fills)),
		fillRatioMin: round3(fills.length ? Math.min(...fills) : 0),
		prefixReuse: round3(mean(reuses)),
		tokenizedPerNewToken: round3(totalNew ? totalTokenized / totalNew : 0),
		compactions: records.reduce((s, r) => s + r.compactions, 0),
		compactedRequests: afterCompaction.length,
		tokenizedPerNewTokenOutsideCompaction: round3(totalNew ? totalOutside / totalNew : 0),
	};
}

export function replayMetrics(session: string, r: ReplayState, records: readonly RequestRecord[]): ReplayMetrics {
	const { tally, counters } = r;
	const { totalTokenized, ...perRequest } = requestMetrics(records, r.window);
	const mode = productSettings(r.strategy)?.mode;
	return {
		session,
		window: r.window,
		strategy: r.strategy,
		summaryInformation: r.options.summaryInformation ?? 'copying',
		...perRequest,
		summarizations: tally.summarizations + counters.referenceSummarizations,
		summarizerInputTokens: counters.summarizerInputTokens,
		renderMsP50: round3(percentile(counters.renderMs, 50)),
		renderMsP95: round3(percentile(counters.renderMs, 95)),
		planMsP50: counters.planMs.length ? round3(percentile(counters.planMs, 50)) : null,
		elidedToolResults: tally.elidedResults,
		summarizerCalls: counters.summarizerCalls,
		compactedRequestsMeasured: counters.compactedRequestsMeasured,
		compactionsNotSmaller: counters.compactionsNotSmaller,
		tokenizedShareInPlanner: round3(totalTokenized ? counters.tokenizedInPlanner / totalTokenized : 0),
		messageBudget: r.budget.messages,
		toolTokens: r.budget.toolTokens,
		loopBreaks: tally.requestLoopBreaks + counters.repeatLoopBreaks,
		droppedRounds: tally.droppedRounds + counters.referenceDroppedRounds,
		modelTokenRatio: r.options.modelTokenRatio ?? null,
		calibratedRatio: round3(calibrationRatio(r.calibration)),
		modelRejections: counters.modelRejections,
		recoveries: counters.recoveries,
		summarizerRejections: counters.summarizerRejections,
		condensePasses: tally.condensePasses + counters.referenceCondensePasses,
		summaryTooLarge: counters.summaryTooLarge,
		truncationsAfterFailedSummary: tally.truncationsAfterFailedSummary,
		truncations: tally.truncations,
		...r.masking.metrics(tally.masking),
		...r.continuity.metrics(),
		...r.blocks.metrics(),
		halfContextSplit: mode === 'half-context' ? (r.options.halfContextSplit ?? 'tokens') : null,
		splitMovedSummarizations: tally.splitMovedSummarizations,
		multiTurnSummarizations: tally.multiTurnSummarizations,
		keptTokensMean: tally.keptTokens.length ? Math.round(mean(tally.keptTokens)) : null,
		...timeMetrics(r),
		...faultMetrics(r.faults, perRequest.overflows, counters.refusedInTheEnd),
	};
}

/** Every wait of the user: the compaction waits that took time and the waits for the slot. */
function userWaitMetrics(compactionWaits: readonly number[], slotWaits: readonly number[]) {
	const all = [...compactionWaits.filter(ms => ms > 0), ...slotWaits];
	return {
		userWaits: all.length,
		userWaitMsTotal: Math.round(all.reduce((a, b) => a + b, 0)),
		userWaitMsP95: Math.round(percentile(all, 95)),
		userWaitMsMax: Math.round(Math.max(0, ...all)),
		slotWaits: slotWaits.length,
		slotWaitMsTotal: Math.round(slotWaits.reduce((a, b) => a + b, 0)),
	};
}

/** What the virtual clock measured (all 0 or null without one). */
function timeMetrics(r: ReplayState) {
	const { timing, counters } = r;
	const waits = timing.waits;
	const total = waits.reduce((a, b) => a + b, 0);
	const sessionMs = r.clock?.now ?? 0;
	const summarizerTokens = counters.summarizerInputTokens + counters.summarizerOutputTokens;
	const stats = r.compactor?.background?.stats;
	return {
		clock: r.options.clock && r.options.clock !== 'none' ? r.options.clock : null,
		sessionMs: Math.round(sessionMs),
		compactionOverflows: waits.length,
		preparedAtOverflow: waits.length && r.compactor?.background ? round3(timing.served / waits.length) : null,
		waitMsP50: Math.round(percentile(waits, 50)),
		waitMsP95: Math.round(percentile(waits, 95)),
		waitMsTotal: Math.round(total),
		waitShare: sessionMs ? round3(total / sessionMs) : 0,
		backgroundStarted: stats?.started ?? 0,
		backgroundStartedAhead: stats?.startedAhead ?? 0,
		backgroundUsed: stats?.used ?? 0,
		backgroundDiscarded: stats?.discarded ?? 0,
		backgroundTokensDiscarded: summarizerTokens ? round3(timing.discardedTokens / summarizerTokens) : 0,
		backgroundDiscardedTokens: timing.discardedTokens,
		summarizerTokens,
		backgroundTokensAtEnd: summarizerTokens ? round3(timing.pendingAtEndTokens / summarizerTokens) : 0,
		analysisTokens: counters.analysisTokens,
		rateLimitPauses: r.clock?.rateLimitPauses ?? 0,
		rateLimitMs: Math.round(r.clock?.rateLimitMs ?? 0),
		provider: r.clock ? (r.options.provider ?? 'cloud') : null,
		...userWaitMetrics(waits, r.clock?.slotWaits ?? []),
		background: r.compactor?.background !== undefined,
	};
}
