// A chat request for the agent (no slash command): the agent loop (agentLoop.ts), then the end of
// the response (responseEpilogue.ts): the stop notice, the recap of this response's summaries and
// the token line, text first and buttons last, so the final answer stays in view.
import * as vscode from 'vscode';
import { layoutPrompt } from '../common/conversation/promptLayout';
import { tokenCountLine } from '../common/stats/tokenCountLine';
import { runAgentLoop } from './agentLoop';
import { budgetFor } from './requestBudget';
import { instructionNotices, pinnedFor, withoutInstructionReferences } from './instructionFiles';
import { toChatTools } from './toolCatalog';
import type { RequestContext } from './commands/requestContext';
import { referencesAsText } from './references';
import { resultFor } from './requestResult';
import { ResponseEpilogue } from './responseEpilogue';
import { compactionLine } from '../common/fitting/fitNotices';
import { localize } from './l10n';
import { SUMMARY_SCHEME, summaryRecap } from './summaryDocuments';

export async function agentRequest(ctx: RequestContext): Promise<vscode.ChatResult> {
	const { request, state, settings, stream } = ctx;
	// An open summary document that VS Code attaches as context is already in the prompt, as its block.
	const references = request.references.filter(ref => !(ref.value instanceof vscode.Uri && ref.value.scheme === SUMMARY_SCHEME));
	const attached = withoutInstructionReferences(references, ctx.instructions);
	const attachments = await referencesAsText(attached.references);
	const pinned = pinnedFor(attached.read, budgetFor(request.model, toChatTools(ctx.tools), ctx.ratio).messages);
	for (const notice of instructionNotices(attached.read, pinned)) stream.markdown(`*${notice}*\n\n`);
	await runAgentLoop(ctx, { references: attachments, pinnedInstructions: pinned.text });
	const epilogue = new ResponseEpilogue();
	if (state.maxToolCallsExceeded) {
		epilogue.markdown(`\n\nStopped after ${state.toolCallCount} tool calls (the limit set by \`longhaul.maxToolCallsPerRequest\`). Say "continue" to go on.`);
	}
	const line = compactionLine({
		mode: settings.summarizationMode,
		summaries: state.tally.summarizations,
		keptRounds: state.compaction.keptRounds,
		verbatimRounds: layoutPrompt(state.conversation).filter(entry => entry.kind === 'round').length,
		setAsideSteps: state.compaction.setAsideSteps,
		mostSetAside: state.compaction.mostSetAside,
		masked: state.tally.masking.maskedResults,
		removed: state.tally.elidedResults + state.tally.droppedRounds,
		waitsMs: state.compactionWaitsMs,
	});
	if (line) epilogue.markdown(`\n\n**${localize(line)}.**`);
	// The summarizer-model fallback: once per chat, in the first response that summarized with the chat's model instead.
	const fallback =
		ctx.summarizer.notice && state.tally.summarizations > 0 && ctx.chats.firstFallbackNotice(state.conversation) ? ctx.summarizer.notice : undefined;
	summaryRecap(epilogue, state.madeSummaries, fallback);
	const count = settings.showTokenCount ? promptSizeLine(ctx) : undefined;
	if (count) epilogue.markdown(`\n\n${count}`);
	epilogue.write(stream);
	return resultFor(state, settings);
}

/** `longhaul.showTokenCount`'s line: the last prompt's size against the window, in the model's tokens when a ratio is in use. */
function promptSizeLine({ state, request }: RequestContext): string | undefined {
	if (state.lastPromptTokens === undefined) return undefined;
	const summaryBlocks = layoutPrompt(state.conversation).filter(entry => entry.kind === 'summary').length;
	const promptRatio = state.lastPromptRatio ?? 1;
	const calibrated = promptRatio > 1;
	return tokenCountLine({
		promptTokens: calibrated ? Math.round(state.lastPromptTokens * promptRatio) : state.lastPromptTokens,
		windowTokens: request.model.maxInputTokens,
		summaryBlocks,
		...(calibrated ? { calibrationRatio: promptRatio } : {}),
	});
}
