// The agent's side of making a prompt fit: the request's Compactor fits the agent prompt
// (src/prompts/agentPromptSteps.ts, also what the replay benchmark renders) with the progress
// lines and the clock of summary waits around its summarizer; then what the user is told (notices,
// Open summary buttons), what is counted (the request's FitTally, telemetry) and whether the next
// summary starts in the background.
import * as vscode from 'vscode';
import type { Conversation } from '../common/conversation/conversation';
import { flattenRounds } from '../common/conversation/flatten';
import { olderRequestsBudget } from '../common/conversation/promptLayout';
import type { FitEvent, FitResult } from '../common/fitting/fitPrompt';
import { fitLogLine, fitNotice } from '../common/fitting/fitNotices';
import { tallyFit } from '../common/fitting/fitTally';
import { summaryChanges } from '../common/persistence/metadata';
import { fitTelemetry } from '../common/stats/fitTelemetry';
import { toolResultBudget, type PromptBudget } from '../common/tokens/budget';
import { countTokens, sharedTokenizer } from '../common/tokens/tokenizer';
import { roundTokens } from '../common/tokens/roundTokens';
import type { BlockRequest } from '../common/summaries/summarizeBlocks';
import { toolsOfferedNow } from '../common/tools/toolSelection';
import { hasRecallableRounds } from '../common/recall/summarizedRounds';
import type { AgentPromptProps, ReferenceAttachment } from '../prompts';
import { agentPromptSteps } from '../prompts/agentPromptSteps';
import type { RenderedPrompt } from '../prompts/render';
import type { RequestContext } from './commands/requestContext';
import type { RequestCompactor } from './requestCompactor';
import { logSummary } from './summarizerSteps';
import { doneLedgerForPrompt } from './doneLedgerPrompt';
import { log } from './log';
import { localizeAll } from './l10n';
import { agentPromptProps, toVsCodeMessages, type ChatPrompt } from './promptRendering';
import type { RequestState } from './requestState';
import { setAsideButton, summaryButton } from './summaryDocuments';

/** A prompt that cannot be made to fit at all (the request alone is larger than the window). */
export class PromptTooLargeError extends Error {
	constructor(
		readonly tokens: number,
		readonly budget: number,
		readonly toolTokens = 0,
	) {
		super(
			toolTokens
				? vscode.l10n.t(
						"The request needs about {0} tokens but the model's window leaves {1} for the conversation (tool definitions take {2}), even after summarizing and removing old tool results. Shorten the request, attach less, or start a new chat.",
						tokens,
						budget,
						toolTokens,
					)
				: vscode.l10n.t(
						"The request needs about {0} tokens but the model's window leaves {1} for the conversation, even after summarizing and removing old tool results. Shorten the request, attach less, or start a new chat.",
						tokens,
						budget,
					),
		);
		this.name = 'PromptTooLargeError';
	}
}

/**
 * What one agent request works with: the request's context (commands/requestContext.ts, gathered
 * once by participant.ts), its Compactor (requestCompactor.ts, built once by the agent loop), the
 * tools as the model sees them, and what the prompt adds for this request.
 */
export interface AgentRun {
	readonly ctx: RequestContext;
	readonly compactor: RequestCompactor;
	readonly chatTools: vscode.LanguageModelChatTool[];
	/** The request's attachments, as text. */
	readonly references: readonly ReferenceAttachment[];
	/** The workspace's instruction files, pinned in every prompt's instructions. */
	readonly pinnedInstructions?: string;
}

/** The tools the next prompt offers: every chosen tool; longhaul_recall once something is summarized, masked or elided. */
export function toolsOffered(run: AgentRun, conversation: Conversation): vscode.LanguageModelChatTool[] {
	return toolsOfferedNow(run.chatTools, hasRecallableRounds(conversation));
}

/**
 * The agent prompt's props for `conversation`. The done-ledger is rendered again only at a new
 * summary (doneLedgerForPrompt), so the text shown is kept in the request's state.
 */
function promptProps(run: AgentRun, conversation: Conversation, budget: PromptBudget): AgentPromptProps {
	const { ctx } = run;
	const { state } = ctx;
	state.ledgerShown = doneLedgerForPrompt(
		ctx.settings.doneLedger && !state.fit.ledgerSuspended,
		conversation,
		state.ledger,
		state.ledgerShown,
		budget.messages,
		state.fit.tight === 'ledger',
	);
	return agentPromptProps({
		conversation,
		request: ctx.request.prompt,
		references: run.references,
		toolNames: toolsOffered(run, conversation).map(t => t.name),
		maxToolResultTokens: toolResultBudget(budget),
		// Tight (FitMemory.tight): every past request whose work is summarized is shortened.
		olderRequestsMaxTokens: state.fit.tight !== 'none' ? 0 : olderRequestsBudget(budget.messages),
		doneLedger: state.ledgerShown?.text,
		pinnedInstructions: run.pinnedInstructions,
	});
}

/** Time spent waiting for a summary counts as the user's wait (metadata `ownTimeMs` leaves it out). */
function waited<T>(state: RequestState, pending: Promise<T>): Promise<T> {
	const start = performance.now();
	return pending.finally(() => (state.summaryWaitMs += performance.now() - start));
}

/**
 * Renders the agent prompt and makes it fit (the Compactor's fit): masking, the background
 * summary, summaries from the model, then deterministic truncation. Throws PromptTooLargeError when
 * nothing makes it fit. `messageBudget` caps the budget for the retry after a refusal.
 */
export async function renderFitting(run: AgentRun, messageBudget?: number): Promise<ChatPrompt> {
	const { ctx, compactor } = run;
	const { state } = ctx;
	const budget = compactor.budget;
	const stoppedBefore = state.fit.modelSummariesStopped !== undefined;
	const waitedBefore = state.summaryWaitMs;
	const result = await compactor.fit(state.conversation, state.fit, {
		prompt: agentPromptSteps({ props: c => promptProps(run, c, budget), showsLedger: () => state.ledgerShown !== undefined, tokenizer: sharedTokenizer() }),
		budget,
		messageBudget,
		takePrepared: async (conversation, wait) =>
			(
				await waited(
					state,
					compactor.takeAtOverflow(conversation, line => ctx.stream.progress(line), wait),
				)
			).prepared,
		around: {
			summarize: summarize => (conversation, request) => {
				ctx.stream.progress(summaryProgress(run, conversation, request, budget));
				return waited(state, summarize(conversation, request));
			},
			condense: condense => (block, target) => waited(state, condense(block, target)),
		},
		isCancelled: () => ctx.token.isCancellationRequested,
		cancellationError: () => new vscode.CancellationError(),
	});
	// A take that found nothing ready returns at once; a wait of a millisecond or more is the user's.
	const waitedMs = state.summaryWaitMs - waitedBefore;
	if (waitedMs >= 1) state.compactionWaitsMs.push(waitedMs);
	reportFit(run, result, stoppedBefore);
	if (result.kind === 'refused') {
		throw new PromptTooLargeError(result.neededTokens, Math.min(messageBudget ?? budget.messages, budget.messages), budget.toolTokens);
	}
	state.lastPromptTokens = result.prompt.tokenCount + budget.toolTokens;
	state.lastPromptRatio = budget.ratio;
	compactor.considerBackground(state.conversation, result.prompt.tokenCount, state.fit, budget.messages);
	return { messages: toVsCodeMessages(result.prompt.messages), tokenCount: result.prompt.tokenCount };
}

/** The progress line of a summary the user waits for, with how long it should take (this model's learned speed). */
function summaryProgress(run: AgentRun, conversation: Conversation, request: BlockRequest, budget: PromptBudget): string {
	const ids = new Set(request.summarizeRoundIds);
	const input =
		flattenRounds(conversation)
			.filter(at => ids.has(at.round.id))
			.reduce((n, at) => n + roundTokens(at.round, countTokens), 0) + (request.previousSummary ? countTokens(request.previousSummary.text) : 0);
	const seconds = Math.max(1, Math.round(run.compactor.expectedSummaryMs(input, budget) / 1000));
	// Until this model has summarized once, the figure is the field default, and the line says so.
	return run.ctx.summarizing.line(
		run.compactor.speedMeasured
			? vscode.l10n.t('Summarizing conversation history ({0} older rounds, about {1} s)…', ids.size, seconds)
			: vscode.l10n.t('Summarizing conversation history ({0} older rounds, about {1} s by a default estimate)…', ids.size, seconds),
	);
}

/** What one fit changes in the request's record, what the user sees of it, and its telemetry. */
function reportFit(run: AgentRun, result: FitResult<RenderedPrompt>, stoppedBefore: boolean): void {
	const { ctx } = run;
	const { state, settings } = ctx;
	// Blocks made, absorbed or condensed by this fit go into this turn's record.
	if (result.events.length) state.newSummaries.push(...summaryChanges(state.conversation, result.conversation));
	state.conversation = result.conversation;
	tallyFit(state.tally, result.events);
	for (const event of result.events) {
		logEvent(event);
		const notice = fitNotice(event);
		if (notice) ctx.stream.markdown(`\n\n*${localizeAll(notice)}*\n\n`);
		if (event.kind === 'summarized') offerSummary(run, event);
		if (event.kind === 'summarized') state.compaction.keptRounds.push(event.prepared.plan.stats.keptRoundCount);
		if (event.kind === 'bridged' && event.setAsideRounds > 0) offerSetAside(run, event.setAsideRounds);
		if (event.kind === 'summarized' && event.source === 'model') ctx.speeds.learn(ctx.request.model.id, event.prepared);
	}
	const telemetry = fitTelemetry(result, {
		windowTokens: ctx.request.model.maxInputTokens,
		minRecentRounds: settings.minRecentRounds,
		autoSummarize: settings.autoSummarize,
		stoppedBefore,
	});
	for (const event of telemetry) ctx.telemetry.send(event);
}

/** The Open summary button under a summary's notice; the summary is offered again after the answer. */
function offerSummary({ ctx }: AgentRun, event: Extract<FitEvent, { kind: 'summarized' }>): void {
	const { state } = ctx;
	const { plan, blocks } = event.prepared;
	// Where the anchor is now: a summary prepared in an earlier request planned it in that request.
	const at = flattenRounds(state.conversation).find(f => f.round.id === plan.anchorRoundId);
	const location = at ? { source: at.source, turnIndex: at.turnIndex, roundIndex: at.roundIndex } : plan.anchor;
	const request = location.source === 'active' ? ctx.request.prompt : state.conversation.turns[location.turnIndex]?.user;
	const made = new Set(plan.summarizeRoundIds);
	const document = ctx.documents.remember({
		roundId: plan.anchorRoundId,
		text: blocks.join('\n\n'),
		location,
		request,
		summarizedRounds: plan.stats.summarizedRoundCount,
		currentRequest: state.conversation.turns.length + 1,
		buildsOnEdit: flattenRounds(state.conversation).some(f => made.has(f.round.id) && f.round.summaryBuildsOnEdit === true),
	});
	summaryButton(ctx.stream, document);
	state.madeSummaries.push(document);
}

/** The button under a set-aside notice: what the agent sees in place of those rounds, as a read-only document. */
function offerSetAside({ ctx }: AgentRun, rounds: number): void {
	const { state } = ctx;
	const anchor = flattenRounds(state.conversation)
		.filter(f => f.round.summaryProvisional)
		.at(-1);
	if (!anchor?.round.summary) return;
	const document = ctx.documents.remember({
		roundId: anchor.round.id,
		text: anchor.round.summary,
		location: { source: anchor.source, turnIndex: anchor.turnIndex, roundIndex: anchor.roundIndex },
		summarizedRounds: rounds,
		currentRequest: state.conversation.turns.length + 1,
		setAside: true,
	});
	setAsideButton(ctx.stream, document);
	state.compaction.setAsideSteps++;
	state.compaction.mostSetAside = Math.max(state.compaction.mostSetAside, rounds);
}

/** The Longhaul log's line for one step of the pipeline (never text of the conversation). */
function logEvent(event: FitEvent): void {
	const line = fitLogLine(event);
	if (line) log().info(line);
	if (event.kind === 'summarized' && event.source === 'model') logSummary('overflow', event.prepared);
	if (event.kind === 'summary-failed') logSummary('overflow', event.prepared);
}
