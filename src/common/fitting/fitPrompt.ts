// The one place that makes a prompt fit its budget, for the agent (src/agent/agentLoop.ts) and the
// replay benchmark (bench/replay/replay.ts) alike. Cheapest first:
//   1. mask old tool results (when the setting asks for it, or when automatic summaries are off)
//   2. attach a summary prepared in the background, if one is ready and still right
//   3. summarize with the model (narrowed to the oldest rounds when the summarizer cannot take
//      them all), at most SUMMARY_ATTEMPTS times that leave the prompt too large; then the
//      loop breaker stops model summaries: for this render when the summaries shrank what they
//      replaced or the rounds kept were over half the budget (the newest rounds are what is too
//      large), else for the rest of the request
//   4. tighten what is not rounds: past requests whose work is summarized shortened (for the rest
//      of the request); when two summaries could not make room, the done-ledger within its base
//      size too (until the next summary). In a day-long chat they, not the rounds, are what
//      summaries cannot shrink
//   5. elide the oldest tool results, 6. drop the older rounds with a note, 7. cut the newest
//      round's longest results further (head and tail kept), 8. leave out the done-ledger until
//      the next summary, 9. refuse.
// Summaries join the conversation as one block per turn (summaryBlocks.ts); after each, when all
// blocks together pass the summary budget, the oldest are condensed (condenseBlocks.ts).
// Every step that changes the conversation starts over at the render. The steps that need a
// model or a renderer are injected; what happened comes back as data (FitEvent), never as text
// written somewhere, so the caller decides what to show and what to count.
import type { Conversation, ToolCall } from '../conversation/conversation';
import { flattenRounds } from '../conversation/flatten';
import type { SummarizationMode, SummarizationPlan } from '../planning/plan';
import { KEPT_SHARE_OF_BUDGET } from '../planning/halfContextPlanner';
import { planOrNothing, type PlanOptions } from '../planning/planners';
import { condenseOldestBlocks, type CondenseBlock, type CondensedBlock } from '../summaries/condenseBlocks';
import { cutNewestResults } from '../shrinking/cutNewestResults';
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
	/** Asks the model for the block of one turn's rounds (Full, then Simple); no summary when every attempt failed. */
	readonly summarize: Summarize;
	/** Asks the model to shorten an older block (bounded growth); without it, blocks are cut to their first lines. */
	readonly condense?: CondenseBlock;
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
	/** What all summary blocks together may hold (budget.ts summaryBudget); without it, blocks are never condensed. */
	readonly summaryBudget?: number;
	/**
	 * How half-context picks the kept rounds: `tokens` (the default) keeps at most half the message
	 * budget verbatim (halfContextPlanner.ts); `rounds` is the pure round rule.
	 */
	readonly halfContextSplit?: 'tokens' | 'rounds';
	/** The fewest rounds half-context keeps verbatim (default 2). */
	readonly minKeep?: number;
	/**
	 * longhaul.autoSummarize (default true). False: no summary is asked for or taken, neither from
	 * the model nor prepared in the background; old tool results are masked, then truncation as
	 * usual, and a `summaries-off` event says so once per session.
	 */
	readonly autoSummarize?: boolean;
}

/** The planner options the pipeline plans with (also for masking and dropping older rounds). */
export function fitPlanOptions(options: FitOptions, countTokens: (text: string) => number): PlanOptions {
	return {
		countTokens,
		...(options.halfContextSplit !== 'rounds' ? { messageBudget: options.messageBudget } : {}),
		...(options.minKeep !== undefined ? { minKeep: options.minKeep } : {}),
	};
}

/** Events of steps that changed the prompt without a model carry what the whole prompt needed before them. */
export type FitEvent =
	| ({ readonly kind: 'masked'; readonly neededTokens: number } & MaskStats)
	| { readonly kind: 'mask-declined'; readonly reason: string; readonly olderPartTokens: number }
	| { readonly kind: 'summarized'; readonly source: 'prepared' | 'model'; readonly prepared: PreparedSummary & { readonly blocks: readonly string[] } }
	/** The oldest blocks were shortened to keep all blocks within the summary budget. */
	| { readonly kind: 'condensed'; readonly blocks: readonly CondensedBlock[] }
	| { readonly kind: 'summary-failed'; readonly prepared: PreparedSummary }
	/**
	 * Model summaries stop: for the rest of the request (`request`: they stopped shrinking the
	 * prompt, or the agent repeats what a summary removed), or only for this render (`render`: they
	 * shrank what they replaced, but the newest rounds no summary may touch are too large).
	 */
	| { readonly kind: 'loop-breaker'; readonly why: string; readonly scope: 'render' | 'request' }
	| { readonly kind: 'elided'; readonly calls: number; readonly freedTokens: number; readonly neededTokens: number }
	| { readonly kind: 'dropped'; readonly plan: SummarizationPlan; readonly texts: readonly string[]; readonly neededTokens: number }
	/** Nothing older was left: the newest round's longest results, then arguments, were cut further (cutNewestResults.ts). */
	| { readonly kind: 'cut-newest'; readonly calls: number; readonly arguments: number; readonly freedTokens: number; readonly neededTokens: number }
	| { readonly kind: 'ledger-off'; readonly neededTokens: number }
	/** Past requests, then the done-ledger, are shown tight for the rest of the request (FitSession.tight). */
	| { readonly kind: 'tightened'; readonly part: 'requests' | 'ledger'; readonly neededTokens: number }
	/** The first overflow of a session with automatic summaries off (FitOptions.autoSummarize). */
	| { readonly kind: 'summaries-off' };

interface FitEnd {
	readonly conversation: Conversation;
	readonly events: readonly FitEvent[];
}
export type FitResult<P> = (FitEnd & { readonly kind: 'fits'; readonly prompt: P }) | (FitEnd & { readonly kind: 'refused'; readonly neededTokens: number });

export async function fitPrompt<P>(start: Conversation, session: FitSession, steps: FitSteps<P>, options: FitOptions): Promise<FitResult<P>> {
	const events: FitEvent[] = [];
	const planOptions = fitPlanOptions(options, steps.countTokens);
	const plan = steps.plan ?? ((c: Conversation) => planOrNothing(c, options.mode, planOptions));
	const mask =
		steps.mask ?? ((c: Conversation, overflow: number) => maskForOverflow(c, options.mode, steps.countTokens, options.messageBudget, overflow, planOptions));
	const settled = async <T>(pending: Promise<T>): Promise<T> => {
		const value = await pending;
		if (steps.isCancelled()) throw steps.cancellationError();
		return value;
	};
	const autoSummarize = options.autoSummarize !== false;
	let conversation = start;
	/** After blocks were added: condenses the oldest when all of them pass the summary budget. */
	const bound = async () => {
		if (options.summaryBudget === undefined) return;
		const bounded = await settled(condenseOldestBlocks(conversation, options.summaryBudget, steps.countTokens, steps.condense));
		if (bounded.condensed.length === 0) return;
		conversation = bounded.conversation;
		events.push({ kind: 'condensed', blocks: bounded.condensed });
	};
	// A new summary renders the ledger again: left out or tightened, it gets its full room back.
	const ledgerBackInFull = () => {
		session.ledgerSuspended = false;
		if (session.tight === 'ledger') session.tight = 'requests';
	};
	let summaryAttempts = 0;
	let narrowedSummaries = 0;
	// Whether every summary of this render replaced its rounds with much less (see shrank()), and
	// whether the newest rounds the last one kept were over the planner's limit for them.
	let summariesShrank = true;
	let keptTooLarge = false;
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

		if (!autoSummarize && !session.toldSummariesOff) {
			session.toldSummariesOff = true;
			events.push({ kind: 'summaries-off' });
		}
		if (options.maskOldToolResults || !autoSummarize) {
			const neededTokens = await measure();
			const masked = mask(conversation, neededTokens - options.messageBudget);
			if (masked.maskedCalls > 0) {
				conversation = masked.conversation;
				events.push({ kind: 'masked', neededTokens, ...statsOf(masked) });
				continue;
			}
			if (masked.declined) events.push({ kind: 'mask-declined', reason: masked.declined, olderPartTokens: masked.olderPartTokens });
		}

		// A prepared summary may be older than the overflow, so it is not one of the attempts.
		const prepared = autoSummarize && steps.takePrepared ? await settled(steps.takePrepared(conversation)) : undefined;
		if (prepared?.blocks !== undefined) {
			noteSummary(session.repeats, replacedCalls(conversation, prepared.plan));
			conversation = attachSummary(conversation, prepared.plan, prepared.blocks);
			ledgerBackInFull();
			events.push({ kind: 'summarized', source: 'prepared', prepared: { ...prepared, blocks: prepared.blocks } });
			await bound();
			continue;
		}

		// Model summaries have done what they can for this render (or may not run): before the loop
		// breaker or any truncation, tighten what is not rounds, one part at a time, once per request.
		// The ledger only when summaries were made and did not make room: when there was nothing to
		// summarize, the newest round is what is too large, and cutting it costs less than ledger lines.
		const tighten = async (ledgerToo: boolean) => {
			const part = session.tight === 'none' ? 'requests' : ledgerToo && session.tight === 'requests' && steps.showsLedger(conversation) ? 'ledger' : undefined;
			if (!part) return false;
			const neededTokens = await measure();
			session.tight = part;
			events.push({ kind: 'tightened', part, neededTokens });
			return true;
		};
		const summariesDone = !autoSummarize || !modelCanSummarize || session.modelSummariesStopped !== undefined || summaryAttempts >= SUMMARY_ATTEMPTS;
		if (summariesDone && (await tighten(summaryAttempts >= SUMMARY_ATTEMPTS && !session.modelSummariesStopped))) continue;

		if (autoSummarize && modelCanSummarize && !session.modelSummariesStopped) {
			if (summaryAttempts >= SUMMARY_ATTEMPTS) {
				const why = `${SUMMARY_ATTEMPTS} summaries in a row did not make the prompt fit`;
				if (summariesShrank || keptTooLarge) {
					// The summaries did their part, or had little to take: what is too large is the newest
					// rounds, which truncation shortens now. Stopping for the whole request would leave every
					// later overflow of a long request to truncation (decision 6: the bound is per render).
					events.push({ kind: 'loop-breaker', why: `${why}: the newest rounds alone are too large`, scope: 'render' });
					modelCanSummarize = false;
				} else {
					session.modelSummariesStopped = why;
					// Tightening the ledger is for making room for summaries; with none to come, it
					// goes back to its full size (truncation may still leave it out).
					if (session.tight === 'ledger') session.tight = 'requests';
					events.push({ kind: 'loop-breaker', why, scope: 'request' });
				}
			} else {
				const planned = plan(conversation);
				const made = planned && (await settled(makeSummary(conversation, planned, steps.summarize)));
				if (made?.blocks !== undefined) {
					noteSummary(session.repeats, replacedCalls(conversation, made.plan));
					conversation = attachSummary(conversation, made.plan, made.blocks);
					ledgerBackInFull();
					events.push({ kind: 'summarized', source: 'model', prepared: { ...made, blocks: made.blocks } });
					await bound();
					if (made.narrowed && narrowedSummaries < NARROWED_SUMMARIES) narrowedSummaries++;
					else summaryAttempts++;
					if (!shrank(made.plan, made.blocks, steps.countTokens)) summariesShrank = false;
					keptTooLarge = (made.plan.stats.tokens?.kept ?? 0) > options.messageBudget * KEPT_SHARE_OF_BUDGET;
					continue;
				}
				if (made) events.push({ kind: 'summary-failed', prepared: made });
				modelCanSummarize = false;
			}
		}

		// Deterministic truncation: no model summary helps any more.
		if (await tighten(false)) continue;
		const total = await measure();
		const elided = elideOldestToolResults(
			conversation,
			total - options.messageBudget + Math.ceil(options.messageBudget * ELISION_MARGIN_SHARE),
			steps.countTokens,
		);
		if (elided.elidedCalls > 0) {
			conversation = elided.conversation;
			events.push({ kind: 'elided', calls: elided.elidedCalls, freedTokens: elided.shedTokens, neededTokens: total });
			continue;
		}
		const dropped = dropOlderRounds(conversation, planOptions);
		if (dropped) {
			conversation = dropped.conversation;
			events.push({ kind: 'dropped', plan: dropped.plan, texts: dropped.texts, neededTokens: total });
			await bound();
			continue;
		}
		// Only the newest round is left verbatim and it alone does not fit: cut its longest results
		// (then its calls' arguments) further rather than refuse the request over one long output.
		const cut = cutNewestResults(conversation, total - options.messageBudget + Math.ceil(options.messageBudget * ELISION_MARGIN_SHARE), steps.countTokens);
		if (cut) {
			conversation = cut.conversation;
			events.push({ kind: 'cut-newest', calls: cut.cutCalls, arguments: cut.cutArguments, freedTokens: cut.freedTokens, neededTokens: total });
			continue;
		}
		if (!session.ledgerSuspended && steps.showsLedger(conversation)) {
			// Nothing older is left to remove: the ledger goes before the request is refused, until
			// the next summary (which changes the prompt's head anyway) makes room for it again.
			session.ledgerSuspended = true;
			events.push({ kind: 'ledger-off', neededTokens: total });
			continue;
		}
		return { kind: 'refused', neededTokens: total, conversation, events };
	}
}

/** A summary shrinks when its blocks hold at most this share of the rounds (and earlier block) it replaced. */
export const SHRINKING_SUMMARY_SHARE = 0.5;

/** Did the summary replace what it covered with much less? Unknown sizes count as no. */
function shrank(plan: SummarizationPlan, blocks: readonly string[], countTokens: (text: string) => number): boolean {
	const replaced = plan.stats.tokens ? plan.stats.tokens.summarized + plan.stats.tokens.previousSummary : 0;
	const written = blocks.reduce((sum, block) => sum + countTokens(block), 0);
	return replaced > 0 && written <= replaced * SHRINKING_SUMMARY_SHARE;
}

function statsOf(masked: MaskStats): MaskStats {
	const { maskedCalls, duplicateCalls, freedTokens, keptRoundCount, olderPartTokens, declined } = masked;
	return { maskedCalls, duplicateCalls, freedTokens, keptRoundCount, olderPartTokens, ...(declined ? { declined } : {}) };
}

/** The tool calls of the rounds `plan` summarizes, for the loop breaker. */
function replacedCalls(conversation: Conversation, plan: SummarizationPlan): ToolCall[] {
	const ids = new Set(plan.summarizeRoundIds);
	return flattenRounds(conversation).flatMap(at => (ids.has(at.round.id) ? at.round.toolCalls : []));
}
