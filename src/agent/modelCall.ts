import * as vscode from 'vscode';

export interface RequestedToolCall {
	readonly callId: string;
	readonly name: string;
	readonly input: object;
}

export interface ModelReply {
	readonly text: string;
	readonly toolCalls: RequestedToolCall[];
}

/**
 * Sends one request and reads the whole reply: text is handed to `onText` as it streams,
 * tool calls are collected.
 */
export async function callModel(
	model: vscode.LanguageModelChat,
	messages: vscode.LanguageModelChatMessage[],
	options: vscode.LanguageModelChatRequestOptions,
	token: vscode.CancellationToken,
	onText?: (text: string) => void,
): Promise<ModelReply> {
	const response = await model.sendRequest(messages, options, token);
	let text = '';
	const toolCalls: RequestedToolCall[] = [];
	for await (const part of response.stream) {
		if (part instanceof vscode.LanguageModelTextPart) {
			text += part.value;
			onText?.(part.value);
		} else if (part instanceof vscode.LanguageModelToolCallPart) {
			toolCalls.push({ callId: part.callId, name: part.name, input: part.input });
		}
	}
	return { text, toolCalls };
}

/**
 * A non-streaming call for the summarizer: temperature 0 where the model accepts it. Some
 * providers reject unknown options, so a failure other than a language-model error of a
 * known kind is retried once without them.
 */
export async function callModelQuietly(
	model: vscode.LanguageModelChat,
	messages: vscode.LanguageModelChatMessage[],
	token: vscode.CancellationToken,
): Promise<string> {
	try {
		return (
			await callModel(
				model,
				messages,
				{ modelOptions: { temperature: 0 }, justification: 'Longhaul summarizes older parts of the conversation to keep it within the context window.' },
				token,
			)
		).text;
	} catch (error) {
		if (token.isCancellationRequested || error instanceof vscode.LanguageModelError) {
			throw error;
		}
		return (await callModel(model, messages, {}, token)).text;
	}
}
