import * as vscode from 'vscode';
import { computeBudget, toolResultBudget, type PromptBudget } from '../common/tokens/budget';
import type { Conversation, ToolCall } from '../common/conversation/conversation';
import { truncateMiddle } from '../common/shrinking/truncate';
import { fitPrompt, type FitEvent } from '../common/fitting/fitPrompt';
import { fitNotice, loopBreakerNotice } from '../common/fitting/fitNotices';
import { noteToolCall } from '../common/fitting/fitSession';
import { BackgroundSummarizer } from './backgroundSummary';
import { doneLedgerForPrompt } from './doneLedgerPrompt';
import { logSummary, modelSummarizer, type SummarizerContext } from './compaction';
import { log } from './log';
import { callModel } from './modelCall';
import { countTokens, measureAgent, renderAgent, isBudgetExceeded, type AgentRenderInput, type RenderedPrompt } from './promptRendering';
import type { ReferenceAttachment } from '../prompts';
import { addActiveRound, newRoundId, type RequestState } from './requestState';
import type { LonghaulSettings } from './settings';
import { toChatTools, toolDefinitionsText } from './toolCatalog';
import { toolErrorText, toolResultText } from './toolResults';

export interface AgentRun {
	readonly request: vscode.ChatRequest;
	readonly references: readonly ReferenceAttachment[];
	readonly tools: readonly vscode.LanguageModelToolInformation[];
	readonly settings: LonghaulSettings;
	readonly stream: vscode.ChatResponseStream;
	readonly token: vscode.CancellationToken;
	/** Invokes a tool; injected so tests and the loop share one path. */
	readonly invokeTool: typeof vscode.lm.invokeTool;
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
	};
	const background = new BackgroundSummarizer(summarizer, state.background);
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
	const input = (conversation: Conversation): AgentRenderInput => {
		state.ledgerShown = doneLedgerForPrompt(settings.doneLedger && !state.fit.ledgerSuspended, conversation, state.ledger, state.ledgerShown, budget.messages);
		return {
			conversation,
			request: request.prompt,
			references: run.references,
			toolNames: chatTools.map(t => t.name),
			maxToolResultTokens: toolResultBudget(budget),
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
			{ tools: chatTools, justification: 'Longhaul runs an agent session with this model.' },
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
			const result = await runTool(run, requested.name, requested.input, token);
			toolMs += performance.now() - toolStart;
			if (result !== undefined) {
				call.result = capToolResult(result, toolResultBudget(budget));
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

async function runTool(run: AgentRun, name: string, input: object, token: vscode.CancellationToken): Promise<string | undefined> {
	if (!run.tools.some(t => t.name === name)) {
		return `Error: there is no tool named ${name}. Available tools: ${run.tools.map(t => t.name).join(', ')}.`;
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

/** A single result larger than the cap is cut (head and tail kept) before it reaches any prompt. */
function capToolResult(text: string, maxTokens: number): string {
	const tokens = countTokens(text);
	if (tokens <= maxTokens) {
		return text;
	}
	const maxChars = Math.floor(text.length * (maxTokens / tokens) * 0.95);
	return truncateMiddle(text, maxChars);
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
	const waited = async <T>(pending: Promise<T>): Promise<T> => {
		const start = performance.now();
		try {
			return await pending;
		} finally {
			state.summaryWaitMs += performance.now() - start;
		}
	};
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
			summarize: (conversation, plan) => {
				run.stream.progress('Summarizing conversation history…');
				return waited(summarize(conversation, plan));
			},
			countTokens,
			isCancelled: () => run.token.isCancellationRequested,
			cancellationError: () => new vscode.CancellationError(),
		},
		{ mode: run.settings.summarizationMode, messageBudget: budget.messages, maskOldToolResults: run.settings.maskOldToolResults },
	);
	state.conversation = result.conversation;
	for (const event of result.events) {
		record(state, event);
		const notice = fitNotice(event);
		if (notice) run.stream.markdown(`\n\n*${notice}*\n\n`);
	}
	if (result.kind === 'refused') {
		throw new PromptTooLargeError(result.neededTokens, budget.messages, budget.toolTokens);
	}
	const threshold = run.settings.backgroundSummarizationThreshold;
	if (threshold > 0 && !state.fit.modelSummariesStopped && result.prompt.tokenCount >= threshold * budget.messages) {
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
			state.newSummaries.push({ roundId: event.prepared.plan.anchorRoundId, text: event.prepared.summary });
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
		case 'dropped':
			state.newSummaries.push({ roundId: event.plan.anchorRoundId, text: event.text });
			state.droppedRounds += event.plan.summarizeRoundIds.length;
			log().info(`truncation: dropped ${event.plan.summarizeRoundIds.length} rounds without a summary`);
			break;
		case 'ledger-off':
			log().info('truncation: done-ledger left out of this request');
			break;
	}
}
