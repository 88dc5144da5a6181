// The telemetry events of one run of the overflow pipeline, from what it returned (FitResult):
// one `summarization` per summary made or failed, one `fallback` per step that made room
// without a model summary, with why no summary was used.
import type { FitEvent, FitResult } from '../fitting/fitPrompt';
import type { PreparedSummary } from '../fitting/preparedSummary';
import { fallbackEvent, summarizationEvent, type FallbackFacts, type SummarizationFacts } from './eventsFromData';
import type { TelemetryEvent } from './telemetryEvents';

export interface FitTelemetryContext {
	readonly windowTokens: number;
	readonly minRecentRounds: number;
	/** longhaul.autoSummarize at the time. */
	readonly autoSummarize: boolean;
	/** The loop breaker had stopped model summaries before this run (FitMemory.modelSummariesStopped). */
	readonly stoppedBefore: boolean;
}

export function fitTelemetry(
	result: Pick<FitResult<unknown>, 'kind' | 'events'> & { readonly neededTokens?: number },
	ctx: FitTelemetryContext,
): TelemetryEvent[] {
	const out: TelemetryEvent[] = [];
	// Why this run made room without a summary; refined as the events show what happened.
	let why: FallbackFacts['why'] = !ctx.autoSummarize ? 'auto-summarize-off' : ctx.stoppedBefore ? 'loop-breaker' : 'nothing-to-summarize';
	const fallback = (step: FallbackFacts['step'], promptTokens: number, items?: number, freedTokens?: number) =>
		out.push(fallbackEvent({ step, why, items, freedTokens, promptTokens, windowTokens: ctx.windowTokens }));
	for (const event of result.events) {
		switch (event.kind) {
			case 'summarized':
				out.push(summarization(event.source === 'background' ? 'background' : 'overflow', 'summarized', event.prepared, ctx));
				// A step after a summary of the same render: the summaries did not make enough room.
				if (why === 'nothing-to-summarize') why = 'summaries-not-enough';
				break;
			case 'summary-failed':
				out.push(summarization('overflow', 'failed', event.prepared, ctx));
				why = 'summary-failed';
				break;
			case 'loop-breaker':
				why = 'loop-breaker';
				break;
			case 'masked':
				out.push(
					fallbackEvent({
						step: 'mask-tool-results',
						why: ctx.autoSummarize ? 'cheap-first' : 'auto-summarize-off',
						items: event.maskedCalls,
						freedTokens: event.freedTokens,
						promptTokens: event.neededTokens,
						windowTokens: ctx.windowTokens,
					}),
				);
				break;
			case 'elided':
				fallback('elide-tool-results', event.neededTokens, event.calls, event.freedTokens);
				break;
			case 'bridged':
				out.push(
					fallbackEvent({
						step: 'bridge',
						why: 'summary-under-way',
						items: event.calls,
						freedTokens: event.freedTokens,
						promptTokens: event.neededTokens,
						windowTokens: ctx.windowTokens,
					}),
				);
				break;
			case 'dropped':
				fallback('drop-rounds', event.neededTokens, event.plan.summarizeRoundIds.length);
				break;
			case 'cut-newest':
				fallback('cut-newest-results', event.neededTokens, event.calls + event.arguments, event.freedTokens);
				break;
			case 'ledger-off':
				fallback('leave-out-ledger', event.neededTokens);
				break;
			case 'tightened':
				fallback(event.part === 'requests' ? 'shorten-past-requests' : 'tighten-ledger', event.neededTokens);
				break;
			case 'mask-declined':
			case 'summaries-off':
			case 'condensed':
				break;
			default:
				assertNever(event);
		}
	}
	if (result.kind === 'refused') fallback('refuse', result.neededTokens ?? 0);
	return out;
}

/** A summary made (or failed) outside the pipeline: /compact, or one prepared in the background that was never used. */
export function summarization(
	trigger: SummarizationFacts['trigger'],
	outcome: SummarizationFacts['outcome'],
	prepared: PreparedSummary,
	ctx: Pick<FitTelemetryContext, 'windowTokens' | 'minRecentRounds'>,
): TelemetryEvent<'summarization'> {
	return summarizationEvent({
		trigger,
		outcome,
		plan: prepared.plan,
		plannedRounds: prepared.plannedRoundCount,
		attempts: prepared.attempts,
		summaryTokens: prepared.attempts.find(a => a.outcome === 'ok')?.summaryTokens,
		durationMs: prepared.durationMs,
		windowTokens: ctx.windowTokens,
		minRecentRounds: ctx.minRecentRounds,
	});
}

function assertNever(event: never): never {
	throw new Error(`unknown fit event ${(event as FitEvent).kind}`);
}
