// One model request, as every caller (agent step, summarizer, condense) sends it: provider state
// the model can use is sent back (providerStateParts.ts), a rate limit is waited out with backoff
// and the request sent again (bounded, cancellable, a progress line in the chat), and a failure
// that waiting does not cure (quota, blocked, no permission, model gone) becomes a
// ProviderUnavailableError, which ends the request with a clear message and keeps the
// conversation (src/common/provider/providerErrors.ts). "Prompt too long" and other errors pass
// through unchanged for the caller's own handling.
import * as vscode from 'vscode';
import { RATE_LIMIT_BACKOFF, describeWait, nextBackoff } from '../common/provider/backoff';
import { sendWithQuietRetry } from '../common/provider/quietRetry';
import { classifyProviderFailure, failureMessage, type ProviderFailure } from '../common/provider/providerErrors';
import type { ProviderState } from '../common/provider/providerState';
import { modelKey } from '../common/tokens/calibration';
import { recognizePromptTooLong } from '../common/tokens/promptTooLong';
import { log } from './log';
import { replyState, withSendableState } from './providerStateParts';

export interface RequestedToolCall {
	readonly callId: string;
	readonly name: string;
	readonly input: object;
}

export interface ModelReply {
	readonly text: string;
	readonly toolCalls: RequestedToolCall[];
	/** Data parts the provider attached for itself, to keep with the round (providerState.ts). */
	readonly providerState?: ProviderState;
}

/** A failure of the provider that waiting a few seconds does not cure; its message says what to do. */
export class ProviderUnavailableError extends Error {
	constructor(
		readonly failure: ProviderFailure,
		readonly original: unknown,
		waited?: { readonly tries: number; readonly ms: number },
	) {
		super(failureMessage(failure, waited));
		this.name = 'ProviderUnavailableError';
	}
}

/** Resolves true after `ms`, or false as soon as `token` is cancelled. */
function pause(ms: number, token: vscode.CancellationToken): Promise<boolean> {
	return new Promise(resolve => {
		if (token.isCancellationRequested) return resolve(false);
		const listener = token.onCancellationRequested(() => {
			clearTimeout(timer);
			listener.dispose();
			resolve(false);
		});
		const timer = setTimeout(() => {
			listener.dispose();
			resolve(true);
		}, ms);
	});
}

/**
 * Sends one request and reads the whole reply: text is handed to `onText` as it streams, tool
 * calls and provider state are collected. Rate limits are retried only while nothing has streamed,
 * so no text is shown twice.
 */
export async function callModel(
	model: vscode.LanguageModelChat,
	messages: vscode.LanguageModelChatMessage[],
	options: vscode.LanguageModelChatRequestOptions,
	token: vscode.CancellationToken,
	onText?: (text: string) => void,
	/** Where a wait for a rate limit is shown (the chat request's progress); calls of a background summary wait without a line. */
	onWait?: (text: string) => void,
): Promise<ModelReply> {
	const key = modelKey(model);
	const prepared = withSendableState(key, messages);
	let waitedMs = 0;
	for (let retries = 0; ; retries++) {
		let streamed = false;
		try {
			return await sendOnce(model, key, prepared, options, token, text => {
				streamed = true;
				onText?.(text);
			});
		} catch (error) {
			if (token.isCancellationRequested || recognizePromptTooLong(error)) throw error;
			const failure = classifyProviderFailure(error);
			if (!failure) throw error;
			// A rate limit is retried only while nothing has streamed; the others end the request either way.
			if (failure.kind === 'rate-limited' && streamed) throw error;
			if (failure.kind !== 'rate-limited') {
				log().info(`model ${key}: ${failure.kind}, the request ends (${failure.text.slice(0, 120)})`);
				throw new ProviderUnavailableError(failure, error);
			}
			const wait = nextBackoff(RATE_LIMIT_BACKOFF, retries, waitedMs, failure.retryAfterMs);
			if (wait === undefined) {
				log().info(`model ${key}: still rate-limited after ${retries + 1} tries and ${Math.round(waitedMs / 1000)} s of waiting, the request ends`);
				throw new ProviderUnavailableError(failure, error, { tries: retries + 1, ms: waitedMs });
			}
			log().info(`model ${key}: rate-limited, retry ${retries + 1} of ${RATE_LIMIT_BACKOFF.maxRetries} in ${wait} ms`);
			onWait?.(`The model is rate-limited; trying again in ${describeWait(wait)} (retry ${retries + 1} of ${RATE_LIMIT_BACKOFF.maxRetries})…`);
			if (!(await pause(wait, token))) throw new vscode.CancellationError();
			waitedMs += wait;
		}
	}
}

async function sendOnce(
	model: vscode.LanguageModelChat,
	key: string,
	prepared: ReturnType<typeof withSendableState>,
	options: vscode.LanguageModelChatRequestOptions,
	token: vscode.CancellationToken,
	onText: (text: string) => void,
): Promise<ModelReply> {
	const response = await model.sendRequest(prepared.messages, options, token);
	let text = '';
	const toolCalls: RequestedToolCall[] = [];
	const dataParts: vscode.LanguageModelDataPart[] = [];
	for await (const part of response.stream) {
		if (part instanceof vscode.LanguageModelTextPart) {
			text += part.value;
			onText(part.value);
		} else if (part instanceof vscode.LanguageModelToolCallPart) {
			toolCalls.push({ callId: part.callId, name: part.name, input: part.input });
		} else if (part instanceof vscode.LanguageModelDataPart) {
			dataParts.push(part);
		}
	}
	const { state, tooLarge } = replyState(key, prepared.fingerprint, { text, toolCalls }, dataParts);
	if (tooLarge) log().info(`model ${key}: ${tooLarge} data part(s) of the reply not kept (larger than 16 KB)`);
	return { text, toolCalls, ...(state ? { providerState: state } : {}) };
}

/**
 * A non-streaming call for the summarizer: temperature 0 where the model accepts it. Some
 * providers reject unknown options, so a failure other than a language-model error of a
 * known kind (or one of the provider failures above) is retried once without them.
 */
export async function callModelQuietly(
	model: vscode.LanguageModelChat,
	messages: vscode.LanguageModelChatMessage[],
	token: vscode.CancellationToken,
	onWait?: (text: string) => void,
): Promise<string> {
	return sendWithQuietRetry(
		async withOptions =>
			(
				await callModel(
					model,
					messages,
					withOptions
						? { modelOptions: { temperature: 0 }, justification: 'Longhaul summarizes older parts of the conversation to keep it within the context window.' }
						: {},
					token,
					undefined,
					onWait,
				)
			).text,
		error => token.isCancellationRequested || error instanceof vscode.LanguageModelError || error instanceof ProviderUnavailableError,
	);
}
