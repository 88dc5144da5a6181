import * as vscode from 'vscode';
import { computeBudget, toolResultBudget, type PromptBudget } from '../common/tokens/budget';
import type { ToolCall } from '../common/conversation/conversation';
import { elideOldestToolResults } from '../common/shrinking/elideToolResults';
import { truncateMiddle } from '../common/shrinking/truncate';
import { noteCall, noteSummary, REPEATS_AFTER_SUMMARY } from '../common/fitting/loopBreaker';
import { dropOlderRounds } from '../common/shrinking/dropOlderRounds';
import { maskForOverflow } from '../common/shrinking/maskToolResults';
import { BackgroundSummarizer } from './backgroundSummary';
import { doneLedgerForPrompt } from './doneLedgerPrompt';
import { attachSummary, compact, type CompactionContext } from './compaction';
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
/**
 * Summaries the summarizer could only make of the oldest part (narrowPlan.ts) are expected not to
 * make the prompt fit, so they do not count as failed attempts; this bounds them per render.
 */
export const MAX_NARROWED_PER_RENDER = 4;

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
	const background = new BackgroundSummarizer(
		{ model: run.request.model, budget, mode: run.settings.summarizationMode, currentRequest: run.request.prompt },
		run.token,
		state.background,
	);
	try {
		await agentSteps(run, state, chatTools, budget, background);
	} finally {
		background.dispose();
	}
}

async function agentSteps(
	run: AgentRun,
	state: RequestState,
	chatTools: vscode.LanguageModelChatTool[],
	budget: PromptBudget,
	background: BackgroundSummarizer,
): Promise<void> {
	const { request, stream, token, settings } = run;
	const input = (): AgentRenderInput => {
		state.ledgerShown = doneLedgerForPrompt(
			settings.doneLedger && !state.ledgerSuspended,
			state.conversation,
			state.ledger,
			state.ledgerShown,
			budget.messages,
		);
		return {
			conversation: state.conversation,
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
		const prompt = await renderFitting(run, state, budget, input, background);
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
			if (noteCall(state.repeats, call.name, call.arguments, call.result) && !state.modelSummariesStopped) {
				stopModelSummaries(
					run,
					state,
					`right after a summary the agent called ${call.name} with the same arguments and got the same result ${REPEATS_AFTER_SUMMARY} times`,
				);
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
 * Cheap-first compaction (longhaul.maskOldToolResults): replaces old tool results outside the
 * rounds the planner keeps verbatim with one-line placeholders. False when it masked nothing
 * (nothing left, or the older rounds would stay too large to summarize later): summarize then.
 */
function maskOlderResults(run: AgentRun, state: RequestState, budget: PromptBudget, overflowTokens: number): boolean {
	const masked = maskForOverflow(state.conversation, run.settings.summarizationMode, countTokens, budget.messages, overflowTokens);
	if (masked.maskedCalls === 0) {
		if (masked.declined) log().info(`masking declined (${masked.declined}): ${masked.olderPartTokens} tokens in the older rounds`);
		return false;
	}
	state.conversation = masked.conversation;
	state.masking.maskings++;
	state.masking.maskedResults += masked.maskedCalls;
	state.masking.freedTokens += masked.freedTokens;
	log().info(
		`masking: ${masked.maskedCalls} older tool results (${masked.duplicateCalls} duplicates), ${masked.freedTokens} tokens freed, ${masked.keptRoundCount} rounds kept intact`,
	);
	run.stream.markdown(
		`\n\n*Replaced ${masked.maskedCalls} older tool result${masked.maskedCalls === 1 ? '' : 's'} with short placeholders (about ${masked.freedTokens} tokens) instead of summarizing; the agent can run those calls again if it needs them.*\n\n`,
	);
	return true;
}

/** The loop breaker: no more summaries from the model in this request; truncation takes over. */
function stopModelSummaries(run: AgentRun, state: RequestState, why: string): void {
	state.modelSummariesStopped = why;
	log().info(`loop breaker: ${why}`);
	run.stream.markdown(
		`\n\n*Loop breaker: ${why}. Longhaul stops summarizing with the model for this request and removes the oldest tool results instead when the window fills.*\n\n`,
	);
}

/**
 * Renders the agent prompt, summarizing when it does not fit: first with a summary prepared in
 * the background, if one is ready and still right, then with the model, at most
 * {@link MAX_COMPACTIONS_PER_RENDER} times. When that does not make it fit (the loop breaker then
 * stops model summaries for the rest of the request), or no summary can be made, old tool results
 * are removed deterministically and the user is told. Never loops. A prompt that fits but passes
 * the background threshold starts preparing the next summary.
 */
async function renderFitting(
	run: AgentRun,
	state: RequestState,
	budget: PromptBudget,
	input: () => AgentRenderInput,
	background: BackgroundSummarizer,
): Promise<RenderedPrompt> {
	let compactions = 0;
	let modelSummaries = 0;
	let narrowed = 0;
	for (;;) {
		try {
			const rendered = await renderAgent(input(), budget.messages);
			const threshold = run.settings.backgroundSummarizationThreshold;
			if (threshold > 0 && !state.modelSummariesStopped && rendered.tokenCount >= threshold * budget.messages) {
				background.start(state);
			}
			return rendered;
		} catch (error) {
			if (!isBudgetExceeded(error)) {
				throw error;
			}
		}
		// The whole prompt's size, measured at most once per overflow: every step below that
		// changes the conversation starts the loop over.
		let needed: number | undefined;
		const measure = async () => (needed ??= (await measureAgent(input())).tokenCount);
		if (run.settings.maskOldToolResults && maskOlderResults(run, state, budget, (await measure()) - budget.messages)) {
			continue;
		}
		const compaction: CompactionContext = {
			model: run.request.model,
			budget,
			mode: run.settings.summarizationMode,
			currentRequest: run.request.prompt,
			stream: run.stream,
			token: run.token,
			reason: 'overflow',
		};
		// A summary prepared in the background is used first; it may be older than the overflow, so
		// it does not count as one of the attempts that must bring the prompt under budget.
		const waitStart = performance.now();
		const prepared = background.running ? await background.takeAtOverflow(state) : undefined;
		state.summaryWaitMs += performance.now() - waitStart;
		if (run.token.isCancellationRequested) {
			throw new vscode.CancellationError();
		}
		if (prepared) {
			attachSummary(state, prepared, run.stream, ' Prepared in the background.');
			noteSummary(state.repeats);
			continue;
		}
		if (!state.modelSummariesStopped && compactions < MAX_COMPACTIONS_PER_RENDER) {
			compactions++;
			const compactStart = performance.now();
			const outcome = await compact(state, compaction);
			state.summaryWaitMs += performance.now() - compactStart;
			if (run.token.isCancellationRequested) {
				throw new vscode.CancellationError();
			}
			if (outcome.kind === 'summarized') {
				noteSummary(state.repeats);
				if (outcome.narrowed && narrowed < MAX_NARROWED_PER_RENDER) {
					narrowed++;
					compactions--;
				} else {
					modelSummaries++;
				}
				continue;
			}
			if (outcome.kind === 'failed') {
				run.stream.markdown(
					'\n\n*The conversation could not be summarized (' +
						outcome.attempts.map(a => `${a.mode}: ${a.outcome}`).join(', ') +
						'); removing the oldest tool results instead.*\n\n',
				);
			}
			compactions = MAX_COMPACTIONS_PER_RENDER;
		} else if (!state.modelSummariesStopped && modelSummaries >= MAX_COMPACTIONS_PER_RENDER) {
			stopModelSummaries(run, state, `${MAX_COMPACTIONS_PER_RENDER} summaries in a row did not make the prompt fit`);
		}
		truncate(run, state, await measure(), budget);
	}
}

/**
 * Deterministic truncation, for when no model summary helps: removes the oldest tool results;
 * when none are left, drops the rounds the planner would summarize (keeping every earlier summary
 * and saying so in the prompt); then leaves the done-ledger out. Throws PromptTooLargeError when
 * none of that frees anything.
 */
function truncate(run: AgentRun, state: RequestState, needed: number, budget: PromptBudget): void {
	const shed = elideOldestToolResults(state.conversation, needed - budget.messages + Math.ceil(budget.messages * 0.05), countTokens);
	if (shed.elidedCalls > 0) {
		state.conversation = shed.conversation;
		run.stream.markdown(
			`\n\n*Removed ${shed.elidedCalls} old tool result${shed.elidedCalls === 1 ? '' : 's'} (about ${shed.shedTokens} tokens) to fit the context window.*\n\n`,
		);
		log().info(`truncation: elided ${shed.elidedCalls} tool results, ${shed.shedTokens} tokens`);
		return;
	}
	const dropped = dropOlderRounds(state.conversation);
	if (!dropped) {
		if (state.ledgerShown && !state.ledgerSuspended) {
			// Nothing older is left to remove: the ledger goes before the request is refused.
			state.ledgerSuspended = true;
			state.ledgerShown = undefined;
			log().info('truncation: done-ledger left out of this request');
			return;
		}
		throw new PromptTooLargeError(needed, budget.messages, budget.toolTokens);
	}
	const count = dropped.plan.summarizeRoundIds.length;
	state.conversation = dropped.conversation;
	state.newSummaries.push({ roundId: dropped.plan.anchorRoundId, text: dropped.text });
	state.droppedRounds += count;
	run.stream.markdown(
		`\n\n*Removed ${count} older round${count === 1 ? '' : 's'} without a summary to fit the context window; earlier summaries are kept.*\n\n`,
	);
	log().info(`truncation: dropped ${count} rounds without a summary`);
}
