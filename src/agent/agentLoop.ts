// The agent loop of one @longhaul request. One request:
//   participant.ts handleRequest → agentRequest.ts → runAgentLoop, which builds the request's
//   Compactor (requestCompactor.ts) once → for each step: renderFitting (promptFitting.ts: the
//   prompt, made to fit) → askModel (modelRetry.ts: the model's reply, streamed) → runTool for each
//   tool call → the round joins the request's state (requestState.ts) → next step.
// One overflow: renderFitting → Compactor.fit (src/common/compaction/compactor.ts) → fitPrompt
//   (src/common/fitting/fitPrompt.ts: mask, prepared summary, model summary, truncation) → the
//   events come back as data → notices, buttons, the tally and telemetry (promptFitting.ts).
import * as vscode from 'vscode';
import { toolResultBudget } from '../common/tokens/budget';
import type { ToolCall } from '../common/conversation/conversation';
import { RECALL_TOOL_NAME } from '../common/recall/recallInput';
import { answerRecall } from '../tools/recall';
import { cutToTokens } from '../common/text/cutText';
import { loopBreakerNotice } from '../common/fitting/fitNotices';
import { noteToolCall } from '../common/fitting/fitMemory';
import { shouldSample } from '../common/tokens/calibration';
import { countTokens } from '../common/tokens/tokenizer';
import { summarization } from '../common/stats/fitTelemetry';
import type { RequestContext } from './commands/requestContext';
import { log } from './log';
import { localize } from './l10n';
import type { ModelReply } from './modelCall';
import { askModel } from './modelRetry';
import { renderFitting, toolsOffered, type AgentRun } from './promptFitting';
import { RequestCompactor } from './requestCompactor';
import { addActiveRound, newRoundId, type RequestState } from './requestState';
import { toChatTools } from './toolCatalog';
import { toolDefinitionsText } from '../common/tools/toolDefinitions';
import { toolErrorText, toolResultText } from './toolResults';

export { PromptTooLargeError } from './promptFitting';
export { PromptRejectedError } from './modelRetry';

/** What the prompts of the request add to the conversation: the attachments and the pinned instructions. */
export type PromptAdditions = Pick<AgentRun, 'references' | 'pinnedInstructions'>;

/**
 * The agent loop: render (summarizing on overflow), ask the model, stream its text, run the
 * tools it calls, record the round, repeat until it stops calling tools, the tool-call limit
 * is hit, or the user cancels. `ctx.state` always holds everything done so far, so the caller can
 * store it whatever happens.
 */
export async function runAgentLoop(ctx: RequestContext, additions: PromptAdditions): Promise<void> {
	const { request, state, settings } = ctx;
	const chatTools = toChatTools(ctx.tools);
	const model = request.model;
	// The model's own window (maxInputTokens), whatever token ratio the budget uses at the time.
	const telemetryContext = { windowTokens: model.maxInputTokens, minRecentRounds: settings.minRecentRounds };
	const compactor = new RequestCompactor({
		model,
		chatTools,
		// Read fresh each time: samples and rejections during the request move the ratio.
		ratio: () => ctx.calibration.ratio(model),
		settings,
		calibration: ctx.calibration,
		token: ctx.token,
		stream: ctx.stream,
		currentRequest: request.prompt,
		summarizerModel: ctx.summarizer.model,
		speeds: ctx.speeds,
		slots: ctx.slots,
		background: {
			carried: ctx.carried,
			stats: state.background,
			onUnused: (prepared, outcome) => ctx.telemetry.send(summarization('background', outcome, prepared, telemetryContext)),
		},
	});
	compactor.adoptCarried(state.conversation);
	try {
		await agentSteps({ ctx, compactor, chatTools, ...additions });
	} finally {
		compactor.dispose(state.conversation);
	}
}

/** Why the loop stopped before the model was done, or undefined to go on. */
function stopReason({ ctx }: AgentRun): 'cancelled' | 'limit' | undefined {
	if (ctx.token.isCancellationRequested) return 'cancelled';
	if (ctx.state.toolCallCount >= ctx.settings.maxToolCallsPerRequest) return 'limit';
	return undefined;
}

async function agentSteps(run: AgentRun): Promise<void> {
	const { ctx } = run;
	const { state } = ctx;
	const toolDefinitions = toolDefinitionsText(run.chatTools);
	const clock = ownTimeClock(state);
	for (let modelCalls = 0; ;) {
		const stop = stopReason(run);
		if (stop) {
			if (stop === 'cancelled') state.cancelled = true;
			else state.maxToolCallsExceeded = true;
			return;
		}
		const prompt = await renderFitting(run);
		clock.promptReady();
		// The model's own count of what is sent, now and then, in the background (calibration.ts).
		if (shouldSample(modelCalls++)) {
			const calls = modelCalls;
			void ctx.calibration.sample(ctx.request.model, prompt.messages, toolDefinitions, ctx.token).then(() => noteRatio(ctx, calls));
		}
		const reply = await ctx.slots.agentCall(ctx.request.model.id, () =>
			askModel(
				{
					model: ctx.request.model,
					tools: toolsOffered(run, state.conversation),
					stream: ctx.stream,
					token: ctx.token,
					calibration: ctx.calibration,
					budget: () => run.compactor.budget,
					refit: messageBudget => renderFitting(run, messageBudget),
					onRatioChanged: () => noteRatio(ctx, undefined),
					onRetry: () => state.recoveries++,
				},
				prompt,
			),
		);
		noteRatio(ctx, modelCalls);
		clock.replied();
		if (reply.toolCalls.length === 0) {
			addActiveRound(state, {
				id: newRoundId(state),
				response: reply.text,
				toolCalls: [],
				...(reply.providerState ? { providerState: reply.providerState } : {}),
			});
			return;
		}
		addActiveRound(state, await runToolCalls(run, reply, clock));
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
async function runToolCalls(run: AgentRun, reply: ModelReply, clock: ReturnType<typeof ownTimeClock>) {
	const { ctx } = run;
	const { state } = ctx;
	const calls: ToolCall[] = [];
	for (const requested of reply.toolCalls) {
		const call: { id: string; name: string; arguments: string; result?: string } = {
			id: requested.callId,
			name: requested.name,
			arguments: JSON.stringify(requested.input ?? {}),
		};
		calls.push(call);
		if (ctx.token.isCancellationRequested) continue;
		state.toolCallCount++;
		const toolStart = performance.now();
		const result = await runTool(run, requested.name, requested.input, ctx.token);
		clock.addToolTime(performance.now() - toolStart);
		if (result !== undefined) {
			// A single result larger than the cap is cut (head and tail kept) before it reaches any prompt.
			call.result = cutToTokens(result, toolResultBudget(run.compactor.budget), countTokens);
		}
		const stopped = noteToolCall(state.fit, call.name, call.arguments, call.result);
		if (stopped) {
			log().info(`loop breaker: ${stopped}`);
			ctx.stream.markdown(`\n\n*${localize(loopBreakerNotice(stopped))}*\n\n`);
		}
	}
	return { id: newRoundId(state), response: reply.text, toolCalls: calls, ...(reply.providerState ? { providerState: reply.providerState } : {}) };
}

/** Records the model's token ratio in the request's metadata when it changed. */
function noteRatio(ctx: RequestContext, modelCall: number | undefined): void {
	const ratio = ctx.calibration.ratio(ctx.request.model);
	const record = ctx.state.tokenRatio;
	if (Math.abs(ratio - record.end) < 0.0005) return;
	record.end = ratio;
	if (record.changes.length < 40) record.changes.push({ modelCall: modelCall ?? -1, ratio: Math.round(ratio * 1000) / 1000 });
}

async function runTool(run: AgentRun, name: string, input: object, token: vscode.CancellationToken): Promise<string | undefined> {
	const { ctx } = run;
	const { state } = ctx;
	if (!ctx.tools.some(t => t.name === name)) {
		return `Error: there is no tool named ${name}. Available tools: ${ctx.tools.map(t => t.name).join(', ')}.`;
	}
	if (name === RECALL_TOOL_NAME) {
		// Answered here, from this request's own conversation: the registered tool has no way to know which chat it serves.
		ctx.stream.progress(vscode.l10n.t('Looking back at summarized rounds…'));
		return answerRecall(input, {
			conversation: state.conversation,
			recorded: state.recordedRounds,
			currentRequest: ctx.request.prompt,
			messageBudget: run.compactor.budget.messages,
			countTokens,
			token,
		});
	}
	try {
		const result = await ctx.invokeTool(name, { input, toolInvocationToken: ctx.request.toolInvocationToken }, token);
		return toolResultText(result);
	} catch (error) {
		if (token.isCancellationRequested) return undefined;
		log().info(`tool ${name} failed: ${error instanceof Error ? error.name : 'error'}`);
		return toolErrorText(name, error);
	}
}
