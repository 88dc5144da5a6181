// The agent's model call with its one retry after a provider refused the prompt as too long: the
// rule is sendWithOneRefit (src/common/fitting/refusal.ts, shared with the replay benchmark); this
// file gives it the vscode model, the calibration and the user-visible line.
import * as vscode from 'vscode';
import { retryMessageBudget, sendWithOneRefit } from '../common/fitting/refusal';
import { recognizePromptTooLong, type PromptTooLong } from '../common/tokens/promptTooLong';
import type { PromptBudget } from '../common/tokens/budget';
import { callModel, type ModelReply } from './modelCall';
import type { ChatPrompt } from './promptRendering';
import type { TokenCalibration } from './tokenCalibration';

/**
 * The provider rejected a step as too long twice: once, then again after Longhaul recounted with
 * the ratio the error implied and made the prompt fit that count.
 */
export class PromptRejectedError extends Error {
	constructor(
		readonly rejection: PromptTooLong,
		readonly ratio: number,
	) {
		super(
			vscode.l10n.t(
				'The model refused the request as too long twice ({0}), even after Longhaul counted {1} model tokens per local token and shortened the conversation to match. Nothing was lost: send your message again, run /compact, or pick a model with a larger window.',
				rejectionNumbers(rejection),
				ratio.toFixed(2),
			),
		);
		this.name = 'PromptRejectedError';
	}
}

export function rejectionNumbers(rejection: PromptTooLong): string {
	if (rejection.promptTokens && rejection.limit) {
		return vscode.l10n.t('its count {0} tokens, limit {1}', rejection.promptTokens.toLocaleString('en-US'), rejection.limit.toLocaleString('en-US'));
	}
	// The provider's own words, on one line (Copilot's wrapper adds a line break and "Error").
	return `"${rejection.text.split('\n')[0].slice(0, 120)}"`;
}

export interface ModelStep {
	readonly model: vscode.LanguageModelChat;
	readonly tools: vscode.LanguageModelChatTool[];
	readonly stream: vscode.ChatResponseStream;
	readonly token: vscode.CancellationToken;
	readonly calibration: TokenCalibration;
	/** The request's budget now (it tightens when the ratio does). */
	budget(): PromptBudget;
	/** The prompt made to fit again within `messageBudget` tokens (summarizing if it must). */
	refit(messageBudget: number): Promise<ChatPrompt>;
	/** Called after every refusal, when the ratio has moved. */
	onRatioChanged(): void;
	/** Called when a refused step is refitted to be sent again. */
	onRetry(): void;
}

/** Sends the prompt, streaming the model's text to the chat; one refit and resend after a refusal as too long. */
export function askModel(step: ModelStep, prompt: ChatPrompt): Promise<ModelReply> {
	let ratioBefore = step.budget().ratio;
	return sendWithOneRefit<ChatPrompt, ModelReply>(prompt, {
		send: async (sent, streamed) => {
			return callModel(
				step.model,
				sent.messages,
				{ tools: step.tools, justification: 'Longhaul runs an agent session with this model.' },
				step.token,
				text => {
					streamed();
					step.stream.markdown(text);
				},
				// A rate-limited call of this request says in the chat that it waits.
				text => step.stream.progress(text),
			);
		},
		recognize: recognizePromptTooLong,
		isCancelled: () => step.token.isCancellationRequested,
		rejected: (refusal, sent) => {
			ratioBefore = step.budget().ratio;
			const ratio = step.calibration.rejected(step.model, refusal, sent.tokenCount + step.budget().toolTokens);
			step.onRatioChanged();
			return ratio;
		},
		refit: (sent, refusal, ratio) => {
			step.onRetry();
			const notice = vscode.l10n.t(
				'The model refused the prompt as too long ({0}). Longhaul now counts {1} model tokens per local token for it, made the prompt fit that count and sent this step again.',
				rejectionNumbers(refusal),
				ratio.toFixed(2),
			);
			step.stream.markdown(`\n\n*${notice}*\n\n`);
			return step.refit(retryMessageBudget(sent.tokenCount, ratioBefore, ratio, step.budget().messages));
		},
		giveUp: (refusal, ratio) => new PromptRejectedError(refusal, ratio),
	});
}
