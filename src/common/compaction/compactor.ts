// One request's compaction (every step that shrinks a prompt, docs/glossary.md), built once: the
// agent builds it per request around the model (src/agent/requestCompactor.ts), the replay
// benchmark per replayed session around its stand-in model (bench/replay/replayCompactor.ts). It
// holds what every summary of the request shares — the settings, the budget, the summarizer and
// condenser, the plan options, the background jobs and the learned summary speed — and offers
// what the callers need: fit the next prompt (fitPrompt.ts), compact now (/compact), consider a
// background start after a fitted prompt, and take a prepared summary at an overflow.
import { BackgroundSummaries, type BackgroundStats, type SummaryJob, type TakenSummary } from '../background/backgroundJob';
import { callDurationMs, learnedRates, type LearnedSpeed } from '../background/latency';
import type { Conversation } from '../conversation/conversation';
import { fitPlanOptions, fitPrompt, type FitOptions, type FitResult, type FitSteps } from '../fitting/fitPrompt';
import type { FitMemory } from '../fitting/fitMemory';
import { makeSummary, makeSummaryAhead, type PreparedSummary } from '../fitting/preparedSummary';
import { applySummaryBlocks } from '../summaries/applySummary';
import type { SummarizationMode, SummarizationPlan } from '../planning/plan';
import { planOrNothing, type PlanOptions } from '../planning/planners';
import { condenseOldestBlocks, type CondenseBlock, type CondensedAhead, type CondenseResult } from '../summaries/condenseBlocks';
import type { SummarizeBlock } from '../summaries/summarizeBlocks';
import { summaryLength } from '../summaries/summaryLength';
import { summaryBudget, type PromptBudget } from '../tokens/budget';
import { stripProvisional } from '../fitting/setAside';

/** The settings that shape compaction (longhaul.* in the product; chosen per strategy in the benchmark). */
export interface CompactorSettings {
	readonly mode: SummarizationMode;
	/** longhaul.maskOldToolResults */
	readonly maskOldToolResults: boolean;
	/** longhaul.autoSummarize */
	readonly autoSummarize: boolean;
	/** longhaul.minRecentRounds: the fewest rounds half-context keeps verbatim. */
	readonly minRecentRounds: number;
	/** half-context's split rule; the product always uses `tokens`. */
	readonly halfContextSplit?: 'tokens' | 'rounds';
	/** longhaul.backgroundSummarizationThreshold: the latest share of the budget to start a background summary at; 0 turns it off. */
	readonly latestShare: number;
}

/** The model's side of a summary: one turn's block (Full, then Simple), and shortening an older block. */
export interface SummarizerSteps {
	readonly summarize: SummarizeBlock;
	readonly condense: CondenseBlock;
}

/** Background summaries on the caller's clock: it starts each job, which summarizes ahead with `ahead`. */
export interface BackgroundParts {
	start(ahead: (steps: SummarizerSteps) => Promise<PreparedSummary>): SummaryJob;
	now(): number;
	/** A prepared summary that was not attached: every attempt failed, or it no longer fitted the conversation. */
	onUnused?(prepared: PreparedSummary, outcome: 'failed' | 'discarded'): void;
	log?(line: string): void;
	/** Where the jobs are counted (the request's record in the agent). */
	readonly stats?: BackgroundStats;
	/** True while the provider runs one request at a time (background/providerSlots.ts): the bridge defers the summary until all of its rounds are set aside. */
	oneAtATime?(): boolean;
}

export interface CompactorParts {
	readonly settings: CompactorSettings;
	/** Read at every use: a "prompt too long" from the provider tightens it during the request. */
	budget(): PromptBudget;
	readonly countTokens: (text: string) => number;
	readonly summarizer: SummarizerSteps;
	/** What was learned of the summarizer's speed (latency.ts); kept beyond the request by its owner. */
	speed(): LearnedSpeed;
	/** Without it, no summary is prepared in the background. */
	readonly background?: BackgroundParts;
}

/** The prompt's side of a fit: render and measure a conversation's prompt at these options (src/prompts/agentPromptSteps.ts). */
export type PromptSteps<P> = Pick<FitSteps<P>, 'render' | 'measure' | 'showsLedger'>;

/** One fit of the next prompt: how it is rendered, and what the caller adds around the model's steps. */
export interface NextPrompt<P> {
	readonly prompt: (options: FitOptions) => PromptSteps<P>;
	/** The budget of this fit (read once by the caller); the Compactor's own by default. */
	readonly budget?: PromptBudget;
	/** A message budget below the budget's, for the retry after a provider refused a prompt as too long. */
	readonly messageBudget?: number;
	readonly takePrepared?: FitSteps<P>['takePrepared'];
	/** Wraps the summarizer and the condenser for this fit (progress lines, the clock of the user's waits). */
	readonly around?: { summarize(step: SummarizeBlock): SummarizeBlock; condense(step: CondenseBlock): CondenseBlock };
	readonly isCancelled?: () => boolean;
	readonly cancellationError?: () => Error;
	/** Wraps every plan (the benchmark times them and counts their tokenizing). */
	readonly timePlan?: <T>(plan: () => T) => T;
}

export type CompactOutcome =
	| { readonly kind: 'nothing-to-summarize' }
	| { readonly kind: 'failed'; readonly prepared: PreparedSummary }
	| {
			readonly kind: 'summarized';
			readonly prepared: PreparedSummary & { readonly blocks: readonly string[] };
			readonly conversation: Conversation;
			/** Older blocks condensed to make room. */
			readonly condensed: CondenseResult['condensed'];
	  };

export class Compactor {
	/** Summaries prepared in the background; none without BackgroundParts. */
	readonly background?: BackgroundSummaries;
	/** Older blocks the background jobs condensed ahead: a later job of the chain takes them instead of asking again. */
	private readonly condensedAhead = new Map<string, CondensedAhead>();

	constructor(private readonly parts: CompactorParts) {
		const background = parts.background;
		if (background) {
			this.background = new BackgroundSummaries(
				{
					plan: conversation => this.plan(conversation),
					summarize: (conversation, plan) => background.start(steps => this.summarizeAhead(conversation, plan, steps)),
					now: () => background.now(),
					...(background.onUnused ? { onUnused: background.onUnused } : {}),
					...(background.log ? { log: background.log } : {}),
					...(background.oneAtATime ? { oneAtATime: background.oneAtATime } : {}),
				},
				background.stats,
			);
		}
	}

	get settings(): CompactorSettings {
		return this.parts.settings;
	}

	get budget(): PromptBudget {
		return this.parts.budget();
	}

	get summarizer(): SummarizerSteps {
		return this.parts.summarizer;
	}

	/** fitPrompt's options at this budget; `messageBudget` caps the budget's room for messages. */
	fitOptions(budget = this.budget, messageBudget = budget.messages): FitOptions {
		const { settings } = this.parts;
		return {
			mode: settings.mode,
			messageBudget: Math.min(messageBudget, budget.messages),
			maskOldToolResults: settings.maskOldToolResults,
			summaryBudget: summaryBudget(budget),
			autoSummarize: settings.autoSummarize,
			minRecentRounds: settings.minRecentRounds,
			...(this.bridges ? { bridge: true } : {}),
			...(this.bridges && this.parts.background?.oneAtATime?.() ? { deferSummary: true } : {}),
			...(settings.halfContextSplit ? { halfContextSplit: settings.halfContextSplit } : {}),
		};
	}

	/** The planner's options for these fit options (also for masking and dropping older rounds). */
	planOptions(options = this.fitOptions()): PlanOptions {
		return fitPlanOptions(options, this.parts.countTokens);
	}

	/** The planner's decision with token statistics; undefined when there is nothing to summarize. */
	plan(conversation: Conversation, options = this.fitOptions()): SummarizationPlan | undefined {
		return planOrNothing(conversation, options.mode, this.planOptions(options));
	}

	/** Makes the next prompt fit its budget: the overflow pipeline (fitPrompt.ts) with this request's summarizer and plans. */
	fit<P>(conversation: Conversation, memory: FitMemory, next: NextPrompt<P>): Promise<FitResult<P>> {
		const options = this.fitOptions(next.budget, next.messageBudget);
		const planOptions = this.planOptions(options);
		const timePlan = next.timePlan ?? (<T>(plan: () => T) => plan());
		const { summarize, condense } = this.parts.summarizer;
		const steps: FitSteps<P> = {
			...next.prompt(options),
			...(next.takePrepared ? { takePrepared: next.takePrepared } : {}),
			summarize: next.around ? next.around.summarize(summarize) : summarize,
			condense: next.around ? next.around.condense(condense) : condense,
			...(this.bridges ? { prepareLater: (c: Conversation) => this.prepareLater(c, memory), underWay: () => this.background?.headPlan() } : {}),
			plan: c => timePlan(() => planOrNothing(c, options.mode, planOptions)),
			countTokens: this.parts.countTokens,
			isCancelled: next.isCancelled ?? (() => false),
			cancellationError: next.cancellationError ?? (() => new Error('cancelled')),
		};
		return fitPrompt(conversation, memory, steps, options);
	}

	/**
	 * Summarizes the older part now (/compact); the conversation only changes when a summary was
	 * made. `onMade` sees the summary before older blocks are condensed to make room for it.
	 */
	async compactNow(
		conversation: Conversation,
		hooks: { onPlanned?(plan: SummarizationPlan): void; onMade?(prepared: PreparedSummary): void } = {},
	): Promise<CompactOutcome> {
		conversation = stripProvisional(conversation);
		const plan = this.plan(conversation);
		if (!plan) return { kind: 'nothing-to-summarize' };
		hooks.onPlanned?.(plan);
		const prepared = await makeSummary(conversation, plan, this.parts.summarizer.summarize);
		hooks.onMade?.(prepared);
		if (prepared.blocks === undefined) return { kind: 'failed', prepared };
		const attached = applySummaryBlocks(conversation, prepared.plan, prepared.blocks);
		const bounded = await condenseOldestBlocks(attached, summaryBudget(this.budget), this.parts.countTokens, this.parts.summarizer.condense);
		return { kind: 'summarized', prepared: { ...prepared, blocks: prepared.blocks }, conversation: bounded.conversation, condensed: bounded.condensed };
	}

	/** A background job's work: the summary, then the condensations attaching it will need (makeSummaryAhead). */
	private summarizeAhead(conversation: Conversation, plan: SummarizationPlan, steps: SummarizerSteps): Promise<PreparedSummary> {
		return makeSummaryAhead(conversation, plan, steps.summarize, {
			budgetTokens: summaryBudget(this.budget),
			countTokens: this.parts.countTokens,
			condense: steps.condense,
			memory: this.condensedAhead,
		});
	}

	/**
	 * After a fitted prompt: maybe starts the next background summary (src/common/background/startRule.ts),
	 * unless summaries are off or stopped for the request. `messageBudget`: the fit's, by default the budget's now.
	 */
	considerBackground(conversation: Conversation, promptTokens: number, memory: FitMemory, messageBudget?: number): void {
		// With the bridge (half-context), nobody waits at an overflow: the summary starts there
		// (prepareLater) and its rounds are set aside until it lands. One started ahead buys no
		// shorter wait, and a chat that ends before its overflow has paid for it (decision 50).
		if (!this.background || !this.summariesAllowed(memory) || this.bridges) return;
		const budget = this.budget;
		this.background.consider(stripProvisional(conversation), {
			promptTokens,
			messageBudget: messageBudget ?? budget.messages,
			latestShare: this.parts.settings.latestShare,
			expectedSummaryTokens: summaryLength(summaryBudget(budget)).targetTokens,
			speed: this.parts.speed(),
		});
	}

	/** At an overflow: the prepared summary if one still applies (waiting for a job under way), and how long that took. */
	async takePrepared(conversation: Conversation, wait = true): Promise<TakenSummary> {
		return this.background ? this.background.takeAtOverflow(conversation, wait) : { waitedMs: 0, wasReady: false };
	}

	/** The bridge's summary: starts one in the background unless one is under way; true when one is under way now. */
	prepareLater(conversation: Conversation, memory: FitMemory): boolean {
		if (!this.background || !this.summariesAllowed(memory)) return false;
		if (this.background.busy) return true;
		const started = this.background.start(stripProvisional(conversation));
		if (started) this.parts.background?.log?.('background summary started (bridge: the prompt overflowed with none under way)');
		return started;
	}

	/** Summaries may be asked for: automatic summaries are on and the loop breaker has not stopped them for the request. */
	private summariesAllowed(memory: FitMemory): boolean {
		return this.parts.settings.autoSummarize && !memory.modelSummariesStopped;
	}

	/** Whether fits bridge (FitOptions.bridge): half-context with background summaries (decision 43). */
	get bridges(): boolean {
		return this.background !== undefined && this.parts.settings.mode === 'half-context' && this.parts.settings.latestShare > 0;
	}

	/** Whether the estimate below comes from this model's measured summaries (else it is the field default). */
	get speedMeasured(): boolean {
		return this.parts.speed().samples > 0;
	}

	/** How long a summary of `inputTokens` would take now, by the learned speed (field rates until then). */
	expectedSummaryMs(inputTokens: number, budget = this.budget): number {
		return callDurationMs(learnedRates(this.parts.speed()), inputTokens, summaryLength(summaryBudget(budget)).targetTokens);
	}
}
