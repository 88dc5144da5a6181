import * as vscode from 'vscode';
import type { Conversation } from '../common/conversation/conversation';
import { ledgerAtRequestStart, type DoneLedger } from '../common/ledger/doneLedger';
import { loadBashParser } from '../common/shell/bashParser';
import { encodeTurnRecord, rebuildConversation, summaryChanges } from '../common/persistence/metadata';
import { PromptRejectedError, PromptTooLargeError, budgetFor, runAgentLoop } from './agentLoop';
import type { TokenCalibration } from './tokenCalibration';
import type { HandledRequest } from './api';
import { compactNow } from './compaction';
import { ProviderUnavailableError, showWaitsFor } from './modelCall';
import { condensedNotice, describePlan } from '../common/fitting/fitNotices';
import { localize } from './l10n';
import { describeAttemptsForUser } from '../common/summaries/summarizationFlow';
import { contextReport } from './contextReport';
import { readChatHistory } from './historyReader';
import { log } from './log';
import { PARTICIPANT_ID } from './participantId';
import { referencesAsText } from './references';
import { newRequestState, type RequestState } from './requestState';
import { readSettings, type LonghaulSettings } from './settings';
import { percentile } from '../common/stats/percentile';
import { TOOL_DEFINITIONS_SHARE } from '../common/tools/toolSelection';
import { selectTools, toChatTools } from './toolCatalog';
import { OPEN_SUMMARY_COMMAND, rememberSummary, summaryButton, summaryRecap } from './summaryDocuments';
import type { LonghaulTelemetry } from './telemetry';
import { summarization } from '../common/stats/fitTelemetry';
import { tokenCountLine } from '../common/stats/tokenCountLine';
import { layoutPrompt } from '../common/conversation/promptLayout';

export { PARTICIPANT_ID };

/** What every Longhaul response stores in `ChatResult.metadata`. */
export interface LonghaulResultMetadata {
	readonly summarizationMode: LonghaulSettings['summarizationMode'];
	/** This turn's rounds and the summaries made during it (src/common/persistence/metadata.ts). */
	readonly longhaul: unknown;
	readonly summarizations: number;
	readonly toolCalls: number;
	/** Summaries prepared in the background during this request, and what became of them. */
	readonly background: RequestState['background'];
	/** Longhaul's own time per round in this request (from a model reply to the next request, less tool runs and summary waits), ms. */
	readonly ownTimeMs: { readonly rounds: number; readonly p50: number; readonly p95: number; readonly max: number };
	/** Rounds dropped without a model summary, the last step of truncation. */
	readonly droppedRounds: number;
	/** Old tool results replaced by placeholders in this request (cheap-first compaction). */
	readonly masking: { readonly maskings: number; readonly maskedResults: number; readonly freedTokens: number };
	/** Why the loop breaker stopped model summaries in this request, if it did. */
	readonly loopBreaker?: string;
	/** Steps the provider rejected as too long and that went through after recounting. */
	readonly recoveries: number;
	/** Condense passes (a too-long summary shortened by the model) in this request. */
	readonly condensePasses: number;
	/** Overflows where the model's summary failed and old tool results or rounds were removed instead. */
	readonly truncationsAfterFailedSummary: number;
	/** The model's tokens per local token (token calibration) at the start and end of the request, and when it changed. */
	readonly tokenRatio: RequestState['tokenRatio'];
}

export function createParticipant(
	context: vscode.ExtensionContext,
	telemetry: LonghaulTelemetry,
	calibration: TokenCalibration,
	onHandled: (handled: HandledRequest) => void,
): vscode.ChatParticipant {
	const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, async (request, chatContext, stream, token) => {
		let markdown = '';
		const buttons: vscode.Command[] = [];
		const progress: string[] = [];
		const recording = recordingStream(stream, {
			markdown: value => (markdown += value),
			button: command => buttons.push(command),
			progress: value => progress.push(value),
		});
		// A rate-limited model call of this request says in the chat that it waits (modelCall.ts).
		const waits = showWaitsFor(token, text => recording.progress(text));
		let result: vscode.ChatResult;
		try {
			result = await handleRequest(request, chatContext, recording, token, telemetry, calibration);
		} finally {
			waits.dispose();
		}
		onHandled({
			prompt: request.prompt,
			command: request.command,
			markdown,
			buttons,
			progress,
			metadata: result.metadata,
			errorMessage: result.errorDetails?.message,
		});
		return result;
	});
	participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.png');
	participant.followupProvider = {
		provideFollowups(result) {
			const record = (result.metadata as LonghaulResultMetadata | undefined)?.longhaul as { maxToolCallsExceeded?: boolean } | undefined;
			return record?.maxToolCallsExceeded ? [{ prompt: 'Continue where you stopped.', label: 'Continue', participant: PARTICIPANT_ID }] : [];
		},
	};
	return participant;
}

/**
 * The same stream, also reporting every markdown text and button. VS Code hands out a frozen object
 * (no patching, and a Proxy may not change its read-only members), so this is a new object
 * that forwards every member.
 */
function recordingStream(
	stream: vscode.ChatResponseStream,
	on: { markdown: (text: string) => void; button: (command: vscode.Command) => void; progress: (text: string) => void },
): vscode.ChatResponseStream {
	const forward: Record<string, unknown> = {};
	for (let o: object | null = stream; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
		for (const key of Object.getOwnPropertyNames(o)) {
			if (key !== 'constructor' && !(key in forward)) {
				const member = (stream as unknown as Record<string, unknown>)[key];
				forward[key] = typeof member === 'function' ? member.bind(stream) : member;
			}
		}
	}
	forward.markdown = (value: string | vscode.MarkdownString) => {
		on.markdown(typeof value === 'string' ? value : value.value);
		stream.markdown(value);
		return forward;
	};
	forward.button = (command: vscode.Command) => {
		on.button(command);
		stream.button(command);
		return forward;
	};
	const progress = stream.progress.bind(stream) as (value: string, ...rest: unknown[]) => unknown;
	forward.progress = (value: string, ...rest: unknown[]) => {
		on.progress(value);
		progress(value, ...rest);
		return forward;
	};
	return forward as unknown as vscode.ChatResponseStream;
}

/**
 * Rebuilds the conversation from the chat history, and the done-ledger at the start of this
 * request (`request`, none for commands, is its newest entry); unreadable parts are skipped
 * and logged, a missing or bad stored ledger is rebuilt from the rounds.
 */
function pastConversation(chatContext: vscode.ChatContext, request: string | undefined): { conversation: Conversation; ledger: DoneLedger } {
	const read = readChatHistory(chatContext.history);
	if (read.foreignTurns > 0) {
		log().info(`history: skipped ${read.foreignTurns} turn(s) of other participants`);
	}
	const { conversation, issues, doneLedgers } = rebuildConversation(read.turns.map(t => ({ user: t.command ? '' : t.user, metadata: t.metadata })));
	for (const issue of issues) {
		log().warn(`history: ${issue.kind} at ${issue.path}: ${issue.message}`);
	}
	// Command turns (/compact, /context) carry summaries but are not part of the conversation.
	const kept = conversation.turns.map((turn, i) => ({ turn, ledger: doneLedgers[i] })).filter(({ turn }) => turn.user !== '' || turn.rounds.length > 0);
	const turns = kept.map(k => k.turn);
	const past = kept.map(k => k.ledger);
	return { conversation: { turns, activeRounds: conversation.activeRounds }, ledger: ledgerAtRequestStart(turns, past, request) };
}

/** Commands (/context, /compact) store no ledger: the next request takes the previous one. */
function resultFor(state: RequestState, settings: LonghaulSettings, errorMessage?: string, refused = false, storeLedger = true): vscode.ChatResult {
	const metadata: LonghaulResultMetadata = {
		summarizationMode: settings.summarizationMode,
		longhaul: encodeTurnRecord({
			rounds: state.conversation.activeRounds,
			maxToolCallsExceeded: state.maxToolCallsExceeded || undefined,
			cancelled: state.cancelled || undefined,
			refused: refused || undefined,
			summaryBlocks: state.newSummaries,
			doneLedger: storeLedger ? state.ledger : undefined,
		}),
		summarizations: state.tally.summarizations,
		toolCalls: state.toolCallCount,
		background: state.background,
		masking: { maskings: state.tally.masking.maskings, maskedResults: state.tally.masking.maskedResults, freedTokens: state.tally.masking.freedTokens },
		droppedRounds: state.tally.droppedRounds,
		ownTimeMs: timeSummary(state.ownTimeMs),
		...(state.fit.modelSummariesStopped ? { loopBreaker: state.fit.modelSummariesStopped } : {}),
		recoveries: state.recoveries,
		condensePasses: state.tally.condensePasses,
		truncationsAfterFailedSummary: state.tally.truncationsAfterFailedSummary,
		tokenRatio: state.tokenRatio,
	};
	return errorMessage ? { metadata, errorDetails: { message: errorMessage } } : { metadata };
}

async function handleRequest(
	request: vscode.ChatRequest,
	chatContext: vscode.ChatContext,
	stream: vscode.ChatResponseStream,
	token: vscode.CancellationToken,
	telemetry: LonghaulTelemetry,
	calibration: TokenCalibration,
): Promise<vscode.ChatResult> {
	const settings = readSettings();
	// The done-ledger reads shell command lines with the bash parser; it is loaded at activation, awaited here once.
	await loadBashParser();
	const past = pastConversation(chatContext, request.command ? undefined : request.prompt);
	const state = newRequestState(past.conversation, past.ledger);
	const ratio = calibration.ratio(request.model);
	state.tokenRatio.start = state.tokenRatio.end = ratio;
	const selection = selectTools(vscode.lm.tools, {
		trusted: vscode.workspace.isTrusted,
		// A quarter of what the model really takes, in local tokens.
		maxInputTokens: Math.floor(request.model.maxInputTokens / ratio),
		attached: new Set(request.toolReferences.map(t => t.name)),
	});
	const tools = selection.tools;
	if (selection.leftOut.length) {
		log().info(
			`tools: ${tools.length} offered, ${selection.leftOut.length} left out to keep definitions within ${TOOL_DEFINITIONS_SHARE * 100}% of the window: ${selection.leftOut.join(', ')}`,
		);
	}
	try {
		if (request.command === 'context') {
			// Trusted for one command only: the links that open summary blocks.
			const report = new vscode.MarkdownString(
				await contextReport(
					state.conversation,
					request.model,
					tools,
					settings,
					selection.leftOut,
					state.ledger,
					calibration.calibration(request.model),
					telemetry.recording,
				),
			);
			report.isTrusted = { enabledCommands: [OPEN_SUMMARY_COMMAND] };
			stream.markdown(report);
			return resultFor(state, settings, undefined, false, false);
		}
		if (request.command === 'compact') {
			const budget = budgetFor(request.model, toChatTools(tools), ratio);
			const outcome = await compactNow(
				state.conversation,
				{
					model: request.model,
					budget,
					calibration,
					mode: settings.summarizationMode,
					currentRequest: '',
					token,
					focus: request.prompt.trim() || undefined,
					minKeep: settings.minRecentRounds,
				},
				stream,
			);
			if (outcome.kind !== 'nothing-to-summarize') {
				const outcomeName = outcome.kind === 'summarized' ? 'summarized' : 'failed';
				telemetry.send(
					summarization('command', outcomeName, outcome.prepared, { windowTokens: request.model.maxInputTokens, minRecentRounds: settings.minRecentRounds }),
				);
			}
			if (outcome.kind === 'nothing-to-summarize') {
				stream.markdown('There is nothing to summarize yet: every round is already covered by a summary or must stay verbatim.');
			} else if (outcome.kind === 'failed') {
				stream.markdown(
					`The conversation could not be summarized (${describeAttemptsForUser(outcome.prepared.attempts)}). Nothing was changed; you can go on as before.`,
				);
			} else {
				state.newSummaries.push(...summaryChanges(state.conversation, outcome.conversation));
				state.conversation = outcome.conversation;
				state.tally.summarizations++;
				stream.markdown(`\n\n*${localize(describePlan(outcome.prepared.plan))}*\n\n`);
				if (outcome.condensed.length) stream.markdown(`*${localize(condensedNotice(outcome.condensed.map(b => b.turnIndex)))}*\n\n`);
				const { plan, blocks } = outcome.prepared;
				const anchorTurn = plan.anchor.source === 'history' ? state.conversation.turns[plan.anchor.turnIndex]?.user : undefined;
				summaryButton(
					stream,
					rememberSummary({
						roundId: plan.anchorRoundId,
						text: blocks.join('\n\n'),
						location: plan.anchor,
						request: anchorTurn,
						summarizedRounds: plan.stats.summarizedRoundCount,
					}),
				);
			}
			return resultFor(state, settings, undefined, false, false);
		}
		const references = await referencesAsText(request.references);
		await runAgentLoop({ request, references, tools, settings, stream, token, invokeTool: vscode.lm.invokeTool, telemetry, calibration }, state);
		if (state.maxToolCallsExceeded) {
			stream.markdown(`\n\nStopped after ${state.toolCallCount} tool calls (the limit set by \`longhaul.maxToolCallsPerRequest\`). Say "continue" to go on.`);
		}
		summaryRecap(stream, state.madeSummaries);
		if (settings.showTokenCount && state.lastPromptTokens !== undefined) {
			const summaryBlocks = layoutPrompt(state.conversation).filter(entry => entry.kind === 'summary').length;
			// With a token ratio in use, the local count is converted to the model's tokens to compare with its window.
			const promptRatio = state.lastPromptRatio ?? 1;
			const calibrated = promptRatio > 1;
			const count = tokenCountLine({
				promptTokens: calibrated ? Math.round(state.lastPromptTokens * promptRatio) : state.lastPromptTokens,
				windowTokens: request.model.maxInputTokens,
				summaryBlocks,
				...(calibrated ? { calibrationRatio: promptRatio } : {}),
			});
			stream.markdown(`\n\n${count}`);
		}
		return resultFor(state, settings);
	} catch (error) {
		if (token.isCancellationRequested || error instanceof vscode.CancellationError) {
			state.cancelled = true;
			return resultFor(state, settings);
		}
		const message =
			error instanceof PromptTooLargeError || error instanceof PromptRejectedError || error instanceof ProviderUnavailableError
				? error.message
				: describeError(error);
		log().error(`request failed: ${error instanceof Error ? error.name : 'error'}: ${message}`);
		return resultFor(state, settings, message, error instanceof PromptTooLargeError);
	}
}

function timeSummary(times: readonly number[]): LonghaulResultMetadata['ownTimeMs'] {
	const at = (p: number) => Math.round(percentile(times, p) * 10) / 10;
	return { rounds: times.length, p50: at(50), p95: at(95), max: at(100) };
}

function describeError(error: unknown): string {
	if (error instanceof vscode.LanguageModelError) {
		return `The model could not answer (${error.code || error.name}): ${error.message}. Your conversation is kept; try again or pick another model.`;
	}
	return `Longhaul hit an error: ${error instanceof Error ? error.message : String(error)}. Your conversation is kept; try again.`;
}
