// Background summarization (issue 7): when the prompt passes a share of the window, the summary
// of the older part is prepared while the agent keeps working, and used at the first render that
// overflows, if it still fits the conversation. One job at a time; cancelled with the request.
import * as vscode from 'vscode';
import type { Conversation } from '../common/conversation/conversation';
import { makeSummary, type PreparedSummary } from '../common/fitting/preparedSummary';
import { summaryPlanApplicability } from '../common/planning/summaryApplicability';
import { logSummary, modelSummarizer, planWithStats, type SummarizerContext } from './compaction';
import { log } from './log';

export interface BackgroundStats {
	started: number;
	/** Ready when the overflow came: the user did not wait at all. */
	readyAtOverflow: number;
	/** Still running when the overflow came: the user waited for the rest of it. */
	awaitedAtOverflow: number;
	/** Attached to the conversation. */
	used: number;
	/** Failed, or no longer right for the conversation. */
	discarded: number;
}

export function newBackgroundStats(): BackgroundStats {
	return { started: 0, readyAtOverflow: 0, awaitedAtOverflow: 0, used: 0, discarded: 0 };
}

interface Job {
	readonly source: vscode.CancellationTokenSource;
	readonly done: Promise<PreparedSummary | undefined>;
	ready: boolean;
	/** What `done` resolved with, once ready. */
	result?: PreparedSummary;
}

/** A prepared summary that was not attached: every attempt failed, or it no longer fitted the conversation. */
export type UnusedSummary = (prepared: PreparedSummary, outcome: 'failed' | 'discarded') => void;

export class BackgroundSummarizer implements vscode.Disposable {
	private job: Job | undefined;
	private readonly requestCancel: vscode.Disposable;
	private readonly source = new vscode.CancellationTokenSource();

	constructor(
		private readonly ctx: SummarizerContext,
		readonly stats: BackgroundStats,
		private readonly onUnused: UnusedSummary = () => {},
	) {
		this.requestCancel = ctx.token.onCancellationRequested(() => this.source.cancel());
	}

	/** Starts preparing the summary of `conversation` unless a job is already under way. */
	start(conversation: Conversation): void {
		if (this.job || this.source.token.isCancellationRequested) {
			return;
		}
		const plan = planWithStats(conversation, this.ctx);
		if (!plan) {
			return;
		}
		const source = new vscode.CancellationTokenSource();
		const cancelWithRequest = this.source.token.onCancellationRequested(() => source.cancel());
		const job: Job = {
			source,
			ready: false,
			done: makeSummary(conversation, plan, modelSummarizer(this.ctx, source.token))
				.then(prepared => {
					logSummary('background', prepared);
					job.result = prepared;
					return prepared;
				})
				.catch(error => {
					if (!(error instanceof vscode.CancellationError)) {
						log().info(`background summarization failed: ${error instanceof Error ? error.name : 'error'}`);
					}
					return undefined;
				})
				.finally(() => {
					job.ready = true;
					cancelWithRequest.dispose();
				}),
		};
		this.job = job;
		this.stats.started++;
		log().info('background summarization started');
	}

	/**
	 * At an overflow: the prepared summary if there is one and it still fits the conversation
	 * (waiting for a job under way), otherwise undefined and the caller summarizes now.
	 */
	async takeAtOverflow(conversation: Conversation): Promise<PreparedSummary | undefined> {
		const job = this.job;
		if (!job) {
			return undefined;
		}
		this.job = undefined;
		if (job.ready) this.stats.readyAtOverflow++;
		else this.stats.awaitedAtOverflow++;
		const prepared = await job.done;
		job.source.dispose();
		if (!prepared || prepared.blocks === undefined) {
			this.stats.discarded++;
			if (prepared) this.onUnused(prepared, 'failed');
			return undefined;
		}
		const applicable = summaryPlanApplicability(conversation, prepared.plan);
		if (!applicable.ok) {
			this.stats.discarded++;
			log().info(`background summary discarded: ${applicable.reason}`);
			this.onUnused(prepared, 'discarded');
			return undefined;
		}
		this.stats.used++;
		return prepared;
	}

	dispose(): void {
		// A summary that was ready but never needed (the request ended first) was made for nothing.
		if (this.job?.result) this.onUnused(this.job.result, this.job.result.blocks === undefined ? 'failed' : 'discarded');
		if (this.job) {
			this.job.source.cancel();
			this.job.source.dispose();
			this.job = undefined;
			this.stats.discarded++;
		}
		this.source.cancel();
		this.source.dispose();
		this.requestCancel.dispose();
	}
}
