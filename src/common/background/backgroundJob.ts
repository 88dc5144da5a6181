// The life of a summary prepared in the background: started while the agent keeps working, taken
// at the first overflow if it still applies to the conversation (waiting for the rest of it if it
// is not done yet), discarded when another summary made it wrong or the request ended first. One
// job at a time. No vscode and no clock of its own: the agent gives it real time and a model call
// it can cancel; the replay benchmark gives it its virtual clock and the stand-in summarizer, so
// both run this same rule.
import type { Conversation } from '../conversation/conversation';
import type { PreparedSummary } from '../fitting/preparedSummary';
import { applySummaryBlocks } from '../summaries/applySummary';
import type { SummarizationPlan } from '../planning/plan';
import { summaryPlanApplicability } from '../planning/summaryApplicability';
import { callDurationMs, learnedRates, type LearnedSpeed } from './latency';
import { EARLIEST_SHARE, MIN_EARLY_SLICE_SHARE, PACE_WINDOW, shouldStartBackground, type PromptSample } from './startRule';

/** What consider() needs to know of the prompt just fitted. */
export interface ConsiderInput {
	readonly promptTokens: number;
	readonly messageBudget: number;
	/** longhaul.backgroundSummarizationThreshold as a share; 0 turns background work off. */
	readonly latestShare: number;
	/** What the summarizer is asked to write (summaryLength.ts). */
	readonly expectedSummaryTokens: number;
	/** The model's learned speed (latency.ts). */
	readonly speed: LearnedSpeed;
}

/** A summary under way: resolves with it (every attempt failed: no blocks), or undefined when it was cancelled or threw. */
export interface SummaryJob {
	readonly done: Promise<PreparedSummary | undefined>;
	/** On a virtual clock: how long the job took, read once `done` resolved; without it, it ended when `done` resolved. */
	readonly durationMs?: () => number;
	cancel(): void;
}

export interface BackgroundSteps {
	plan(conversation: Conversation): SummarizationPlan | undefined;
	summarize(conversation: Conversation, plan: SummarizationPlan): SummaryJob;
	now(): number;
	/** A prepared summary made for nothing: every attempt failed, or it no longer applied (or was never needed). */
	onUnused?(prepared: PreparedSummary, outcome: 'failed' | 'discarded'): void;
	log?(line: string): void;
	/**
	 * True while the provider runs one request at a time (providerSlots.ts): a summary started ahead
	 * would hold the agent's next call, so none is started ahead; the bridge starts one at an overflow.
	 */
	oneAtATime?(): boolean;
}

export interface BackgroundStats {
	started: number;
	/** Of those, started ahead of an overflow (the forecast or the threshold), not by the bridge at one. */
	startedAhead: number;
	/** Ready when the overflow came: the user did not wait at all. */
	readyAtOverflow: number;
	/** Still running when the overflow came: the user waited for the rest of it. */
	awaitedAtOverflow: number;
	/** Attached to the conversation. */
	used: number;
	/** Failed, or no longer right for the conversation, or never needed. */
	discarded: number;
	/** Received from the previous request of the chat (adopted, or dropped when this request does not continue it). */
	carriedIn: number;
	/** Passed on, under way or ready, to the next request of the chat. */
	handedOver: number;
	/** Time the user waited for jobs still running at an overflow, ms. */
	waitedMs: number;
}

export function newBackgroundStats(): BackgroundStats {
	return { started: 0, startedAhead: 0, readyAtOverflow: 0, awaitedAtOverflow: 0, used: 0, discarded: 0, carriedIn: 0, handedOver: 0, waitedMs: 0 };
}

/** Jobs neither used, discarded nor handed over yet: started or carried in, less what became of them. */
export function jobsUnderWay(stats: BackgroundStats): number {
	return stats.started + stats.carriedIn - stats.used - stats.discarded - stats.handedOver;
}

/** What /context and the status line say of the background work. */
export type BackgroundState =
	| { readonly kind: 'none' }
	| { readonly kind: 'preparing'; readonly forMs: number; readonly rounds: number; readonly expectedMs?: number }
	| { readonly kind: 'ready'; readonly rounds: number; readonly anchorRoundId: string };

/** What an overflow got from the background: the summary if one applies, and how long the user waited for it. */
export interface TakenSummary {
	readonly prepared?: PreparedSummary;
	/** Ms between the overflow and the job's end (0 when it was ready). */
	readonly waitedMs: number;
	/** There was a job at the overflow, and it was done. */
	readonly wasReady: boolean;
}

export interface Job {
	readonly plan: SummarizationPlan;
	readonly startedAt: number;
	readonly run: SummaryJob;
	/** When the job ended, once it did. */
	finishedAt?: number;
	result?: PreparedSummary;
	settled?: Promise<void>;
	/** How long the start rule expected it to take. */
	readonly expectedMs?: number;
}

/** Jobs handed from one request to the next, oldest first (opaque). */
export interface CarriedJob {
	readonly jobs: readonly Job[];
}

/** Ends jobs nobody adopted: cancelled, and made for nothing if they were done (counted as carried in, then discarded). */
export function dropCarried(carried: CarriedJob, steps: Pick<BackgroundSteps, 'onUnused'>, stats: BackgroundStats): void {
	stats.carriedIn += carried.jobs.length;
	for (const job of carried.jobs) dropJob(job, steps, stats);
}

function dropJob(job: Job, steps: Pick<BackgroundSteps, 'onUnused'>, stats: BackgroundStats): void {
	if (job.result) steps.onUnused?.(job.result, job.result.blocks === undefined ? 'failed' : 'discarded');
	job.run.cancel();
	stats.discarded++;
}

/** Tokens a prepared summary frees once attached: what it replaces less what it writes. */
function freedTokens(prepared: PreparedSummary): number {
	const replaced = prepared.plan.stats.tokens ? prepared.plan.stats.tokens.summarized + prepared.plan.stats.tokens.previousSummary : 0;
	const written = prepared.attempts.reduce((n, a) => n + (a.outcome === 'ok' ? (a.summaryTokens ?? 0) : 0), 0);
	return Math.max(0, replaced - written);
}

/**
 * The background summaries of a request (or of a chat, when carried over). Jobs form a chain,
 * oldest first: when one is done before the overflow and the conversation keeps growing, the next
 * is planned on the conversation with the done ones attached (for half-context, the next older
 * slice), so a summary prepared early is extended, not thrown away and restarted. At an overflow
 * the overflow pipeline takes them one at a time, as long as the prompt does not fit.
 */
export class BackgroundSummaries {
	private jobs: Job[] = [];
	private disposed = false;
	private readonly history: PromptSample[] = [];

	constructor(
		private readonly steps: BackgroundSteps,
		public stats: BackgroundStats = newBackgroundStats(),
	) {}

	/** True while a job is under way or ready and not yet taken. */
	get busy(): boolean {
		return this.jobs.length > 0;
	}

	/** The jobs that are done with a summary, oldest first, up to the first one still running or failed. */
	private doneChain(): Job[] {
		const done: Job[] = [];
		for (const job of this.jobs) {
			if (job.finishedAt === undefined || job.finishedAt > this.steps.now() || !job.result?.blocks) break;
			done.push(job);
		}
		return done;
	}

	/**
	 * After each fitted prompt: starts the next summary when the forecast says it would otherwise be
	 * late at the overflow (startRule.ts), or at the user's threshold at the latest; the prompt is
	 * counted as it will be once the summaries already done are attached. Returns why it started.
	 */
	consider(conversation: Conversation, now: ConsiderInput): 'threshold' | 'forecast' | undefined {
		this.history.push({ tokens: now.promptTokens, atMs: this.steps.now() });
		if (this.history.length > PACE_WINDOW + 1) this.history.shift();
		if (this.disposed || !(now.latestShare > 0) || this.steps.oneAtATime?.()) return undefined;
		const done = this.doneChain();
		if (done.length < this.jobs.length) return undefined; // one is still running (or failed: taken at the overflow)
		const freed = done.reduce((n, job) => n + freedTokens(job.result!), 0);
		if (now.promptTokens - freed < EARLIEST_SHARE * now.messageBudget) return undefined;
		const base = attachChain(conversation, done);
		if (!base) return undefined;
		const plan = this.steps.plan(base);
		if (!plan) return undefined;
		// The summarizer reads about what it replaces and writes about the length it is asked for.
		const input = plan.stats.tokens ? plan.stats.tokens.summarized + plan.stats.tokens.previousSummary : now.promptTokens / 2;
		const summaryMs = callDurationMs(learnedRates(now.speed), input, now.expectedSummaryTokens);
		const history = this.history.map(sample => ({ ...sample, tokens: sample.tokens - freed }));
		const decision = shouldStartBackground({ history, messageBudget: now.messageBudget, latestShare: now.latestShare, summaryMs });
		if (!decision.start) return undefined;
		if (decision.why === 'forecast' && plan.stats.tokens && plan.stats.tokens.summarized < MIN_EARLY_SLICE_SHARE * now.messageBudget) return undefined;
		this.startPlanned(base, plan, summaryMs);
		this.stats.startedAhead++;
		this.steps.log?.(
			`background summary started (${decision.why}${done.length ? `, after ${done.length} ready` : ''}, expected ${Math.round(summaryMs / 1000)} s${now.speed.samples ? '' : ' by the default rates, this model not measured yet'})`,
		);
		return decision.why;
	}

	/** Starts preparing the summary of `conversation` unless a job is already under way; false when nothing could be planned. */
	start(conversation: Conversation): boolean {
		if (this.jobs.length || this.disposed) return false;
		const plan = this.steps.plan(conversation);
		if (!plan) return false;
		this.startPlanned(conversation, plan);
		return true;
	}

	private startPlanned(conversation: Conversation, plan: SummarizationPlan, expectedMs?: number): void {
		const startedAt = this.steps.now();
		const run = this.steps.summarize(conversation, plan);
		const job: Job = { plan, startedAt, run, ...(expectedMs !== undefined ? { expectedMs } : {}) };
		job.settled = run.done.then(prepared => {
			job.result = prepared;
			job.finishedAt = run.durationMs ? startedAt + run.durationMs() : this.steps.now();
		});
		this.jobs.push(job);
		this.stats.started++;
	}

	state(): BackgroundState {
		const done = this.doneChain();
		const running = this.jobs[done.length];
		if (running) {
			const forMs = this.steps.now() - running.startedAt;
			return {
				kind: 'preparing',
				forMs,
				rounds: running.plan.summarizeRoundIds.length,
				...(running.expectedMs !== undefined ? { expectedMs: running.expectedMs } : {}),
			};
		}
		if (done.length === 0) return { kind: 'none' };
		const newest = done[done.length - 1].result!.plan;
		return { kind: 'ready', rounds: done.reduce((n, job) => n + job.result!.plan.summarizeRoundIds.length, 0), anchorRoundId: newest.anchorRoundId };
	}

	/**
	 * At an overflow: the oldest prepared summary if it still applies to `conversation` (waiting for
	 * it if it is under way), else none and the caller summarizes now. Called again while the prompt
	 * does not fit, it gives the next one of the chain.
	 */
	async takeAtOverflow(conversation: Conversation, wait = true): Promise<TakenSummary> {
		// Without waiting (the bridge, decision 43), a job still under way is left running.
		if (!wait && this.doneChain().length === 0 && !this.headFailed()) return { waitedMs: 0, wasReady: false };
		const job = this.jobs.shift();
		if (!job) return { waitedMs: 0, wasReady: false };
		const overflowAt = this.steps.now();
		await job.settled;
		const prepared = job.result;
		const finishedAt = job.finishedAt ?? overflowAt;
		const wasReady = finishedAt <= overflowAt;
		const waitedMs = Math.max(0, finishedAt - overflowAt);
		if (wasReady) this.stats.readyAtOverflow++;
		else this.stats.awaitedAtOverflow++;
		this.stats.waitedMs += waitedMs;
		const applicable = prepared?.blocks !== undefined ? summaryPlanApplicability(conversation, prepared.plan) : undefined;
		if (!prepared || !applicable?.ok) {
			this.stats.discarded++;
			if (prepared) this.steps.onUnused?.(prepared, prepared.blocks === undefined ? 'failed' : 'discarded');
			if (applicable && !applicable.ok) this.steps.log?.(`background summary discarded: ${applicable.reason}`);
			// The later jobs were planned on this one attached: none of them applies now.
			this.dropAll();
			return { waitedMs, wasReady };
		}
		this.stats.used++;
		return { prepared, waitedMs, wasReady };
	}

	/** The plan of the oldest job not taken yet (under way or ready), if any. */
	headPlan(): SummarizationPlan | undefined {
		return this.jobs[0]?.plan;
	}

	/** The oldest job ended without a summary (taking it now discards the chain without a wait). */
	private headFailed(): boolean {
		const head = this.jobs[0];
		return head !== undefined && head.finishedAt !== undefined && head.finishedAt <= this.steps.now() && !head.result?.blocks;
	}

	private dropAll(): void {
		for (const job of this.jobs) dropJob(job, this.steps, this.stats);
		this.jobs = [];
	}

	/**
	 * The request ends normally: the jobs under way or ready are handed over, uncancelled, for the
	 * next request of the same chat (the older rounds they summarize do not change in between).
	 */
	handOver(): CarriedJob | undefined {
		const jobs = this.jobs;
		this.jobs = [];
		this.disposed = true;
		this.stats.handedOver += jobs.length;
		return jobs.length ? { jobs } : undefined;
	}

	/** Takes over the jobs an earlier request handed over; false when this one has jobs already. */
	adopt(carried: CarriedJob): boolean {
		if (this.jobs.length || this.disposed) return false;
		this.jobs = [...carried.jobs];
		this.stats.carriedIn += carried.jobs.length;
		return true;
	}

	/** The request ends: jobs under way are cancelled, ready ones were made for nothing. */
	dispose(): void {
		this.disposed = true;
		this.dropAll();
	}
}

/** `conversation` with the done jobs' summaries attached in order; undefined when one no longer applies. */
function attachChain(conversation: Conversation, done: readonly Job[]): Conversation | undefined {
	let attached = conversation;
	for (const job of done) {
		const prepared = job.result!;
		if (!summaryPlanApplicability(attached, prepared.plan).ok) return undefined;
		attached = applySummaryBlocks(attached, prepared.plan, prepared.blocks!);
	}
	return attached;
}
