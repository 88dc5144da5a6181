// The one place that makes a prompt fit its budget, for the agent (src/agent/agentLoop.ts) and the
// replay benchmark (bench/replay/replay.ts) alike. Cheapest first:
//   1. mask old tool results (when the setting asks for it)
//   2. attach a summary prepared in the background, if one is ready and still right
//   3. summarize with the model (narrowed to the oldest rounds when the summarizer cannot take
//      them all), at most SUMMARY_ATTEMPTS times that leave the prompt too large; then the
//      loop breaker stops model summaries for the rest of the request
//   4. elide the oldest tool results, 5. drop the older rounds with a note, 6. leave out the
//      done-ledger, 7. refuse.
// Every step that changes the conversation starts over at the render. The steps that need a
// model or a renderer are injected; what happened comes back as data (FitEvent), never as text
// written somewhere, so the caller decides what to show and what to count.
import type { Conversation } from '../conversation/conversation';
import type { SummarizationMode, SummarizationPlan } from '../planning/plan';
import { planOrNothing } from '../planning/planners';
import { dropOlderRounds } from '../shrinking/dropOlderRounds';
import { elideOldestToolResults } from '../shrinking/elideToolResults';
import { maskForOverflow, type MaskStats } from '../shrinking/maskToolResults';
import { attachSummary, makeSummary, type PreparedSummary, type Summarize } from './preparedSummary';
import { noteSummary } from './loopBreaker';
import type { FitSession } from './fitSession';

/** Model summaries that may leave the prompt over budget before the loop breaker stops them. */
export const SUMMARY_ATTEMPTS = 2;
/**
 * Summaries the summarizer could only make of the oldest part (narrowPlan.ts) are expected not to
 * make the prompt fit, so they do not count as attempts; this bounds them per fit.
 */
export const NARROWED_SUMMARIES = 4;
/** Elision frees this share of the message budget beyond the overflow, so the next rounds fit too. */
export const ELISION_MARGIN_SHARE = 0.05;

export type RenderAttempt<P> = { readonly fits: true; readonly prompt: P } | { readonly fits: false };

export interface FitSteps<P> {
	/** Renders the prompt for `conversation`; `fits: false` when it is over the budget. */
	render(conversation: Conversation): Promise<RenderAttempt<P>>;
	/** The whole prompt's size in tokens, whatever the budget. */
	measure(conversation: Conversation): Promise<number>;
	/** True while the prompt shows a done-ledger that could be left out. */
	showsLedger(conversation: Conversation): boolean;
	/** A summary prepared earlier that still applies to `conversation`, if any (waits for one under way). */
	takePrepared?(conversation: Conversation): Promise<PreparedSummary | undefined>;
	/** Asks the model for the summary of `plan` (Full, then Simple); no summary when every attempt failed. */
	readonly summarize: Summarize;
	/** Plans a summarization; the default is the active planner with token statistics. */
	plan?(conversation: Conversation): SummarizationPlan | undefined;
	/** Masks old tool results; the default is maskForOverflow with the budget's margins. */
	mask?(conversation: Conversation, overflowTokens: number): MaskStats & { readonly conversation: Conversation };
	countTokens(text: string): number;
	isCancelled(): boolean;
	cancellationError(): Error;
}

export interface FitOptions {
	readonly mode: SummarizationMode;
	readonly messageBudget: number;
	/** longhaul.maskOldToolResults */
	readonly maskOldToolResults: boolean;
}

export type FitEvent =
	| ({ readonly kind: 'masked' } & MaskStats)
	| { readonly kind: 'mask-declined'; readonly reason: string; readonly olderPartTokens: number }
	| { readonly kind: 'summarized'; readonly source: 'prepared' | 'model'; readonly prepared: PreparedSummary & { readonly summary: string } }
	| { readonly kind: 'summary-failed'; readonly prepared: PreparedSummary }
	| { readonly kind: 'loop-breaker'; readonly why: string }
	| { readonly kind: 'elided'; readonly calls: number; readonly freedTokens: number }
	| { readonly kind: 'dropped'; readonly plan: SummarizationPlan; readonly text: string }
	| { readonly kind: 'ledger-off' };

interface FitEnd {
	readonly conversation: Conversation;
	readonly events: readonly FitEvent[];
}
export type FitResult<P> = (FitEnd & { readonly kind: 'fits'; readonly prompt: P }) | (FitEnd & { readonly kind: 'refused'; readonly neededTokens: number });

export async function fitPrompt<P>(start: Conversation, session: FitSession, steps: FitSteps<P>, options: FitOptions): Promise<FitResult<P>> {
	const events: FitEvent[] = [];
	const plan = steps.plan ?? ((c: Conversation) => planOrNothing(c, options.mode, { countTokens: steps.countTokens }));
	const mask = steps.mask ?? ((c: Conversation, overflow: number) => maskForOverflow(c, options.mode, steps.countTokens, options.messageBudget, overflow));
	const settled = async <T>(pending: Promise<T>): Promise<T> => {
		const value = await pending;
		if (steps.isCancelled()) throw steps.cancellationError();
		return value;
	};
	let conversation = start;
	let summaryAttempts = 0;
	let narrowedSummaries = 0;
	// False once the model has nothing more to give in this fit (nothing to plan, or it failed).
	let modelCanSummarize = true;
	for (;;) {
		const rendered = await settled(steps.render(conversation));
		if (rendered.fits) {
			return { kind: 'fits', prompt: rendered.prompt, conversation, events };
		}
		// Measured at most once per overflow: every step below that changes the conversation starts over.
		let needed: number | undefined;
		const measure = async () => (needed ??= await settled(steps.measure(conversation)));

		if (options.maskOldToolResults) {
			const masked = mask(conversation, (await measure()) - options.messageBudget);
			if (masked.maskedCalls > 0) {
				conversation = masked.conversation;
				events.push({ kind: 'masked', ...statsOf(masked) });
				continue;
			}
			if (masked.declined) events.push({ kind: 'mask-declined', reason: masked.declined, olderPartTokens: masked.olderPartTokens });
		}

		// A prepared summary may be older than the overflow, so it is not one of the attempts.
		const prepared = steps.takePrepared ? await settled(steps.takePrepared(conversation)) : undefined;
		if (prepared?.summary !== undefined) {
			conversation = attachSummary(conversation, prepared.plan, prepared.summary);
			events.push({ kind: 'summarized', source: 'prepared', prepared: { ...prepared, summary: prepared.summary } });
			noteSummary(session.repeats);
			continue;
		}

		if (modelCanSummarize && !session.modelSummariesStopped) {
			if (summaryAttempts >= SUMMARY_ATTEMPTS) {
				session.modelSummariesStopped = `${SUMMARY_ATTEMPTS} summaries in a row did not make the prompt fit`;
				events.push({ kind: 'loop-breaker', why: session.modelSummariesStopped });
			} else {
				const planned = plan(conversation);
				const made = planned && (await settled(makeSummary(conversation, planned, steps.summarize)));
				if (made?.summary !== undefined) {
					conversation = attachSummary(conversation, made.plan, made.summary);
					events.push({ kind: 'summarized', source: 'model', prepared: { ...made, summary: made.summary } });
					noteSummary(session.repeats);
					if (made.narrowed && narrowedSummaries < NARROWED_SUMMARIES) narrowedSummaries++;
					else summaryAttempts++;
					continue;
				}
				if (made) events.push({ kind: 'summary-failed', prepared: made });
				modelCanSummarize = false;
			}
		}

		// Deterministic truncation: no model summary helps any more.
		const total = await measure();
		const elided = elideOldestToolResults(
			conversation,
			total - options.messageBudget + Math.ceil(options.messageBudget * ELISION_MARGIN_SHARE),
			steps.countTokens,
		);
		if (elided.elidedCalls > 0) {
			conversation = elided.conversation;
			events.push({ kind: 'elided', calls: elided.elidedCalls, freedTokens: elided.shedTokens });
			continue;
		}
		const dropped = dropOlderRounds(conversation);
		if (dropped) {
			conversation = dropped.conversation;
			events.push({ kind: 'dropped', plan: dropped.plan, text: dropped.text });
			continue;
		}
		if (!session.ledgerSuspended && steps.showsLedger(conversation)) {
			// Nothing older is left to remove: the ledger goes before the request is refused.
			session.ledgerSuspended = true;
			events.push({ kind: 'ledger-off' });
			continue;
		}
		return { kind: 'refused', neededTokens: total, conversation, events };
	}
}

function statsOf(masked: MaskStats): MaskStats {
	const { maskedCalls, duplicateCalls, freedTokens, keptRoundCount, olderPartTokens, declined } = masked;
	return { maskedCalls, duplicateCalls, freedTokens, keptRoundCount, olderPartTokens, ...(declined ? { declined } : {}) };
}
