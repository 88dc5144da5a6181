// Turns what a summarization or a fallback step did (plans, attempts, counts) into the telemetry
// events declared in telemetryEvents.ts. Pure; the agent sends the result (src/agent/telemetry.ts).
import type { SummarizationPlan } from '../planning/plan';
import { condensePasses, type SummaryAttempt, type SummaryPromptMode } from '../summaries/summarizationFlow';
import { telemetryEvent, type EventData, type TelemetryEvent } from './telemetryEvents';

export interface SummarizationFacts {
	readonly trigger: EventData<'summarization'>['trigger'];
	readonly outcome: EventData<'summarization'>['outcome'];
	/** The plan that was summarized (after narrowing, if any). */
	readonly plan: SummarizationPlan;
	/** Rounds the planner first chose, before narrowing. */
	readonly plannedRounds: number;
	readonly attempts: readonly Pick<SummaryAttempt, 'mode' | 'pass' | 'outcome'>[];
	/** Tokens of the accepted summary. */
	readonly summaryTokens?: number;
	readonly durationMs: number;
	readonly windowTokens: number;
	readonly minRecentRounds: number;
	/** Which model wrote it (`longhaul.summarizerModel`); the request's own when not said. */
	readonly summarizerModel?: EventData<'summarization'>['summarizerModel'];
}

export function summarizationEvent(facts: SummarizationFacts): TelemetryEvent<'summarization'> {
	const { plan } = facts;
	const tokens = plan.stats.tokens;
	const summarized = facts.outcome === 'summarized';
	const summaryTokens = summarized ? (facts.summaryTokens ?? 0) : 0;
	return telemetryEvent('summarization', {
		trigger: facts.trigger,
		outcome: facts.outcome,
		mode: plan.mode,
		requestedMode: plan.requestedMode,
		fallbackReason: plan.fallbackReason ?? 'none',
		narrowed: String(facts.plannedRounds !== plan.stats.summarizedRoundCount) as 'true' | 'false',
		continuation: String(plan.isContinuation) as 'true' | 'false',
		splitInsideTurn: String(plan.splitInsideTurnIndex !== undefined) as 'true' | 'false',
		fullAttempt: attemptOutcome(facts.attempts, 'full'),
		simpleAttempt: attemptOutcome(facts.attempts, 'simple'),
		totalRounds: plan.stats.totalRoundCount,
		summarizedRounds: plan.stats.summarizedRoundCount,
		keptRounds: plan.stats.keptRoundCount,
		plannedRounds: facts.plannedRounds,
		minRecentRounds: facts.minRecentRounds,
		tokensBefore: tokens ? tokens.previousSummary + tokens.summarized + tokens.kept : 0,
		tokensAfter: summarized && tokens ? tokens.kept + summaryTokens : 0,
		summaryTokens,
		condensePasses: condensePasses(facts.attempts),
		durationMs: facts.durationMs,
		windowTokens: facts.windowTokens,
		summarizerModel: facts.summarizerModel ?? 'request',
	});
}

/**
 * The last attempt of a summarizer prompt mode (narrowing may have tried it several times), its
 * own reply: a condense pass after it is counted in `condensePasses`, not here.
 */
function attemptOutcome(attempts: SummarizationFacts['attempts'], mode: SummaryPromptMode): EventData<'summarization'>['fullAttempt'] {
	return attempts.filter(a => a.mode === mode && a.pass === undefined).pop()?.outcome ?? 'not-tried';
}

export interface FallbackFacts {
	readonly step: EventData<'fallback'>['step'];
	readonly why: EventData<'fallback'>['why'];
	readonly items?: number;
	readonly freedTokens?: number;
	readonly promptTokens: number;
	readonly windowTokens: number;
}

export function fallbackEvent(facts: FallbackFacts): TelemetryEvent<'fallback'> {
	return telemetryEvent('fallback', {
		step: facts.step,
		why: facts.why,
		items: facts.items ?? 0,
		freedTokens: facts.freedTokens ?? 0,
		promptTokens: facts.promptTokens,
		windowTokens: facts.windowTokens,
	});
}
