// The agent loop of one @longhaul request. One request:
//   participant.ts handleRequest → runAgentLoop → for each step: renderFitting (promptFitting.ts:
//   the prompt, made to fit) → askModel (modelRetry.ts: the model's reply, streamed) → runTool for
//   each tool call → the round joins the request's state (requestState.ts) → next step.
// One overflow: renderFitting → fitAgentPrompt (src/prompts/fitAgentPrompt.ts) → fitPrompt
//   (src/common/fitting/fitPrompt.ts: mask, prepared summary, model summary, truncation) → the
//   events come back as data → notices, buttons, the tally and telemetry (promptFitting.ts).
import * as vscode from 'vscode';
import { computeBudget, toolResultBudget, type PromptBudget } from '../common/tokens/budget';
import type { ToolCall } from '../common/conversation/conversation';
import { RECALL_TOOL_NAME } from '../common/recall/recallInput';
import { answerRecall } from '../tools/recall';
import { cutToTokens } from '../common/shrinking/cutText';
import { loopBreakerNotice } from '../common/fitting/fitNotices';
import { noteToolCall } from '../common/fitting/fitSession';
import { shouldSample } from '../common/tokens/calibration';
import { countTokens } from '../common/tokens/tokenizer';
import { summarization } from '../common/stats/fitTelemetry';
import { BackgroundSummarizer } from './backgroundSummary';
import type { SummarizerContext } from './compaction';
import { log } from './log';
import { localize } from './l10n';
import type { ModelReply } from './modelCall';
import { askModel } from './modelRetry';
import type { AgentRun } from './agentRun';
import { renderFitting, toolsOffered, type FitContext } from './promptFitting';
import { addActiveRound, newRoundId, type RequestState } from './requestState';
import { toChatTools } from './toolCatalog';
import { toolDefinitionTokens, toolDefinitionsText } from '../common/tools/toolDefinitions';
import { toolErrorText, toolResultText } from './toolResults';

export type { AgentRun } from './agentRun';
export { PromptTooLargeError } from './promptFitting';
export { PromptRejectedError } from './modelRetry';

/** The budget of a request with these tools, scaled by the model's token ratio (calibration.ts). */
export function budgetFor(model: vscode.LanguageModelChat, tools: readonly vscode.LanguageModelChatTool[], ratio = 1): PromptBudget {
	return computeBudget(model.maxInputTokens, toolDefinitionTokens(tools, countTokens), ratio);
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
	const toolTokens = toolDefinitionTokens(chatTools, countTokens);
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
	background.adoptCarried(state.conversation);
	try {
		await agentSteps({ run, state, summarizer, background, chatTools });
	} finally {
		background.dispose(state.conversation);
	}
}

/** Why the loop stopped before the model was done, or undefined to go on. */
function stopReason(run: AgentRun, state: RequestState): 'cancelled' | 'limit' | undefined {
	if (run.token.isCancellationRequested) return 'cancelled';
	if (state.toolCallCount >= run.settings.maxToolCallsPerRequest) return 'limit';
	return undefined;
}

async function agentSteps(ctx: FitContext): Promise<void> {
	const { run, state } = ctx;
	const toolDefinitions = toolDefinitionsText(ctx.chatTools);
	const clock = ownTimeClock(state);
	for (let modelCalls = 0; ;) {
		const stop = stopReason(run, state);
		if (stop) {
			if (stop === 'cancelled') state.cancelled = true;
			else state.maxToolCallsExceeded = true;
			return;
		}
		const prompt = await renderFitting(ctx);
		clock.promptReady();
		// The model's own count of what is sent, now and then, in the background (calibration.ts).
		if (shouldSample(modelCalls++)) {
			const calls = modelCalls;
			void run.calibration.sample(run.request.model, prompt.messages, toolDefinitions, run.token).then(() => noteRatio(run, state, calls));
		}
		const reply = await askModel(
			{
				model: run.request.model,
				tools: toolsOffered(ctx, state.conversation),
				stream: run.stream,
				token: run.token,
				calibration: run.calibration,
				budget: () => ctx.summarizer.budget,
				refit: messageBudget => renderFitting(ctx, messageBudget),
				onRatioChanged: () => noteRatio(run, state, undefined),
				onRetry: () => state.recoveries++,
			},
			prompt,
		);
		noteRatio(run, state, modelCalls);
		clock.replied();
		if (reply.toolCalls.length === 0) {
			addActiveRound(state, { id: newRoundId(), response: reply.text, toolCalls: [], ...(reply.providerState ? { providerState: reply.providerState } : {}) });
			return;
		}
		addActiveRound(state, await runToolCalls(ctx, reply, clock));
	}
}

/**
 * Longhaul's own time per round: from a model reply to the next model request, less the tools'
 * own run time and any wait for a summary (metadata `ownTimeMs`).
 */
function ownTimeClock(state: RequestState) {
	let replyEnd: number | undefined;
	let toolMs = 0;
	let waitAtReply = 0;
	return {
		promptReady() {
			if (replyEnd !== undefined) state.ownTimeMs.push(performance.now() - replyEnd - toolMs - (state.summaryWaitMs - waitAtReply));
		},
		replied() {
			replyEnd = performance.now();
			toolMs = 0;
			waitAtReply = state.summaryWaitMs;
		},
		addToolTime(ms: number) {
			toolMs += ms;
		},
	};
}

/** Runs the calls of one reply in order; a call left without a result (cancelled) is closed as interrupted by the renderer. */
async function runToolCalls(ctx: FitContext, reply: ModelReply, clock: ReturnType<typeof ownTimeClock>) {
	const { run, state } = ctx;
	const calls: ToolCall[] = [];
	for (const requested of reply.toolCalls) {
		const call: { id: string; name: string; arguments: string; result?: string } = {
			id: requested.callId,
			name: requested.name,
			arguments: JSON.stringify(requested.input ?? {}),
		};
		calls.push(call);
		if (run.token.isCancellationRequested) continue;
		state.toolCallCount++;
		const toolStart = performance.now();
		const result = await runTool(run, state, requested.name, requested.input, run.token);
		clock.addToolTime(performance.now() - toolStart);
		if (result !== undefined) {
			// A single result larger than the cap is cut (head and tail kept) before it reaches any prompt.
			call.result = cutToTokens(result, toolResultBudget(ctx.summarizer.budget), countTokens);
		}
		const stopped = noteToolCall(state.fit, call.name, call.arguments, call.result);
		if (stopped) {
			log().info(`loop breaker: ${stopped}`);
			run.stream.markdown(`\n\n*${localize(loopBreakerNotice(stopped))}*\n\n`);
		}
	}
	return { id: newRoundId(), response: reply.text, toolCalls: calls, ...(reply.providerState ? { providerState: reply.providerState } : {}) };
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
		run.stream.progress(vscode.l10n.t('Looking back at summarized rounds…'));
		return answerRecall(input, {
			conversation: state.conversation,
			recorded: state.recordedRounds,
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
		if (token.isCancellationRequested) return undefined;
		log().info(`tool ${name} failed: ${error instanceof Error ? error.name : 'error'}`);
		return toolErrorText(name, error);
	}
}
