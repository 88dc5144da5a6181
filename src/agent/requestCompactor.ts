// The Compactor of one @longhaul request (src/common/compaction/compactor.ts) around the chat's
// model: built once by the agent loop (agentLoop.ts) or /compact from the request's settings,
// budget, model and calibration. It adds what only the agent has: the model's summarizer and
// condenser (summarizerSteps.ts) with cancellation tied to the request, background jobs on real
// time with their own cancellation, the learned speed and the job carried over between requests
// (backgroundSummary.ts, owned by the extension).
import * as vscode from 'vscode';
import type { BackgroundStats, TakenSummary } from '../common/background/backgroundJob';
import { Compactor, type BackgroundParts, type CompactOutcome, type CompactorSettings } from '../common/compaction/compactor';
import type { Conversation } from '../common/conversation/conversation';
import { countTokens } from '../common/tokens/tokenizer';
import { waitingLine, type CarriedJobs, type ProviderSlots, type SummarySpeeds, type UnusedSummary } from './backgroundSummary';
import type { RequestContext } from './commands/requestContext';
import { log } from './log';
import { requestBudget } from './requestBudget';
import type { LonghaulSettings } from './settings';
import { logSummary, modelSteps, type SummarizerInput, type SummarizerModel } from './summarizerSteps';
import type { TokenCalibration } from './tokenCalibration';
import { toChatTools } from './toolCatalog';

/** What a request's Compactor is built from. */
export interface CompactorRequest {
	readonly model: vscode.LanguageModelChat;
	/** The tools offered with every prompt: their definitions take their share of the window. */
	readonly chatTools: readonly vscode.LanguageModelChatTool[];
	/** The model's token ratio, read at every use (the agent's moves with samples and rejections). */
	readonly ratio: () => number;
	readonly settings: LonghaulSettings;
	readonly calibration: TokenCalibration;
	readonly token: vscode.CancellationToken;
	/** Where the request's waits for a rate limit are shown. */
	readonly stream: Pick<vscode.ChatResponseStream, 'progress'>;
	/** The user's message of the request ('' for commands), and /compact's focus. */
	readonly currentRequest: string;
	readonly focus?: string;
	readonly summarizerModel?: SummarizerModel;
	readonly speeds: SummarySpeeds;
	/** Whether the provider runs one request at a time; without it, taken as concurrent. */
	readonly slots?: ProviderSlots;
	/** With it, summaries are prepared in the background and a job under way at the end is carried over. */
	readonly background?: { readonly carried: CarriedJobs; readonly stats: BackgroundStats; readonly onUnused: UnusedSummary };
}

/** The longhaul.* settings that shape compaction. */
function compactorSettings(settings: LonghaulSettings): CompactorSettings {
	return {
		mode: settings.summarizationMode,
		maskOldToolResults: settings.maskOldToolResults,
		autoSummarize: settings.autoSummarize,
		minRecentRounds: settings.minRecentRounds,
		latestShare: settings.backgroundSummarizationThreshold,
	};
}

export class RequestCompactor extends Compactor implements vscode.Disposable {
	private readonly requestCancel: vscode.Disposable;

	constructor(private readonly request: CompactorRequest) {
		const atRatio = requestBudget(request.model, request.chatTools);
		const budget = () => atRatio(request.ratio());
		const input: SummarizerInput = { ...request, budget, onWait: text => request.stream.progress(text) };
		const jobs = new Set<vscode.CancellationTokenSource>();
		super({
			settings: compactorSettings(request.settings),
			budget,
			countTokens,
			summarizer: modelSteps(input, request.token),
			speed: () => request.speeds.of(request.model.id),
			...(request.background ? { background: backgroundJobs(request, input, jobs, request.background) } : {}),
		});
		this.requestCancel = request.token.onCancellationRequested(() => jobs.forEach(job => job.cancel()));
	}

	/** Adopts the job the previous request of this chat handed over, if this conversation continues it with the same model. */
	adoptCarried(conversation: Conversation): void {
		if (this.background) this.request.background?.carried.adopt(this.background, this.request.model.id, conversation);
	}

	/** At an overflow: the prepared summary if one still applies, saying so while the user waits for a job under way. */
	async takeAtOverflow(conversation: Conversation, progress?: (message: string) => void, wait = true): Promise<TakenSummary> {
		const state = this.background?.state();
		if (wait && state?.kind === 'preparing' && progress) progress(waitingLine(state.forMs, state.expectedMs));
		return this.takePrepared(conversation, wait);
	}

	/** The request ended: a background job under way is kept for the next request unless the user cancelled. */
	dispose(finalConversation?: Conversation): void {
		const background = this.request.background;
		if (this.background && background) {
			const final = finalConversation && !this.request.token.isCancellationRequested ? finalConversation : undefined;
			background.carried.keep(this.background, this.request.model.id, final, background.onUnused);
		}
		this.requestCancel.dispose();
	}
}

/** Background jobs on real time: each with its own cancellation (cancelled with the request too), logged, teaching the speed. */
function backgroundJobs(
	request: CompactorRequest,
	input: SummarizerInput,
	jobs: Set<vscode.CancellationTokenSource>,
	background: NonNullable<CompactorRequest['background']>,
): BackgroundParts {
	return {
		start: ahead => {
			const job = new vscode.CancellationTokenSource();
			jobs.add(job);
			const slots = request.slots;
			const timed = slots ? { onCall: <T>(call: () => Promise<T>) => slots.summaryCall(request.model.id, call) } : {};
			const done = ahead(modelSteps({ ...input, onWait: undefined, ...timed }, job.token))
				.then(prepared => {
					logSummary('background', prepared);
					if (prepared.blocks) request.speeds.learn(request.model.id, prepared);
					return prepared;
				})
				.catch(error => {
					if (!(error instanceof vscode.CancellationError)) log().info(`background summarization failed: ${error instanceof Error ? error.name : 'error'}`);
					return undefined;
				})
				.finally(() => {
					jobs.delete(job);
					job.dispose();
				});
			return { done, cancel: () => job.cancel() };
		},
		now: () => performance.now(),
		onUnused: background.onUnused,
		log: line => log().info(line),
		stats: background.stats,
		oneAtATime: () => request.slots?.oneAtATime(request.model.id, request.settings.providerRunsOneRequestAtATime) === true,
	};
}

/** /compact: summarizes the older part now, with this request's model and settings; the conversation only changes when a summary was made. */
export async function compactNow(ctx: RequestContext): Promise<CompactOutcome> {
	const { request, settings } = ctx;
	const compactor = new RequestCompactor({
		model: request.model,
		chatTools: toChatTools(ctx.tools),
		ratio: () => ctx.ratio,
		settings,
		calibration: ctx.calibration,
		token: ctx.token,
		stream: ctx.stream,
		currentRequest: '',
		focus: request.prompt.trim() || undefined,
		summarizerModel: ctx.summarizer.model,
		speeds: ctx.speeds,
	});
	try {
		const outcome = await compactor.compactNow(ctx.state.conversation, {
			onPlanned: () => ctx.stream.progress(ctx.summarizing.line(vscode.l10n.t('Summarizing conversation history…'))),
			onMade: prepared => logSummary('command', prepared),
		});
		if (outcome.kind === 'nothing-to-summarize') log().info(`summarization skipped: nothing to summarize (mode ${settings.summarizationMode}, reason command)`);
		return outcome;
	} finally {
		compactor.dispose();
	}
}
