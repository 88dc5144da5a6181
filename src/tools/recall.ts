// longhaul_recall: the agent looks back at the rounds a summary replaced. Inside an @longhaul
// request the agent loop answers it from that request's own conversation (answerRecall), so it
// can never read another chat; anywhere else (another participant's agent calling it) there is
// no Longhaul conversation to read and the registered tool says so.
import * as vscode from 'vscode';
import type { Conversation, Round } from '../common/conversation/conversation';
import { recall, recallAnswerTokens } from '../common/recall/recall';
import { parseRecallInput, RECALL_TOOL_NAME } from '../common/recall/recallInput';
import { searchRecallInWorker } from './recallInWorker';
import { textResult } from './workspaceRoots';

/** How long one recall search may take; it runs in a worker thread, stopped at this limit, so the extension host stays free meanwhile. */
export const RECALL_TIME_LIMIT_MS = 2000;

export interface RecallContext {
	/** The conversation as the prompt shows it (masked and elided results included). */
	readonly conversation: Conversation;
	/** This request's rounds as recorded, by id (recall reads them in place of the masked or elided ones). */
	readonly recorded: ReadonlyMap<string, Round>;
	readonly currentRequest: string;
	readonly messageBudget: number;
	readonly countTokens: (text: string) => number;
	readonly token: vscode.CancellationToken;
}

/** The answer to one recall call made inside an @longhaul request. Never throws for bad input. */
export async function answerRecall(rawInput: unknown, context: RecallContext): Promise<string> {
	const parsed = parseRecallInput(rawInput);
	if ('error' in parsed) return `Error: ${parsed.error}`;
	const cancel = new AbortController();
	const subscription = context.token.onCancellationRequested(() => cancel.abort());
	if (context.token.isCancellationRequested) cancel.abort();
	try {
		return await recall(context.conversation, parsed.input, {
			maxTokens: recallAnswerTokens(context.messageBudget),
			countTokens: context.countTokens,
			currentRequest: context.currentRequest,
			recorded: context.recorded,
			now: () => performance.now(),
			timeLimitMs: RECALL_TIME_LIMIT_MS,
			pause: () => new Promise(resolve => setImmediate(resolve)),
			isCancelled: () => context.token.isCancellationRequested,
			runSearch: job => searchRecallInWorker(job, cancel.signal),
		});
	} finally {
		subscription.dispose();
	}
}

/** What the tool answers when something other than an @longhaul request invokes it. */
export const recallTool: vscode.LanguageModelTool<unknown> = {
	prepareInvocation() {
		return { invocationMessage: vscode.l10n.t('Looking back at summarized rounds') };
	},
	invoke() {
		return textResult(`${RECALL_TOOL_NAME} reads the summarized part of an @longhaul conversation and only works inside @longhaul requests.`);
	},
};
