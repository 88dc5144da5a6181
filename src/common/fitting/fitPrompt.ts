// The one place that makes a prompt fit its budget, for the agent (src/agent/promptFitting.ts) and
// the replay benchmark (bench/replay/strategies.ts) alike, both through their Compactor's fit
// (src/common/compaction/compactor.ts) with the agent prompt's steps (src/prompts/agentPromptSteps.ts).
// Cheapest first, one FitRun stage each:
//   1. mask: old tool results (when the setting asks for it, or when automatic summaries are off)
//   2. attachPrepared: a summary prepared in the background, if one is ready and still right
//   3. tightenBeforeBreaker: once model summaries have done what they can for this render, what is
//      not rounds is tightened: past requests whose work is summarized shortened (for the rest of
//      the request); when two summaries could not make room, the done-ledger within its base size
//      too (until the next summary). In a day-long chat they, not the rounds, are what summaries
//      cannot shrink
//   4. summarizeWithModel (narrowed to the oldest rounds when the summarizer cannot take them all),
//      at most SUMMARY_ATTEMPTS times that leave the prompt too large; then the loop breaker stops
//      model summaries: for this render when the summaries shrank what they replaced or the rounds
//      kept were over half the budget (the newest rounds are what is too large), else for the rest
//      of the request
//   5. truncate: tighten (if not yet), elide the oldest tool results, drop the older rounds with a
//      note, cut the newest round's longest results and then its calls' longest arguments (head and
//      tail kept), leave out the done-ledger until the next summary; then the fit is refused.
// Summaries join the conversation as one block per turn (summaryBlocks.ts); after each, when all
// blocks together pass the summary budget, the oldest are condensed (condenseBlocks.ts).
// Every step that changes the conversation starts over at the render. The steps that need a
// model or a renderer are injected; what happened comes back as data (FitEvent), never as text
// written somewhere, so the caller decides what to show and what to count.
import type { Conversation, ToolCall } from '../conversation/conversation';
import { flattenRounds, unsummarizedRounds } from '../conversation/flatten';
import type { SummarizationMode, SummarizationPlan } from '../planning/plan';
import { effectiveMinKeep, KEPT_SHARE_OF_BUDGET } from '../planning/halfContextPlanner';
import { planOrNothing, type PlanOptions } from '../planning/planners';
import {
	condenseOldestBlocks,
	usingPreparedCondensations,
	type CondenseBlock,
	type CondensedBlock,
	type PreparedCondensations,
} from '../summaries/condenseBlocks';
import { cutNewestResults } from '../shrinking/cutNewestResults';
import { dropOlderRounds } from '../shrinking/dropOlderRounds';
import { elideOldestToolResults, restoreElided } from '../shrinking/elideToolResults';
import { maskForOverflow, type MaskStats } from '../shrinking/maskToolResults';
import { makeSummary, type PreparedSummary } from './preparedSummary';
import { applySummaryBlocks } from '../summaries/applySummary';
import type { SummarizeBlock } from '../summaries/summarizeBlocks';
import { noteSummary } from './loopBreaker';
import { setAside, setAsideCount, setAsideLines, stripProvisional } from './setAside';
import { roundTokens } from '../tokens/roundTokens';
import { summaryPlanApplicability } from '../planning/summaryApplicability';
import type { FitMemory } from './fitMemory';

/** Model summaries that may leave the prompt over budget before the loop breaker stops them. */
export const SUMMARY_ATTEMPTS = 2;
/**
 * Summaries the summarizer could only make of the oldest part (summarizeBlocks.ts) are expected not to
 * make the prompt fit, so they do not count as attempts; this bounds them per fit.
 */
export const NARROWED_SUMMARIES = 4;
/** Elision frees this share of the message budget beyond the overflow, so the next rounds fit too. */
export const ELISION_MARGIN_SHARE = 0.05;
/**
 * The bridge sets aside enough rounds to leave this share of the message budget free: the prompt
 * then grows for a while before the set-aside moves again (each move changes the prompt's
 * beginning, which a provider's cache and its stateful markers need unchanged).
 */
export const SET_ASIDE_MARGIN_SHARE = 0.1;

export type RenderAttempt<P> = { readonly fits: true; readonly prompt: P } | { readonly fits: false };

export interface FitSteps<P> {
	/** Renders the prompt for `conversation`; `fits: false` when it is over the budget. */
	render(conversation: Conversation): Promise<RenderAttempt<P>>;
	/** The whole prompt's size in tokens, whatever the budget. */
	measure(conversation: Conversation): Promise<number>;
	/** True while the prompt shows a done-ledger that could be left out. */
	showsLedger(conversation: Conversation): boolean;
	/** A summary prepared earlier that still applies to `conversation`, if any; `wait`: for one still under way. */
	takePrepared?(conversation: Conversation, wait: boolean): Promise<PreparedSummary | undefined>;
	/**
	 * The bridge's summary (FitOptions.bridge): starts preparing one in the background unless a job
	 * is under way. True when one is under way now.
	 */
	prepareLater?(conversation: Conversation): boolean;
	/** The plan of the summary under way in the background that would be attached next, if any (the bridge sets its rounds aside). */
	underWay?(): SummarizationPlan | undefined;
	/** Asks the model for the block of one turn's rounds (Full, then Simple); no summary when every attempt failed. */
	readonly summarize: SummarizeBlock;
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
	readonly minRecentRounds?: number;
	/**
	 * longhaul.autoSummarize (default true). False: no summary is asked for or taken, neither from
	 * the model nor prepared in the background; old tool results are masked, then truncation as
	 * usual, and a `summaries-off` event says so once per request.
	 */
	readonly autoSummarize?: boolean;
	/**
	 * Never wait for a summary at an overflow while one can be prepared in the background (decision
	 * 43): a summary under way is left running, the oldest rounds that must go are set aside behind
	 * a provisional block (setAside.ts), then the oldest tool results elided (recorded, so recall and
	 * the summarizer still read them), and the summary is attached at an overflow once it is ready and
	 * its rounds must go. Only when neither can make room does the fit wait.
	 */
	readonly bridge?: boolean;
	/**
	 * With the bridge, on a provider that runs one request at a time (background/providerSlots.ts,
	 * decision 47): a summary holds the agent's next call whenever it runs, so fewer, larger ones
	 * cost the user less. The bridge sets rounds aside with no summary under way, within the older
	 * part the planner would summarize now, and starts that summary only once all of it is set aside.
	 */
	readonly deferSummary?: boolean;
}

/** The planner options the pipeline plans with (also for masking and dropping older rounds). */
export function fitPlanOptions(options: FitOptions, countTokens: (text: string) => number): PlanOptions {
	return {
		countTokens,
		...(options.halfContextSplit !== 'rounds' ? { messageBudget: options.messageBudget } : {}),
		...(options.minRecentRounds !== undefined ? { minRecentRounds: options.minRecentRounds } : {}),
	};
}

/** Events of steps that changed the prompt without a model carry what the whole prompt needed before them. */
export type FitEvent =
	| ({ readonly kind: 'masked'; readonly neededTokens: number } & MaskStats)
	| { readonly kind: 'mask-declined'; readonly reason: string; readonly olderPartTokens: number }
	| { readonly kind: 'summarized'; readonly source: 'background' | 'model'; readonly prepared: PreparedSummary & { readonly blocks: readonly string[] } }
	/** The oldest blocks were shortened to keep all blocks within the summary budget. */
	/** `ahead`: of `blocks`, those whose shorter text a background job had prepared (no model call at the overflow). */
	| { readonly kind: 'condensed'; readonly blocks: readonly CondensedBlock[]; readonly ahead: number }
	| { readonly kind: 'summary-failed'; readonly prepared: PreparedSummary }
	/**
	 * Model summaries stop: for the rest of the request (`request`: they stopped shrinking the
	 * prompt, or the agent repeats what a summary removed), or only for this render (`render`: they
	 * shrank what they replaced, but the newest rounds no summary may touch are too large).
	 */
	| { readonly kind: 'loop-breaker'; readonly why: string; readonly scope: 'render' | 'request' }
	| { readonly kind: 'elided'; readonly calls: number; readonly freedTokens: number; readonly neededTokens: number }
	/**
	 * The bridge (FitOptions.bridge), while a summary is prepared in the background: the rounds it will
	 * replace set aside behind a provisional block (setAside.ts), or the oldest tool results elided.
	 */
	| { readonly kind: 'bridged'; readonly setAsideRounds: number; readonly calls: number; readonly freedTokens: number; readonly neededTokens: number }
	| { readonly kind: 'dropped'; readonly plan: SummarizationPlan; readonly texts: readonly string[]; readonly neededTokens: number }
	/** Nothing older was left: the newest round's longest results, then arguments, were cut further (cutNewestResults.ts). */
	| { readonly kind: 'cut-newest'; readonly calls: number; readonly arguments: number; readonly freedTokens: number; readonly neededTokens: number }
	| { readonly kind: 'ledger-off'; readonly neededTokens: number }
	/** Past requests, then the done-ledger, are shown tight for the rest of the request (FitMemory.tight). */
	| { readonly kind: 'tightened'; readonly part: 'requests' | 'ledger'; readonly neededTokens: number }
	/** The first overflow of a request with automatic summaries off (FitOptions.autoSummarize). */
	| { readonly kind: 'summaries-off' };

interface FitEnd {
	readonly conversation: Conversation;
	readonly events: readonly FitEvent[];
}
export type FitResult<P> = (FitEnd & { readonly kind: 'fits'; readonly prompt: P }) | (FitEnd & { readonly kind: 'refused'; readonly neededTokens: number });

export async function fitPrompt<P>(start: Conversation, memory: FitMemory, steps: FitSteps<P>, options: FitOptions): Promise<FitResult<P>> {
	const fit = new FitRun(start, memory, steps, options);
	for (;;) {
		const rendered = await fit.settled(steps.render(fit.conversation));
		if (rendered.fits) return { kind: 'fits', prompt: rendered.prompt, conversation: fit.conversation, events: fit.events };
		fit.overflowed();
		// Cheapest first; every step that changes the conversation starts over at the render.
		if (
			(await fit.mask()) ||
			(await fit.attachPrepared(!options.bridge)) ||
			(await fit.bridge()) ||
			(await fit.pastTheBridge()) ||
			(options.bridge === true && (await fit.attachPrepared(true))) ||
			(await fit.tightenBeforeBreaker()) ||
			(await fit.summarizeWithModel()) ||
			(await fit.truncate())
		) {
			continue;
		}
		return { kind: 'refused', neededTokens: await fit.measure(), conversation: fit.conversation, events: fit.events };
	}
}

/** One run of the pipeline: the conversation as it changes, the events, and what this render has tried. */
class FitRun<P> {
	readonly events: FitEvent[] = [];
	conversation: Conversation;
	private readonly planOptions: PlanOptions;
	private readonly autoSummarize: boolean;
	private summaryAttempts = 0;
	private narrowedSummaries = 0;
	// Whether every summary of this render replaced its rounds with much less (see shrank()), and
	// whether the newest rounds the last one kept were over the planner's limit for them.
	private summariesShrank = true;
	private keptTooLarge = false;
	/** False once the model has nothing more to give in this fit (nothing to plan, or it failed). */
	private modelCanSummarize = true;
	/** The size of the prompt without the set-aside at this overflow, measured at most once. */
	private realNeeded: number | undefined;
	/** The whole prompt's size at this overflow, measured at most once. */
	private needed: number | undefined;
	/** Whether the bridge stood in for a summary under way at this overflow. */
	private bridging = false;

	constructor(
		start: Conversation,
		private readonly memory: FitMemory,
		private readonly steps: FitSteps<P>,
		private readonly options: FitOptions,
	) {
		this.conversation = start;
		this.planOptions = fitPlanOptions(options, steps.countTokens);
		this.autoSummarize = options.autoSummarize !== false;
	}

	/** Waits for a step, then stops if the user cancelled meanwhile. */
	async settled<T>(pending: Promise<T>): Promise<T> {
		const value = await pending;
		if (this.steps.isCancelled()) throw this.steps.cancellationError();
		return value;
	}

	/** A render did not fit: a new overflow, with a size of its own. */
	overflowed(): void {
		this.needed = undefined;
		this.realNeeded = undefined;
		this.bridging = false;
		if (!this.autoSummarize && !this.memory.toldSummariesOff) {
			this.memory.toldSummariesOff = true;
			this.events.push({ kind: 'summaries-off' });
		}
	}

	async measure(): Promise<number> {
		return (this.needed ??= await this.settled(this.steps.measure(this.conversation)));
	}

	private plan(conversation: Conversation): SummarizationPlan | undefined {
		return this.steps.plan ? this.steps.plan(conversation) : planOrNothing(conversation, this.options.mode, this.planOptions);
	}

	/** 1. Old tool results masked (longhaul.maskOldToolResults, or always without automatic summaries). */
	async mask(): Promise<boolean> {
		const { options, steps } = this;
		if (!options.maskOldToolResults && this.autoSummarize) return false;
		const neededTokens = await this.measure();
		const overflow = neededTokens - options.messageBudget;
		const masked = steps.mask
			? steps.mask(this.conversation, overflow)
			: maskForOverflow(this.conversation, options.mode, steps.countTokens, options.messageBudget, overflow, this.planOptions);
		if (masked.maskedCalls > 0) {
			this.conversation = masked.conversation;
			this.events.push({ kind: 'masked', neededTokens, ...statsOf(masked) });
			return true;
		}
		if (masked.declined) this.events.push({ kind: 'mask-declined', reason: masked.declined, olderPartTokens: masked.olderPartTokens });
		return false;
	}

	/** 2. A summary prepared in the background. It may be older than the overflow, so it is not one of the attempts. */
	async attachPrepared(wait: boolean): Promise<boolean> {
		if (!this.autoSummarize || !this.steps.takePrepared) return false;
		// The bridge's provisional blocks give way to the summary they stood in for.
		const real = stripProvisional(this.conversation);
		if (!wait && this.options.bridge && !(await this.setAsideWouldCover(real))) return false;
		const prepared = await this.settled(this.steps.takePrepared(real, wait));
		if (prepared?.blocks === undefined) return false;
		// The bridge's elisions held only until a summary made room: the rounds come back whole.
		this.conversation = restoreElided(real);
		await this.attach({ ...prepared, blocks: prepared.blocks }, 'background');
		return true;
	}

	/** Attaches a summary, gives the ledger its room back, and condenses the oldest blocks if all of them are over budget. */
	private async attach(prepared: PreparedSummary & { readonly blocks: readonly string[] }, source: 'background' | 'model'): Promise<void> {
		noteSummary(this.memory.repeats, replacedCalls(this.conversation, prepared.plan));
		this.conversation = applySummaryBlocks(this.conversation, prepared.plan, prepared.blocks);
		// A new summary renders the ledger again: left out or tightened, it gets its full room back.
		this.memory.ledgerSuspended = false;
		if (this.memory.tight === 'ledger') this.memory.tight = 'requests';
		this.events.push({ kind: 'summarized', source, prepared });
		await this.boundBlocks(prepared.condensations);
	}

	/**
	 * 2b. The bridge (FitOptions.bridge): with a summary under way in the background (started now if
	 * none is), the oldest rounds that must go are set aside, else the oldest tool results elided, and
	 * the request goes on; the summary replaces those rounds at a later overflow.
	 */
	async bridge(): Promise<boolean> {
		const { options, steps } = this;
		if (!options.bridge || !this.autoSummarize || this.memory.modelSummariesStopped || !steps.prepareLater) return false;
		const real = stripProvisional(this.conversation);
		const held = setAsideCount(this.conversation);
		// One slot: while no summary is under way, the rounds the planner would summarize now are set
		// aside as they must go, and their summary is started once all of them are.
		const deferred = options.deferSummary === true && !steps.underWay?.() ? this.plan(real) : undefined;
		this.bridging = deferred !== undefined || steps.prepareLater(this.conversation);
		if (!this.bridging) return false;
		const total = await this.measure();
		// First the oldest rounds that must go, behind one line per round, until their summary is ready
		// (again, further back, while the prompt still overflows); then, if still needed, elision.
		// The set-aside stays between overflows (the prompt's beginning does not change, so a provider's
		// cache of it is reused); at an overflow it is made again from the real rounds, further back.
		const need = held ? beyondWithMargin(total, options.messageBudget, SET_ASIDE_MARGIN_SHARE) : await this.realNeed(real);
		const aside = this.setAsidePlan(real, held, need, deferred);
		if (deferred && (!aside || aside.summarizeRoundIds.length >= deferred.summarizeRoundIds.length)) steps.prepareLater(real);
		if (aside && aside.summarizeRoundIds.length > held) {
			this.conversation = setAside(real, aside);
			this.events.push({ kind: 'bridged', setAsideRounds: aside.summarizeRoundIds.length, calls: 0, freedTokens: 0, neededTokens: total });
			return true;
		}
		const elided = elideOldestToolResults(this.conversation, beyondWithMargin(total, options.messageBudget), steps.countTokens);
		if (elided.elidedCalls === 0) return false;
		this.conversation = elided.conversation;
		this.events.push({ kind: 'bridged', setAsideRounds: 0, calls: elided.elidedCalls, freedTokens: elided.shedTokens, neededTokens: total });
		return true;
	}

	/**
	 * 2c. The bridge has set aside every round but the newest it may not touch, and elided every older
	 * result: no summary can make room now (it would only take the provisional block's place), so
	 * waiting for one is time lost. What is too large is the newest round or what is not rounds:
	 * they are shortened as truncation would (past requests tightened, the newest results cut, the
	 * ledger left out), and the summary is attached when it lands.
	 */
	async pastTheBridge(): Promise<boolean> {
		if (!this.bridging || !this.setAsideAll()) return false;
		return (await this.tighten(false)) || (await this.cutNewest()) || (await this.leaveOutLedger());
	}

	/** True when every unsummarized round but the newest `minRecentRounds` is set aside (behind a block, as a summary would be). */
	private setAsideAll(): boolean {
		return unsummarizedRounds(flattenRounds(this.conversation)).length <= effectiveMinKeep(this.options.minRecentRounds);
	}

	/**
	 * The rounds the bridge sets aside: those it holds and the next oldest that free `beyond` tokens, within what the planner
	 * would summarize now (which holds the rounds of the summary under way, planned earlier on fewer
	 * rounds, and those the next one will take). Only what must go goes: the rest stays verbatim.
	 */
	private setAsidePlan(
		real: Conversation,
		held: number,
		beyond: number,
		underWay = this.steps.underWay?.(),
	): Pick<SummarizationPlan, 'summarizeRoundIds' | 'previousSummary'> | undefined {
		if (!underWay || !summaryPlanApplicability(real, underWay).ok) return undefined;
		const now = this.plan(real);
		const covers =
			now !== undefined && now.summarizeRoundIds[0] === underWay.summarizeRoundIds[0] && now.summarizeRoundIds.length >= underWay.summarizeRoundIds.length;
		const older = covers ? now : underWay;
		// Past the older half only when even all of it is not enough: up to the newest rounds no plan
		// may take (minRecentRounds), rather than wait.
		const open = unsummarizedRounds(flattenRounds(real)).map(at => at.round.id);
		const candidates =
			open[0] === older.summarizeRoundIds[0]
				? open.slice(0, Math.max(older.summarizeRoundIds.length, open.length - effectiveMinKeep(this.options.minRecentRounds)))
				: older.summarizeRoundIds;
		// The `held` rounds already set aside stay so; `beyond` is what further rounds must free.
		const ids = [...candidates.slice(0, held), ...fewestToFree(real, candidates.slice(held), beyond, this.steps.countTokens)];
		return { summarizeRoundIds: ids, ...(older.previousSummary ? { previousSummary: older.previousSummary } : {}) };
	}

	/**
	 * With the bridge, a ready summary is attached once the rounds it replaces are ones the bridge
	 * would set aside now anyway; until then they stay verbatim, which says more than any summary.
	 */
	private async setAsideWouldCover(real: Conversation): Promise<boolean> {
		const head = this.steps.underWay?.();
		const now = head && this.plan(real);
		if (!now) return true;
		return fewestToFree(real, now.summarizeRoundIds, await this.realNeed(real), this.steps.countTokens).length >= head.summarizeRoundIds.length;
	}

	/** What the real rounds (no set-aside) must free at this overflow: the overflow and the set-aside margin. */
	private async realNeed(real: Conversation): Promise<number> {
		const total = real === this.conversation ? await this.measure() : (this.realNeeded ??= await this.settled(this.steps.measure(real)));
		return beyondWithMargin(total, this.options.messageBudget, SET_ASIDE_MARGIN_SHARE);
	}

	/**
	 * Tightens what is not rounds, one part at a time, once per request: past requests whose work is
	 * summarized, then (`ledgerToo`) the done-ledger. The ledger only when summaries were made and did
	 * not make room: when there was nothing to summarize, the newest round is what is too large, and
	 * cutting it costs less than ledger lines.
	 */
	private async tighten(ledgerToo: boolean): Promise<boolean> {
		const { memory } = this;
		const part =
			memory.tight === 'none' ? 'requests' : ledgerToo && memory.tight === 'requests' && this.steps.showsLedger(this.conversation) ? 'ledger' : undefined;
		if (!part) return false;
		const neededTokens = await this.measure();
		memory.tight = part;
		this.events.push({ kind: 'tightened', part, neededTokens });
		return true;
	}

	/** 3. Model summaries have done what they can for this render (or may not run): tighten before the loop breaker or any truncation. */
	async tightenBeforeBreaker(): Promise<boolean> {
		const stopped = this.memory.modelSummariesStopped !== undefined;
		const summariesDone = !this.autoSummarize || !this.modelCanSummarize || stopped || this.summaryAttempts >= SUMMARY_ATTEMPTS;
		return summariesDone && (await this.tighten(this.summaryAttempts >= SUMMARY_ATTEMPTS && !stopped));
	}

	/** 4. A summary from the model, or the loop breaker when summaries stopped making the prompt fit. */
	async summarizeWithModel(): Promise<boolean> {
		if (!this.autoSummarize || !this.modelCanSummarize || this.memory.modelSummariesStopped) return false;
		if (this.summaryAttempts >= SUMMARY_ATTEMPTS) {
			this.breakLoop();
			return false;
		}
		const planned = this.plan(this.conversation);
		const made = planned && (await this.settled(makeSummary(this.conversation, planned, this.steps.summarize)));
		if (made?.blocks === undefined) {
			if (made) this.events.push({ kind: 'summary-failed', prepared: made });
			this.modelCanSummarize = false;
			return false;
		}
		await this.attach({ ...made, blocks: made.blocks }, 'model');
		if (made.narrowed && this.narrowedSummaries < NARROWED_SUMMARIES) this.narrowedSummaries++;
		else this.summaryAttempts++;
		if (!shrank(made.plan, made.blocks, this.steps.countTokens)) this.summariesShrank = false;
		this.keptTooLarge = (made.plan.stats.tokens?.kept ?? 0) > this.options.messageBudget * KEPT_SHARE_OF_BUDGET;
		return true;
	}

	/** SUMMARY_ATTEMPTS summaries did not make the prompt fit: model summaries stop, for this render or the request. */
	private breakLoop(): void {
		const why = `${SUMMARY_ATTEMPTS} summaries in a row did not make the prompt fit`;
		if (this.summariesShrank || this.keptTooLarge) {
			// The summaries did their part, or had little to take: what is too large is the newest
			// rounds, which truncation shortens now. Stopping for the whole request would leave every
			// later overflow of a long request to truncation (decision 6: the bound is per render).
			this.events.push({ kind: 'loop-breaker', why: `${why}: the newest rounds alone are too large`, scope: 'render' });
			this.modelCanSummarize = false;
			return;
		}
		this.memory.modelSummariesStopped = why;
		// Tightening the ledger is for making room for summaries; with none to come, it goes back to
		// its full size (truncation may still leave it out).
		if (this.memory.tight === 'ledger') this.memory.tight = 'requests';
		this.events.push({ kind: 'loop-breaker', why, scope: 'request' });
	}

	/** 5. Deterministic truncation, when no model summary helps any more: tighten, elide, drop, cut the newest, leave out the ledger. */
	async truncate(): Promise<boolean> {
		if (await this.tighten(false)) return true;
		const { options, steps } = this;
		const total = await this.measure();
		const beyond = beyondWithMargin(total, options.messageBudget);
		const elided = elideOldestToolResults(this.conversation, beyond, steps.countTokens);
		if (elided.elidedCalls > 0) {
			this.conversation = elided.conversation;
			this.events.push({ kind: 'elided', calls: elided.elidedCalls, freedTokens: elided.shedTokens, neededTokens: total });
			return true;
		}
		const dropped = dropOlderRounds(this.conversation, this.planOptions);
		if (dropped) {
			this.conversation = dropped.conversation;
			this.events.push({ kind: 'dropped', plan: dropped.plan, texts: dropped.texts, neededTokens: total });
			await this.boundBlocks();
			return true;
		}
		return (await this.cutNewest()) || (await this.leaveOutLedger());
	}

	/**
	 * Only the newest round is left verbatim and it alone does not fit: its longest results (then its
	 * calls' arguments) are cut further rather than refuse the request over one long output.
	 */
	private async cutNewest(): Promise<boolean> {
		const total = await this.measure();
		const cut = cutNewestResults(this.conversation, beyondWithMargin(total, this.options.messageBudget), this.steps.countTokens);
		if (!cut) return false;
		this.conversation = cut.conversation;
		this.events.push({ kind: 'cut-newest', calls: cut.cutCalls, arguments: cut.cutArguments, freedTokens: cut.freedTokens, neededTokens: total });
		return true;
	}

	/**
	 * Nothing older is left to remove: the ledger goes before the request is refused, until the next
	 * summary (which changes the prompt's head anyway) makes room for it again.
	 */
	private async leaveOutLedger(): Promise<boolean> {
		if (this.memory.ledgerSuspended || !this.steps.showsLedger(this.conversation)) return false;
		this.memory.ledgerSuspended = true;
		this.events.push({ kind: 'ledger-off', neededTokens: await this.measure() });
		return true;
	}

	/** After blocks were added: condenses the oldest when all of them pass the summary budget (with what a background job condensed ahead, when it did). */
	private async boundBlocks(prepared?: PreparedCondensations): Promise<void> {
		if (this.options.summaryBudget === undefined) return;
		const { countTokens, condense } = this.steps;
		let ahead = 0;
		const step = usingPreparedCondensations(prepared, condense, () => ahead++);
		const bounded = await this.settled(condenseOldestBlocks(this.conversation, this.options.summaryBudget, countTokens, step));
		if (bounded.condensed.length === 0) return;
		this.conversation = bounded.conversation;
		this.events.push({ kind: 'condensed', blocks: bounded.condensed, ahead });
	}
}

/** Tokens to free at an overflow of `total`: the overflow and a margin (`share` of the budget), so the next rounds fit too. */
function beyondWithMargin(total: number, messageBudget: number, share = ELISION_MARGIN_SHARE): number {
	return total - messageBudget + Math.ceil(messageBudget * share);
}

/**
 * The oldest of `ids` (a plan's rounds, oldest first) whose set-aside frees `beyond` tokens, each
 * round counted at its size less its index lines; all of them when even that is not enough.
 */
function fewestToFree(conversation: Conversation, ids: readonly string[], beyond: number, countTokens: (text: string) => number): string[] {
	const byId = new Map(flattenRounds(conversation).map(at => [at.round.id, at.round]));
	let freed = 0;
	const taken: string[] = [];
	for (const id of ids) {
		const round = byId.get(id)!;
		taken.push(id);
		freed += roundTokens(round, countTokens) - setAsideLines([round]).reduce((n, line) => n + countTokens(line) + 2, 0);
		if (freed >= beyond) break;
	}
	return taken;
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
