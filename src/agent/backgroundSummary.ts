// Background summarization (issue 7): when the prompt passes a share of the window, the summary
// of the older part is prepared while the agent keeps working, and used at the first render that
// overflows, if it still fits the conversation. One job at a time; cancelled with the request.
import * as vscode from 'vscode';
import { summaryPlanApplicability } from '../common/planning/summaryApplicability';
import { canPlan, prepareSummary, type CompactionContext, type PreparedSummary } from './compaction';
import { log } from './log';
import type { RequestState } from './requestState';

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
}

export class BackgroundSummarizer implements vscode.Disposable {
	private job: Job | undefined;
	private readonly requestCancel: vscode.Disposable;
	private readonly source = new vscode.CancellationTokenSource();

	constructor(
		private readonly ctx: Omit<CompactionContext, 'stream' | 'token' | 'reason'>,
		requestToken: vscode.CancellationToken,
		readonly stats: BackgroundStats,
	) {
		this.requestCancel = requestToken.onCancellationRequested(() => this.source.cancel());
	}

	get running(): boolean {
		return this.job !== undefined;
	}

	/** Starts preparing the summary of `state`'s conversation unless a job is already under way. */
	start(state: RequestState): void {
		if (this.job || this.source.token.isCancellationRequested || !canPlan(state.conversation, this.ctx.mode)) {
			return;
		}
		const source = new vscode.CancellationTokenSource();
		const cancelWithRequest = this.source.token.onCancellationRequested(() => source.cancel());
		const job: Job = {
			source,
			ready: false,
			done: prepareSummary(state.conversation, { ...this.ctx, token: source.token, reason: 'background' })
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
	async takeAtOverflow(state: RequestState): Promise<(PreparedSummary & { summary: string }) | undefined> {
		const job = this.job;
		if (!job) {
			return undefined;
		}
		this.job = undefined;
		if (job.ready) this.stats.readyAtOverflow++;
		else this.stats.awaitedAtOverflow++;
		const prepared = await job.done;
		job.source.dispose();
		if (!prepared || prepared.summary === undefined) {
			this.stats.discarded++;
			return undefined;
		}
		const applicable = summaryPlanApplicability(state.conversation, prepared.plan);
		if (!applicable.ok) {
			this.stats.discarded++;
			log().info(`background summary discarded: ${applicable.reason}`);
			return undefined;
		}
		this.stats.used++;
		return { ...prepared, summary: prepared.summary };
	}

	/** Drops a job whose summary can no longer be used (a summary was made in the foreground). */
	discard(): void {
		if (this.job) {
			this.job.source.cancel();
			this.job.source.dispose();
			this.job = undefined;
			this.stats.discarded++;
		}
	}

	dispose(): void {
		this.discard();
		this.source.cancel();
		this.source.dispose();
		this.requestCancel.dispose();
	}
}
