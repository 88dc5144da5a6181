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
import { BackgroundSummarizer } from './backgroundSummary';
import { doneLedgerForPrompt } from './doneLedgerPrompt';
import { logSummary, modelCondenser, modelSummarizer, type SummarizerContext } from './compaction';
import { summaryBudget } from '../common/tokens/budget';
import { summaryChanges } from '../common/persistence/metadata';
import { olderRequestsBudget } from '../common/conversation/promptLayout';
import { log } from './log';
import { callModel } from './modelCall';
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
	readonly telemetry: LonghaulTelemetry;
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

export function budgetFor(model: vscode.LanguageModelChat, tools: readonly vscode.LanguageModelChatTool[]): PromptBudget {
	return computeBudget(model.maxInputTokens, tools.length ? countTokens(toolDefinitionsText(tools)) : 0);
}

/**
 * The agent loop: render (summarizing on overflow), ask the model, stream its text, run the
 * tools it calls, record the round, repeat until it stops calling tools, the tool-call limit
 * is hit, or the user cancels. `state` always holds everything done so far, so the caller can
 * store it whatever happens.
 */
export async function runAgentLoop(run: AgentRun, state: RequestState): Promise<void> {
	const chatTools = toChatTools(run.tools);
	const budget = budgetFor(run.request.model, chatTools);
	const summarizer: SummarizerContext = {
		model: run.request.model,
		budget,
		mode: run.settings.summarizationMode,
		currentRequest: run.request.prompt,
		token: run.token,
		minKeep: run.settings.minRecentRounds,
	};
	const telemetryContext = { windowTokens: budget.window, minRecentRounds: run.settings.minRecentRounds };
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
	const { budget } = summarizer;
	// The budget charges every chosen tool; longhaul_recall is offered once something is summarized.
	const offered = (conversation: Conversation) => toolsOfferedNow(chatTools, newestSummaryIndex(flattenRounds(conversation)) !== -1);
	const input = (conversation: Conversation): AgentRenderInput => {
		state.ledgerShown = doneLedgerForPrompt(settings.doneLedger && !state.fit.ledgerSuspended, conversation, state.ledger, state.ledgerShown, budget.messages);
		return {
			conversation,
			request: request.prompt,
			references: run.references,
			toolNames: offered(conversation).map(t => t.name),
			maxToolResultTokens: toolResultBudget(budget),
			olderRequestsMaxTokens: olderRequestsBudget(budget.messages),
			doneLedger: state.ledgerShown?.text,
		};
	};

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
		const reply = await callModel(
			request.model,
			prompt.messages,
			{ tools: offered(state.conversation), justification: 'Longhaul runs an agent session with this model.' },
			token,
			text => stream.markdown(text),
		);

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
				call.result = cutToTokens(result, toolResultBudget(budget), countTokens);
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
			messageBudget: budgetFor(run.request.model, toChatTools(run.tools)).messages,
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
): Promise<RenderedPrompt> {
	const { budget } = summarizer;
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
					return { fits: true, prompt: await renderAgent(input(conversation), budget.messages) };
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
			messageBudget: budget.messages,
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
	const telemetry = fitTelemetry(result, {
		windowTokens: budget.window,
		minRecentRounds: run.settings.minRecentRounds,
		autoSummarize: run.settings.autoSummarize,
		stoppedBefore,
	});
	for (const event of telemetry) run.telemetry.send(event);
	if (result.kind === 'refused') {
		throw new PromptTooLargeError(result.neededTokens, budget.messages, budget.toolTokens);
	}
	state.lastPromptTokens = result.prompt.tokenCount + budget.toolTokens;
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
			if (event.source === 'model') logSummary('overflow', event.prepared);
			break;
		case 'summary-failed':
			logSummary('overflow', event.prepared);
			break;
		case 'loop-breaker':
			log().info(`loop breaker: ${event.why}`);
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
		case 'ledger-off':
			log().info('truncation: done-ledger left out of this request');
			break;
		case 'summaries-off':
			log().info('summarization: automatic summaries are off (longhaul.autoSummarize); masking and truncation only');
			break;
	}
}
