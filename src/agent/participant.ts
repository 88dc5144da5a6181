// The @longhaul chat participant: one handler for every request.
//
// One request, in order:
//   1. VS Code calls the handler (createParticipant) with the request, the chat history and a stream.
//   2. handleRequest reads the settings (settings.ts), rebuilds the conversation and the done-ledger
//      from the turn records stored in the history's metadata (pastConversation → metadata.ts), and
//      picks the tools to offer (toolCatalog.ts).
//   3. A slash command runs its handler (commands/*.ts: /context, /compact, /restore); any other
//      request runs the agent (agentRequest.ts → agentLoop.ts: render the prompt, fitting it to the
//      window when it overflows (fitPrompt), ask the model, run its tool calls, repeat), then writes
//      the end of the response (responseEpilogue.ts).
//   4. The returned ChatResult stores this turn's record (requestResult.ts), which step 2 of the
//      next request reads back.
import * as vscode from 'vscode';
import type { Conversation } from '../common/conversation/conversation';
import { ledgerAtRequestStart, type DoneLedger } from '../common/ledger/doneLedger';
import { rebuildConversation } from '../common/persistence/metadata';
import { TOOL_DEFINITIONS_SHARE } from '../common/tools/toolSelection';
import { summaryBudget } from '../common/tokens/budget';
import { PromptRejectedError, PromptTooLargeError } from './agentLoop';
import { budgetFor } from './requestBudget';
import { agentRequest } from './agentRequest';
import type { HandledRequest } from './api';
import { compactCommand } from './commands/compactCommand';
import { contextCommand } from './commands/contextCommand';
import { restoreCommand } from './commands/restoreCommand';
import type { CommandHandler, RequestContext } from './commands/requestContext';
import { readChatHistory } from './historyReader';
import { readInstructionFiles } from './instructionFiles';
import { meterReading, type ContextMeter } from './contextMeter';
import type { ChatMemory } from './chatMemory';
import { resolveSummarizer, withSummarizerKind } from './summarizerModel';
import { log, logWhenChanged } from './log';
import { PARTICIPANT_ID } from './participantId';
import { recordingStream, type RecordedPart } from './recordingStream';
import { ProviderUnavailableError } from './modelCall';
import { loadBashParser } from '../common/shell/bashParser';
import { resultFor, type LonghaulResultMetadata } from './requestResult';
import { newRequestState } from './requestState';
import { readSettings } from './settings';
import type { LonghaulTelemetry } from './telemetry';
import type { TokenCalibration } from './tokenCalibration';
import type { CarriedJobs, ProviderSlots, SummarySpeeds } from './backgroundSummary';
import { countTokens } from '../common/tokens/tokenizer';
import type { SummaryDocuments } from './summaryDocuments';
import type { SummaryEditStore } from './summaryEdits';
import { runnerHere, selectTools, toChatTools } from './toolCatalog';
import { SummarizingLines } from './summarizingProgress';

export { PARTICIPANT_ID };

/** The slash commands (declared in package.json), by name. */
const COMMANDS: Readonly<Record<string, CommandHandler>> = {
	context: contextCommand,
	compact: compactCommand,
	restore: restoreCommand,
};

/**
 * What lives as long as the extension and every request uses: created once in `activate`
 * (src/extension.ts) and disposed with it. Long-lived state of the agent has its home here, never
 * in a module's own variables (test/unit/architecture.test.ts keeps it so).
 */
export interface Services {
	readonly telemetry: LonghaulTelemetry;
	readonly calibration: TokenCalibration;
	/** Summary edits saved since the last request (summaryEdits.ts). */
	readonly edits: SummaryEditStore;
	readonly meter: ContextMeter;
	/** The learned speed of each model's summaries (backgroundSummary.ts). */
	readonly speeds: SummarySpeeds;
	readonly slots: ProviderSlots;
	/** The background job a request handed over to the next one of its chat (backgroundSummary.ts). */
	readonly carried: CarriedJobs;
	/** The summaries this window can open as documents (summaryDocuments.ts). */
	readonly documents: SummaryDocuments;
	/** What each chat's last request left set aside, and whether it was told its summarizer is missing (chatMemory.ts). */
	readonly chats: ChatMemory;
}

export function createParticipant(context: vscode.ExtensionContext, services: Services, onHandled: (handled: HandledRequest) => void): vscode.ChatParticipant {
	const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, async (request, chatContext, stream, token) => {
		const parts: RecordedPart[] = [];
		const recording = recordingStream(stream, part => parts.push(part));
		// Tool invocations show in the response as parts of their own (they end a run of text, like buttons).
		const invokeTool: typeof vscode.lm.invokeTool = (name, options, callToken) => {
			parts.push({ kind: 'tool', text: '' });
			return vscode.lm.invokeTool(name, options, callToken);
		};
		// The meter spins from a "Summarizing…" progress message until the next text.
		const lines = new SummarizingLines();
		const summarizing = () => {
			const last = parts.map(p => p.kind === 'progress' || p.kind === 'markdown').lastIndexOf(true);
			return last >= 0 && parts[last].kind === 'progress' && lines.has(parts[last].text);
		};
		const result = await handleRequest(request, chatContext, recording, token, services, { invokeTool, lines, summarizing });
		onHandled({
			prompt: request.prompt,
			command: request.command,
			markdown: parts.flatMap(p => (p.kind === 'markdown' ? [p.text] : [])).join(''),
			buttons: parts.flatMap(p => (p.command ? [p.command] : [])),
			parts: parts.map(p => ({ kind: p.kind, text: p.kind === 'markdown' ? p.text : '' })),
			progress: parts.flatMap(p => (p.kind === 'progress' ? [p.text] : [])),
			metadata: result.metadata,
			errorMessage: result.errorDetails?.message,
		});
		return result;
	});
	participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.png');
	participant.followupProvider = {
		provideFollowups(result) {
			const record = (result.metadata as LonghaulResultMetadata | undefined)?.longhaul as { maxToolCallsExceeded?: boolean } | undefined;
			return record?.maxToolCallsExceeded ? [{ prompt: 'Continue where you stopped.', label: vscode.l10n.t('Continue'), participant: PARTICIPANT_ID }] : [];
		},
	};
	return participant;
}

/** What the participant's handler gives each request: the tool invoker that records, and the progress lines that mean "summarizing". */
interface RequestHooks {
	readonly invokeTool: typeof vscode.lm.invokeTool;
	readonly lines: SummarizingLines;
	/** True while the newest part of the response is a summarizing line. */
	readonly summarizing: () => boolean;
}

async function handleRequest(
	request: vscode.ChatRequest,
	chatContext: vscode.ChatContext,
	stream: vscode.ChatResponseStream,
	token: vscode.CancellationToken,
	services: Services,
	hooks: RequestHooks,
): Promise<vscode.ChatResult> {
	// The done-ledger reads shell command lines with the bash parser; it is loaded at activation, awaited here once.
	await loadBashParser();
	const ctx = await requestContext(request, chatContext, stream, token, services, hooks);
	const { state, settings } = ctx;
	const command = request.command ? COMMANDS[request.command] : undefined;
	const watching = services.meter.watch(state, hooks.summarizing, () => meterReading(ctx));
	try {
		await useSavedEdits(ctx, services.edits);
		return await (command ?? agentRequest)(ctx);
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
		return resultFor(state, settings, { errorMessage: message, refused: error instanceof PromptTooLargeError });
	} finally {
		watching.dispose();
		// /context only reads the chat: what the last agent request left set aside still stands.
		if (request.command !== 'context') services.chats.noteSetAside(state.conversation);
		await meterReading(ctx).then(
			reading => services.meter.show(reading),
			error => log().info(`context meter not updated: ${error instanceof Error ? error.name : 'error'}`),
		);
	}
}

/** What the request's handler works with: the settings, the conversation so far, the tools, the instruction files, the summarizer. */
async function requestContext(
	request: vscode.ChatRequest,
	chatContext: vscode.ChatContext,
	stream: vscode.ChatResponseStream,
	token: vscode.CancellationToken,
	services: Services,
	{ invokeTool, lines }: RequestHooks,
): Promise<RequestContext> {
	const settings = readSettings(request.model);
	const past = pastConversation(chatContext, request.command ? undefined : request.prompt);
	const state = newRequestState(past.conversation, past.ledger);
	const ratio = services.calibration.ratio(request.model);
	state.tokenRatio.start = state.tokenRatio.end = ratio;
	const runner = await runnerHere(vscode.lm.tools, vscode.workspace.isTrusted);
	logWhenChanged('runner', `commands: ${runner.runner}; withheld: ${[...runner.withheld].join(', ') || 'none'}`);
	const selection = selectTools(vscode.lm.tools, {
		trusted: vscode.workspace.isTrusted,
		withheld: runner.withheld,
		// The model's whole window in local tokens; selectTools keeps the definitions within TOOL_DEFINITIONS_SHARE of it.
		maxInputTokens: Math.floor(request.model.maxInputTokens / ratio),
		attached: new Set(request.toolReferences.map(t => t.name)),
	});
	// The same list at every request of a long session: logged when it changes.
	logWhenChanged(
		'tools',
		selection.leftOut.length
			? `tools: ${selection.tools.length} offered, ${selection.leftOut.length} left out to keep definitions within ${TOOL_DEFINITIONS_SHARE * 100}% of the window: ${selection.leftOut.join(', ')}`
			: `tools: all ${selection.tools.length} offered`,
	);
	const instructions = await readInstructionFiles(settings.instructionFiles);
	const summarizer = await resolveSummarizer(settings.summarizerModel, request.model, services.calibration);
	if (summarizer.kind === 'setting' && summarizer.model) state.summarizerModel = `${summarizer.model.model.vendor}/${summarizer.model.model.id}`;
	return {
		request,
		stream,
		token,
		state,
		settings,
		tools: selection.tools,
		toolsLeftOut: selection.leftOut,
		ratio,
		instructions,
		summarizer,
		invokeTool,
		calibration: services.calibration,
		speeds: services.speeds,
		slots: services.slots,
		carried: services.carried,
		documents: services.documents,
		chats: services.chats,
		summarizing: lines,
		// Every summarization event says which model wrote it.
		telemetry: withSummarizerKind(services.telemetry, summarizer.kind),
	};
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
	// Command turns (/compact, /context, /restore) carry summaries but are not part of the conversation.
	const kept = conversation.turns.map((turn, i) => ({ turn, ledger: doneLedgers[i] })).filter(({ turn }) => turn.user !== '' || turn.rounds.length > 0);
	const turns = kept.map(k => k.turn);
	const pastLedgers = kept.map(k => k.ledger);
	return { conversation: { turns, activeRounds: conversation.activeRounds }, ledger: ledgerAtRequestStart(turns, pastLedgers, request) };
}

/**
 * The summary edits the user saved since the last request, for blocks of this chat: in use from
 * this request on and stored in its record (summaryEdits.ts). Saves are checked against the
 * summary budget of this request's model, which is also what the next save is checked against.
 */
async function useSavedEdits(ctx: RequestContext, edits: SummaryEditStore): Promise<void> {
	const limit = summaryBudget(budgetFor(ctx.request.model, toChatTools(ctx.tools), ctx.ratio));
	ctx.documents.noteSummaryLimit(limit);
	const used = await edits.applyTo(ctx.state.conversation, limit, countTokens);
	ctx.state.conversation = used.conversation;
	ctx.state.newSummaries.push(...used.blocks);
	for (const edit of used.applied) ctx.documents.editApplied(edit.roundId, edit.text);
	for (const message of used.messages) ctx.stream.markdown(`*${message}*\n\n`);
}

function describeError(error: unknown): string {
	if (error instanceof vscode.LanguageModelError) {
		return vscode.l10n.t(
			'The model could not answer ({0}): {1}. Your conversation is kept; try again or pick another model.',
			error.code || error.name,
			error.message,
		);
	}
	return vscode.l10n.t('Longhaul hit an error: {0}. Your conversation is kept; try again.', error instanceof Error ? error.message : String(error));
}
