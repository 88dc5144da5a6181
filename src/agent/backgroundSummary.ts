// The agent's background summaries: the rule is src/common/background (when to start, the job's
// life, when a prepared summary still applies); this file gives it the model's summarizer with a
// cancellation token tied to the request, real time, the log, and the learned speed of summaries.
import * as vscode from 'vscode';
import { BackgroundSummaries, dropCarried, newBackgroundStats, type BackgroundStats, type CarriedJob } from '../common/background/backgroundJob';
import type { SummarizationPlan } from '../common/planning/plan';
import { callDurationMs, learnedRates, observeSummary, UNLEARNED_SPEED, type LearnedSpeed } from '../common/background/latency';
import type { Conversation } from '../common/conversation/conversation';
import { makeSummaryAhead, type PreparedSummary } from '../common/fitting/preparedSummary';
import { summaryBudget } from '../common/tokens/budget';
import type { CondensedAhead } from '../common/summaries/condenseBlocks';
import { summaryLength } from '../common/summaries/summaryLength';
import { countTokens } from '../common/tokens/tokenizer';
import { logSummary, modelCondenser, modelSummarizer, planWithStats, type SummarizerContext } from './compaction';
import { log } from './log';

export type { BackgroundStats } from '../common/background/backgroundJob';
export { newBackgroundStats } from '../common/background/backgroundJob';

/** A prepared summary that was not attached: every attempt failed, or it no longer fitted the conversation. */
export type UnusedSummary = (prepared: PreparedSummary, outcome: 'failed' | 'discarded') => void;

/** What Longhaul learned of each model's summary speed, for this window (a session's models are few). */
const speeds = new Map<string, LearnedSpeed>();

/** Learns the model's speed from a summary it made (each request's input and output). */
export function learnSummarySpeed(modelId: string, prepared: PreparedSummary): void {
	speeds.set(modelId, observeSummary(speeds.get(modelId) ?? UNLEARNED_SPEED, prepared.attempts, prepared.durationMs));
}

/** How long a summary of `inputTokens` would take with this model now, by what was learned (field rates until then). */
export function expectedSummaryMs(modelId: string, inputTokens: number, outputTokens: number): number {
	return callDurationMs(learnedRates(speeds.get(modelId) ?? UNLEARNED_SPEED), inputTokens, outputTokens);
}

/** The model's learned speed, for /context. */
export function summarySpeed(modelId: string): LearnedSpeed | undefined {
	return speeds.get(modelId);
}

/** A job still under way (or ready) when its request ended, for the next request of the same chat. */
interface Carry {
	/** A holder of the handed-over jobs, to read their state. */
	readonly core: BackgroundSummaries;
	/** The newest round of the conversation when the request ended: the next request's history ends with it. */
	readonly lastRoundId: string;
	readonly modelId: string;
	readonly carried: CarriedJob;
	readonly onUnused: UnusedSummary;
	readonly timer: ReturnType<typeof setTimeout>;
}
let carry: Carry | undefined;
/** A carried job nobody adopted in this time is cancelled. */
const CARRY_MS = 10 * 60_000;

function dropCarry(stats: BackgroundStats): void {
	if (!carry) return;
	clearTimeout(carry.timer);
	dropCarried(carry.carried, { onUnused: carry.onUnused }, stats);
	carry = undefined;
}

/** The id of the newest round of a conversation (past turns, then the request in progress). */
function newestRoundId(conversation: Conversation): string | undefined {
	const active = conversation.activeRounds[conversation.activeRounds.length - 1];
	if (active) return active.id;
	for (let t = conversation.turns.length - 1; t >= 0; t--) {
		const rounds = conversation.turns[t].rounds;
		if (rounds.length) return rounds[rounds.length - 1].id;
	}
	return undefined;
}

export class BackgroundSummarizer implements vscode.Disposable {
	private readonly core: BackgroundSummaries;
	private readonly requestCancel: vscode.Disposable;
	private readonly jobs = new Set<vscode.CancellationTokenSource>();
	/** Older blocks the jobs of this request condensed ahead: a later job of the chain takes them instead of asking again. */
	private readonly condensedAhead = new Map<string, CondensedAhead>();

	constructor(
		private readonly ctx: SummarizerContext,
		stats: BackgroundStats,
		private readonly onUnused: UnusedSummary = () => {},
	) {
		this.requestCancel = ctx.token.onCancellationRequested(() => this.jobs.forEach(job => job.cancel()));
		this.core = new BackgroundSummaries(
			{
				plan: conversation => planWithStats(conversation, ctx),
				summarize: (conversation, plan) => this.summarize(conversation, plan),
				now: () => performance.now(),
				onUnused,
				log: line => log().info(line),
			},
			stats,
		);
	}

	/** Adopts the job the previous request of this chat handed over, if this conversation continues it with the same model. */
	adoptCarried(conversation: Conversation): void {
		if (!carry) return;
		if (carry.modelId !== this.ctx.model.id || carry.lastRoundId !== newestRoundId(conversation) || !this.core.adopt(carry.carried)) {
			dropCarry(this.core.stats);
			return;
		}
		clearTimeout(carry.timer);
		carry = undefined;
		log().info('background summary carried over from the previous request');
	}

	private summarize(conversation: Conversation, plan: SummarizationPlan) {
		const job = new vscode.CancellationTokenSource();
		this.jobs.add(job);
		const done = makeSummaryAhead(conversation, plan, modelSummarizer(this.ctx, job.token), {
			budgetTokens: summaryBudget(this.ctx.budget),
			countTokens,
			condense: modelCondenser(this.ctx, job.token),
			memory: this.condensedAhead,
		})
			.then(prepared => {
				logSummary('background', prepared);
				if (prepared.blocks) learnSummarySpeed(this.ctx.model.id, prepared);
				return prepared;
			})
			.catch(error => {
				if (!(error instanceof vscode.CancellationError)) log().info(`background summarization failed: ${error instanceof Error ? error.name : 'error'}`);
				return undefined;
			})
			.finally(() => {
				this.jobs.delete(job);
				job.dispose();
			});
		return { done, cancel: () => job.cancel() };
	}

	get state() {
		return this.core.state();
	}

	/** After each fitted prompt: maybe starts the next summary (src/common/background/startRule.ts). */
	consider(conversation: Conversation, promptTokens: number, messageBudget: number, latestShare: number): void {
		this.core.consider(conversation, {
			promptTokens,
			messageBudget,
			latestShare,
			expectedSummaryTokens: summaryLength(summaryBudget(this.ctx.budget)).targetTokens,
			speed: speeds.get(this.ctx.model.id) ?? UNLEARNED_SPEED,
		});
	}

	/** At an overflow: the prepared summary if there is one and it still fits the conversation (waiting for a job under way). */
	async takeAtOverflow(conversation: Conversation, progress?: (message: string) => void): Promise<PreparedSummary | undefined> {
		const state = this.core.state();
		if (state.kind === 'preparing' && progress) progress(waitingLine(state.forMs, state.expectedMs));
		return (await this.core.takeAtOverflow(conversation)).prepared;
	}

	/**
	 * The request ended: a job under way or ready is kept for the next request of this chat (the
	 * older rounds it summarizes stay as they are), unless the user cancelled.
	 */
	dispose(finalConversation?: Conversation): void {
		const lastRoundId = finalConversation && !this.ctx.token.isCancellationRequested ? newestRoundId(finalConversation) : undefined;
		const carried = lastRoundId ? this.core.handOver() : undefined;
		if (carried && lastRoundId) {
			dropCarry(this.core.stats);
			const holder = new BackgroundSummaries({
				plan: () => undefined,
				summarize: () => ({ done: Promise.resolve(undefined), cancel: () => {} }),
				now: () => performance.now(),
			});
			holder.adopt(carried);
			carry = {
				core: holder,
				lastRoundId,
				modelId: this.ctx.model.id,
				carried,
				onUnused: this.onUnused,
				timer: setTimeout(() => dropCarry(newBackgroundStats()), CARRY_MS),
			};
		} else {
			this.core.dispose();
		}
		this.requestCancel.dispose();
	}
}

/** The progress line while the user waits for a summary that is under way: how long it has run and about how long is left. */
export function waitingLine(forMs: number, expectedMs: number | undefined): string {
	const ran = Math.round(forMs / 1000);
	const left = expectedMs !== undefined ? Math.max(1, Math.round((expectedMs - forMs) / 1000)) : undefined;
	return left !== undefined
		? vscode.l10n.t('Finishing the summary prepared in the background (running for {0} s, about {1} s left)…', ran, left)
		: vscode.l10n.t('Finishing the summary prepared in the background (running for {0} s)…', ran);
}

/** /context's line on background work: what the last request handed over for the next one, and the learned speed. */
export function backgroundLine(modelId: string): string {
	const speed = speeds.get(modelId);
	const state = carry && carry.modelId === modelId ? carry.core.state() : ({ kind: 'none' } as const);
	const what =
		state.kind === 'ready'
			? vscode.l10n.t('ready, covering {0} older rounds; the next overflow uses it without waiting', state.rounds)
			: state.kind === 'preparing'
				? vscode.l10n.t('preparing for {0} s ({1} older rounds)', Math.round(state.forMs / 1000), state.rounds)
				: vscode.l10n.t('none under way');
	return speed
		? vscode.l10n.t(
				'**Background summary:** {0}; summaries of this model run at {1}× the field estimate ({2} measured).',
				what,
				speed.scale.toFixed(2),
				speed.samples,
			)
		: vscode.l10n.t('**Background summary:** {0}.', what);
}
