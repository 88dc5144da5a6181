import * as vscode from 'vscode';
import { computeBudget, toolResultBudget, type PromptBudget } from '../common/budget';
import type { ToolCall } from '../common/conversation';
import { elideOldestToolResults } from '../common/elideToolResults';
import { truncateMiddle } from '../common/truncate';
import { compact } from './compaction';
import { log } from './log';
import { callModel } from './modelCall';
import { countTokens, isBudgetExceeded, measureAgent, renderAgent, type AgentRenderInput, type RenderedPrompt } from './promptRendering';
import type { ReferenceAttachment } from '../prompts';
import { addActiveRound, newRoundId, type RequestState } from './requestState';
import type { LonghaulSettings } from './settings';
import { toChatTools, toolDefinitionsText } from './toolCatalog';
import { toolErrorText, toolResultText } from './toolResults';

/** Summarization attempts in a row that may fail to bring the prompt under budget before truncation takes over. */
export const MAX_COMPACTIONS_PER_RENDER = 2;

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
	constructor(readonly tokens: number, readonly budget: number, readonly toolTokens = 0) {
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
	const { request, stream, token, settings } = run;
	const chatTools = toChatTools(run.tools);
	const budget = budgetFor(request.model, chatTools);
	const input = (): AgentRenderInput => ({
		conversation: state.conversation,
		request: request.prompt,
		references: run.references,
		toolNames: chatTools.map(t => t.name),
		maxToolResultTokens: toolResultBudget(budget),
	});

	for (;;) {
		if (token.isCancellationRequested) {
			state.cancelled = true;
			return;
		}
		if (state.toolCallCount >= settings.maxToolCallsPerRequest) {
			state.maxToolCallsExceeded = true;
			return;
		}
		const prompt = await renderFitting(run, state, budget, input);
		const reply = await callModel(request.model, prompt.messages, { tools: chatTools, justification: 'Longhaul runs an agent session with this model.' }, token, text => stream.markdown(text));

		const calls: ToolCall[] = [];
		const round = { id: newRoundId(), response: reply.text, toolCalls: calls };
		if (reply.toolCalls.length === 0) {
			addActiveRound(state, round);
			return;
		}
		for (const requested of reply.toolCalls) {
			const call: { id: string; name: string; arguments: string; result?: string } = { id: requested.callId, name: requested.name, arguments: JSON.stringify(requested.input ?? {}) };
			calls.push(call);
			if (token.isCancellationRequested) {
				continue; // left without a result: the renderer closes it as interrupted
			}
			state.toolCallCount++;
			const result = await runTool(run, requested.name, requested.input, token);
			if (result !== undefined) {
				call.result = capToolResult(result, toolResultBudget(budget));
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
 * Renders the agent prompt, summarizing when it does not fit. After
 * {@link MAX_COMPACTIONS_PER_RENDER} summarizations that did not make it fit (or when no summary
 * can be made), old tool results are removed deterministically and the user is told. Never loops.
 */
async function renderFitting(run: AgentRun, state: RequestState, budget: PromptBudget, input: () => AgentRenderInput): Promise<RenderedPrompt> {
	let compactions = 0;
	for (;;) {
		try {
			return await renderAgent(input(), budget.messages);
		} catch (error) {
			if (!isBudgetExceeded(error)) {
				throw error;
			}
		}
		if (compactions < MAX_COMPACTIONS_PER_RENDER) {
			compactions++;
			const outcome = await compact(state, {
				model: run.request.model,
				budget,
				mode: run.settings.summarizationMode,
				currentRequest: run.request.prompt,
				stream: run.stream,
				token: run.token,
				reason: 'overflow',
			});
			if (run.token.isCancellationRequested) {
				throw new vscode.CancellationError();
			}
			if (outcome.kind === 'summarized') {
				continue;
			}
			if (outcome.kind === 'failed') {
				run.stream.markdown('\n\n*The conversation could not be summarized (' + outcome.attempts.map(a => `${a.mode}: ${a.outcome}`).join(', ') + '); removing the oldest tool results instead.*\n\n');
			}
			compactions = MAX_COMPACTIONS_PER_RENDER;
		}
		const needed = (await measureAgent(input())).tokenCount;
		const shed = elideOldestToolResults(state.conversation, needed - budget.messages + Math.ceil(budget.messages * 0.05), countTokens);
		if (shed.elidedCalls === 0) {
			throw new PromptTooLargeError(needed, budget.messages, budget.toolTokens);
		}
		state.conversation = shed.conversation;
		run.stream.markdown(`\n\n*Removed ${shed.elidedCalls} old tool result${shed.elidedCalls === 1 ? '' : 's'} (about ${shed.shedTokens} tokens) to fit the context window.*\n\n`);
		log().info(`truncation: elided ${shed.elidedCalls} tool results, ${shed.shedTokens} tokens`);
	}
}
