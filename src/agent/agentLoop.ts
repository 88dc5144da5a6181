import * as vscode from 'vscode';
import { computeBudget, toolResultBudget, type PromptBudget } from '../common/tokens/budget';
import type { Conversation, ToolCall } from '../common/conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../common/conversation/flatten';
import { withRecordedRounds } from '../common/recall/summarizedRounds';
import { RECALL_TOOL_NAME } from '../common/recall/recallInput';
import { toolsOfferedNow } from '../common/tools/toolSelection';
import { answerRecall } from '../tools/recall';
import { cutToTokens } from '../common/shrinking/cutText';
import { fitPrompt, type FitEvent } from '../common/fitting/fitPrompt';
import { fitNotice, loopBreakerNotice } from '../common/fitting/fitNotices';
import { noteToolCall } from '../common/fitting/fitSession';
import { retryMessageBudget, truncatedAfterFailedSummary } from '../common/fitting/refusal';
import { shouldSample } from '../common/tokens/calibration';
import { recognizePromptTooLong, type PromptTooLong } from '../common/tokens/promptTooLong';
import { condensePasses } from '../common/summaries/summarizationFlow';
import { BackgroundSummarizer } from './backgroundSummary';
import { doneLedgerForPrompt } from './doneLedgerPrompt';
import { logSummary, modelCondenser, modelSummarizer, type SummarizerContext, type SummarizerModel } from './compaction';
import { summaryBudget } from '../common/tokens/budget';
import { summaryChanges } from '../common/persistence/metadata';
import { olderRequestsBudget } from '../common/conversation/promptLayout';
import { log } from './log';
import { callModel, type ModelReply } from './modelCall';
import type { TokenCalibration } from './tokenCalibration';
import { countTokens, measureAgent, renderAgent, isBudgetExceeded, type AgentRenderInput, type RenderedPrompt } from './promptRendering';
import type { ReferenceAttachment } from '../prompts';
import { addActiveRound, newRoundId, type RequestState } from './requestState';
import type { LonghaulSettings } from './settings';
import { toChatTools, toolDefinitionsText } from './toolCatalog';
import { toolErrorText, toolResultText } from './toolResults';
import { fitTelemetry, summarization } from '../common/stats/fitTelemetry';
import type { LonghaulTelemetry } from './telemetry';
import { rememberSummary, summaryButton } from './summaryDocuments';

export interface AgentRun {
	readonly request: vscode.ChatRequest;
	readonly references: readonly ReferenceAttachment[];
	readonly tools: readonly vscode.LanguageModelToolInformation[];
	readonly settings: LonghaulSettings;
	readonly stream: vscode.ChatResponseStream;
	readonly token: vscode.CancellationToken;
	/** Invokes a tool; injected so tests and the loop share one path. */
	readonly invokeTool: typeof vscode.lm.invokeTool;
	/** The model's tokens per local token, learned per model; the budget is scaled by it. */
	readonly calibration: TokenCalibration;
	readonly telemetry: LonghaulTelemetry;
	/** The workspace's instruction files, pinned in every prompt's instructions. */
	readonly pinnedInstructions?: string;
	/** Another model that writes the summaries (`longhaul.summarizerModel`). */
	readonly summarizerModel?: SummarizerModel;
}

/** A prompt that cannot be made to fit at all (the request alone is larger than the window). */
export class PromptTooLargeError extends Error {
	constructor(
		readonly tokens: number,
		readonly budget: number,
		readonly toolTokens = 0,
	) {
		super(
			`The request needs about ${tokens} tokens but the model's window leaves ${budget} for the conversation` +
				(toolTokens ? ` (tool definitions take ${toolTokens})` : '') +
				', even after summarizing and removing old tool results. Shorten the request, attach less, or start a new chat.',
		);
		this.name = 'PromptTooLargeError';
	}
}

/**
 * The provider rejected a step as too long twice: once, then again after Longhaul recounted with
 * the ratio the error implied and made the prompt fit that count.
 */
export class PromptRejectedError extends Error {
	constructor(
		readonly rejection: PromptTooLong,
		readonly ratio: number,
	) {
		super(
			`The model refused the request as too long twice (${rejectionNumbers(rejection)}), even after Longhaul counted ${ratio.toFixed(2)} model tokens per local token and shortened the conversation to match. ` +
				'Nothing was lost: send your message again, run /compact, or pick a model with a larger window.',
		);
		this.name = 'PromptRejectedError';
	}
}

function rejectionNumbers(rejection: PromptTooLong): string {
	if (rejection.promptTokens && rejection.limit) {
		return `its count ${rejection.promptTokens.toLocaleString('en-US')} tokens, limit ${rejection.limit.toLocaleString('en-US')}`;
	}
	return `"${rejection.text.slice(0, 120)}"`;
}

/** The budget of a request with these tools, scaled by the model's token ratio (calibration.ts). */
export function budgetFor(model: vscode.LanguageModelChat, tools: readonly vscode.LanguageModelChatTool[], ratio = 1): PromptBudget {
	return computeBudget(model.maxInputTokens, tools.length ? countTokens(toolDefinitionsText(tools)) : 0, ratio);
}

/**
 * The agent loop: render (summarizing on overflow), ask the model, stream its text, run the
 * tools it calls, record the round, repeat until it stops calling tools, the tool-call limit
 * is hit, or the user cancels. `state` always holds everything done so far, so the caller can
 * store it whatever happens.
 */
export async function runAgentLoop(run: AgentRun, state: RequestState): Promise<void> {
	const chatTools = toChatTools(run.tools);
	const model = run.request.model;
	const toolTokens = chatTools.length ? countTokens(toolDefinitionsText(chatTools)) : 0;
	const summarizer: SummarizerContext = {
		model,
		// Read fresh each time: samples and rejections during the request move the ratio.
		get budget() {
			return computeBudget(model.maxInputTokens, toolTokens, run.calibration.ratio(model));
		},
		calibration: run.calibration,
		mode: run.settings.summarizationMode,
		currentRequest: run.request.prompt,
		token: run.token,
		minKeep: run.settings.minRecentRounds,
		summarizerModel: run.summarizerModel,
	};
	// The model's own window (maxInputTokens), whatever token ratio the budget uses at the time.
	const telemetryContext = { windowTokens: model.maxInputTokens, minRecentRounds: run.settings.minRecentRounds };
	const background = new BackgroundSummarizer(summarizer, state.background, (prepared, outcome) =>
		run.telemetry.send(summarization('background', outcome, prepared, telemetryContext)),
	);
	try {
		await agentSteps(run, state, chatTools, summarizer, background);
	} finally {
		background.dispose();
	}
}

async function agentSteps(
	run: AgentRun,
	state: RequestState,
	chatTools: vscode.LanguageModelChatTool[],
	summarizer: SummarizerContext,
	background: BackgroundSummarizer,
): Promise<void> {
	const { request, stream, token, settings } = run;
	// The budget charges every chosen tool; longhaul_recall is offered once something is summarized.
	const offered = (conversation: Conversation) => toolsOfferedNow(chatTools, newestSummaryIndex(flattenRounds(conversation)) !== -1);
	const input = (conversation: Conversation): AgentRenderInput => {
		const budget = summarizer.budget;
		state.ledgerShown = doneLedgerForPrompt(
			settings.doneLedger && !state.fit.ledgerSuspended,
			conversation,
			state.ledger,
			state.ledgerShown,
			budget.messages,
			state.fit.tight === 'ledger',
		);
		return {
			conversation,
			request: request.prompt,
			references: run.references,
			toolNames: offered(conversation).map(t => t.name),
			maxToolResultTokens: toolResultBudget(budget),
			// Tight (FitSession.tight): every past request whose work is summarized is shortened.
			olderRequestsMaxTokens: state.fit.tight !== 'none' ? 0 : olderRequestsBudget(budget.messages),
			doneLedger: state.ledgerShown?.text,
			pinnedInstructions: run.pinnedInstructions,
		};
	};
	const toolDefinitions = toolDefinitionsText(chatTools);
	let modelCalls = 0;

	// Longhaul's own time per round: from a model reply to the next model request, less the
	// tools' own run time and any wait for a summary (metadata `ownTimeMs`).
	let replyEnd: number | undefined;
	let toolMs = 0;
	let waitAtReply = 0;
	for (;;) {
		if (token.isCancellationRequested) {
			state.cancelled = true;
			return;
		}
		if (state.toolCallCount >= settings.maxToolCallsPerRequest) {
			state.maxToolCallsExceeded = true;
			return;
		}
		const prompt = await renderFitting(run, state, summarizer, input, background);
		if (replyEnd !== undefined) {
			state.ownTimeMs.push(performance.now() - replyEnd - toolMs - (state.summaryWaitMs - waitAtReply));
		}
		// The model's own count of what is sent, now and then, in the background (calibration.ts).
		if (shouldSample(modelCalls++)) {
			void run.calibration.sample(request.model, prompt.messages, toolDefinitions, token).then(() => noteRatio(run, state, modelCalls));
		}
		const reply = await askModel(run, state, summarizer, prompt, offered(state.conversation), step =>
			renderFitting(run, state, summarizer, input, background, step),
		);
		noteRatio(run, state, modelCalls);

		replyEnd = performance.now();
		toolMs = 0;
		waitAtReply = state.summaryWaitMs;
		const calls: ToolCall[] = [];
		const round = { id: newRoundId(), response: reply.text, toolCalls: calls };
		if (reply.toolCalls.length === 0) {
			addActiveRound(state, round);
			return;
		}
		for (const requested of reply.toolCalls) {
			const call: { id: string; name: string; arguments: string; result?: string } = {
				id: requested.callId,
				name: requested.name,
				arguments: JSON.stringify(requested.input ?? {}),
			};
			calls.push(call);
			if (token.isCancellationRequested) {
				continue; // left without a result: the renderer closes it as interrupted
			}
			state.toolCallCount++;
			const toolStart = performance.now();
			const result = await runTool(run, state, requested.name, requested.input, token);
			toolMs += performance.now() - toolStart;
			if (result !== undefined) {
				// A single result larger than the cap is cut (head and tail kept) before it reaches any prompt.
				call.result = cutToTokens(result, toolResultBudget(summarizer.budget), countTokens);
			}
			const stopped = noteToolCall(state.fit, call.name, call.arguments, call.result);
			if (stopped) {
				log().info(`loop breaker: ${stopped}`);
				stream.markdown(`\n\n*${loopBreakerNotice(stopped)}*\n\n`);
			}
		}
		addActiveRound(state, round);
	}
}

/**
 * Sends the prompt. When the provider rejects it as too long (providers count with their own
 * tokenizer, and some accept less than they advertise), the ratio tightens by what the error
 * says, the prompt is made to fit again at the tightened count (summarizing if it must) and the
 * same step is sent once more; a second rejection ends the request with a clear message. Nothing
 * the model streamed is sent twice: a failure after the first streamed text is not retried.
 * Every other error is thrown as it was.
 */
async function askModel(
	run: AgentRun,
	state: RequestState,
	summarizer: SummarizerContext,
	prompt: RenderedPrompt,
	tools: vscode.LanguageModelChatTool[],
	refit: (messageBudget: number) => Promise<RenderedPrompt>,
): Promise<ModelReply> {
	const { request, stream, token } = run;
	let sent = prompt;
	for (let attempt = 0; ; attempt++) {
		let streamed = false;
		try {
			return await callModel(request.model, sent.messages, { tools, justification: 'Longhaul runs an agent session with this model.' }, token, text => {
				streamed = true;
				stream.markdown(text);
			});
		} catch (error) {
			const tooLong = streamed || token.isCancellationRequested ? undefined : recognizePromptTooLong(error);
			if (!tooLong) throw error;
			const before = summarizer.budget;
			const ratio = run.calibration.rejected(request.model, tooLong, sent.tokenCount + before.toolTokens);
			noteRatio(run, state, undefined);
			if (attempt > 0) throw new PromptRejectedError(tooLong, ratio);
			state.recoveries++;
			stream.markdown(
				`\n\n*The model refused the prompt as too long (${rejectionNumbers(tooLong)}). Longhaul now counts ${ratio.toFixed(2)} model tokens per local token for it, made the prompt fit that count and sent this step again.*\n\n`,
			);
			sent = await refit(retryMessageBudget(sent.tokenCount, before.ratio, ratio, summarizer.budget.messages));
		}
	}
}

/** Records the model's token ratio in the request's metadata when it changed. */
function noteRatio(run: AgentRun, state: RequestState, modelCall: number | undefined): void {
	const ratio = run.calibration.ratio(run.request.model);
	const record = state.tokenRatio;
	if (Math.abs(ratio - record.end) < 0.0005) return;
	record.end = ratio;
	if (record.changes.length < 40) record.changes.push({ modelCall: modelCall ?? -1, ratio: Math.round(ratio * 1000) / 1000 });
}

async function runTool(run: AgentRun, state: RequestState, name: string, input: object, token: vscode.CancellationToken): Promise<string | undefined> {
	if (!run.tools.some(t => t.name === name)) {
		return `Error: there is no tool named ${name}. Available tools: ${run.tools.map(t => t.name).join(', ')}.`;
	}
	if (name === RECALL_TOOL_NAME) {
		// Answered here, from this request's own conversation: the registered tool has no way to know which chat it serves.
		run.stream.progress('Looking back at summarized rounds…');
		return answerRecall(input, {
			conversation: withRecordedRounds(state.conversation, state.recordedRounds),
			currentRequest: run.request.prompt,
			messageBudget: budgetFor(run.request.model, toChatTools(run.tools), run.calibration.ratio(run.request.model)).messages,
			countTokens,
			token,
		});
	}
	try {
		const result = await run.invokeTool(name, { input, toolInvocationToken: run.request.toolInvocationToken }, token);
		return toolResultText(result);
	} catch (error) {
		if (token.isCancellationRequested) {
			return undefined;
		}
		log().info(`tool ${name} failed: ${error instanceof Error ? error.name : 'error'}`);
		return toolErrorText(name, error);
	}
}

/**
 * Renders the agent prompt, making it fit with the overflow pipeline (fitPrompt) when it does not:
 * masking, a summary prepared in the background, summaries from the model, then deterministic
 * truncation. The user is told what happened; a prompt that cannot fit at all throws
 * PromptTooLargeError. A prompt that fits but passes the background threshold starts preparing
 * the next summary.
 */
async function renderFitting(
	run: AgentRun,
	state: RequestState,
	summarizer: SummarizerContext,
	input: (conversation: Conversation) => AgentRenderInput,
	background: BackgroundSummarizer,
	/** A budget below the current one, for the retry after a rejection. */
	messageBudget?: number,
): Promise<RenderedPrompt> {
	const budget = summarizer.budget;
	const messages = Math.min(messageBudget ?? budget.messages, budget.messages);
	const summarize = modelSummarizer(summarizer);
	const condense = modelCondenser(summarizer);
	const waited = async <T>(pending: Promise<T>): Promise<T> => {
		const start = performance.now();
		try {
			return await pending;
		} finally {
			state.summaryWaitMs += performance.now() - start;
		}
	};
	const stoppedBefore = state.fit.modelSummariesStopped !== undefined;
	const result = await fitPrompt<RenderedPrompt>(
		state.conversation,
		state.fit,
		{
			render: async conversation => {
				try {
					return { fits: true, prompt: await renderAgent(input(conversation), messages) };
				} catch (error) {
					if (isBudgetExceeded(error)) return { fits: false };
					throw error;
				}
			},
			measure: async conversation => (await measureAgent(input(conversation))).tokenCount,
			showsLedger: () => state.ledgerShown !== undefined,
			takePrepared: conversation => waited(background.takeAtOverflow(conversation)),
			summarize: (conversation, request) => {
				run.stream.progress('Summarizing conversation history…');
				return waited(summarize(conversation, request));
			},
			condense: condense && ((block, target) => waited(condense(block, target))),
			countTokens,
			isCancelled: () => run.token.isCancellationRequested,
			cancellationError: () => new vscode.CancellationError(),
		},
		{
			mode: run.settings.summarizationMode,
			messageBudget: messages,
			maskOldToolResults: run.settings.maskOldToolResults,
			summaryBudget: summaryBudget(budget),
			autoSummarize: run.settings.autoSummarize,
			minKeep: summarizer.minKeep,
		},
	);
	// Blocks made, absorbed or condensed by this fit go into this turn's record.
	if (result.events.length) state.newSummaries.push(...summaryChanges(state.conversation, result.conversation));
	state.conversation = result.conversation;
	for (const event of result.events) {
		record(state, event);
		const notice = fitNotice(event);
		if (notice) run.stream.markdown(`\n\n*${notice}*\n\n`);
		if (event.kind === 'summarized') {
			const { plan, blocks } = event.prepared;
			const request = plan.anchor.source === 'active' ? run.request.prompt : state.conversation.turns[plan.anchor.turnIndex]?.user;
			const document = rememberSummary({
				roundId: plan.anchorRoundId,
				text: blocks.join('\n\n'),
				location: plan.anchor,
				request,
				summarizedRounds: plan.stats.summarizedRoundCount,
			});
			summaryButton(run.stream, document);
			state.madeSummaries.push(document);
		}
	}
	if (truncatedAfterFailedSummary(result.events)) state.truncationsAfterFailedSummary++;
	const telemetry = fitTelemetry(result, {
		windowTokens: run.request.model.maxInputTokens,
		minRecentRounds: run.settings.minRecentRounds,
		autoSummarize: run.settings.autoSummarize,
		stoppedBefore,
	});
	for (const event of telemetry) run.telemetry.send(event);
	if (result.kind === 'refused') {
		throw new PromptTooLargeError(result.neededTokens, messages, budget.toolTokens);
	}
	state.lastPromptTokens = result.prompt.tokenCount + budget.toolTokens;
	state.lastPromptRatio = budget.ratio;
	const threshold = run.settings.backgroundSummarizationThreshold;
	if (run.settings.autoSummarize && threshold > 0 && !state.fit.modelSummariesStopped && result.prompt.tokenCount >= threshold * budget.messages) {
		background.start(state.conversation);
	}
	return result.prompt;
}

/** What one step of the pipeline changes in the request's record, and its log line. */
function record(state: RequestState, event: FitEvent): void {
	switch (event.kind) {
		case 'masked':
			state.masking.maskings++;
			state.masking.maskedResults += event.maskedCalls;
			state.masking.freedTokens += event.freedTokens;
			log().info(
				`masking: ${event.maskedCalls} older tool results (${event.duplicateCalls} duplicates), ${event.freedTokens} tokens freed, ${event.keptRoundCount} rounds kept intact`,
			);
			break;
		case 'mask-declined':
			log().info(`masking declined (${event.reason}): ${event.olderPartTokens} tokens in the older rounds`);
			break;
		case 'summarized':
			state.summarizations++;
			state.condensePasses += condensePasses(event.prepared.attempts);
			if (event.source === 'model') logSummary('overflow', event.prepared);
			break;
		case 'summary-failed':
			state.condensePasses += condensePasses(event.prepared.attempts);
			logSummary('overflow', event.prepared);
			break;
		case 'loop-breaker':
			log().info(`loop breaker (${event.scope}): ${event.why}`);
			break;
		case 'elided':
			log().info(`truncation: elided ${event.calls} tool results, ${event.freedTokens} tokens`);
			break;
		case 'condensed':
			log().info(
				`condensed ${event.blocks.length} older summary blocks: ${event.blocks.map(b => `turn ${b.turnIndex} ${b.fromTokens}->${b.toTokens} (${b.by})`).join(', ')}`,
			);
			break;
		case 'dropped':
			state.droppedRounds += event.plan.summarizeRoundIds.length;
			log().info(`truncation: dropped ${event.plan.summarizeRoundIds.length} rounds without a summary`);
			break;
		case 'cut-newest':
			log().info(
				`truncation: cut ${event.calls} of the newest round's tool results and ${event.arguments} of its calls' arguments further, ${event.freedTokens} tokens`,
			);
			break;
		case 'ledger-off':
			log().info('truncation: done-ledger left out of this request');
			break;
		case 'tightened':
			log().info(`truncation: ${event.part === 'requests' ? 'past requests shortened' : 'done-ledger within its base size'} for the rest of this request`);
			break;
		case 'summaries-off':
			log().info('summarization: automatic summaries are off (longhaul.autoSummarize); masking and truncation only');
			break;
	}
}
