import * as vscode from 'vscode';
import type { HandledRequest } from './api';
import { readSettings } from './settings';

export const PARTICIPANT_ID = 'longhaul.agent';

/** What every Longhaul response stores in `ChatResult.metadata`. */
export interface LonghaulResultMetadata {
	readonly summarizationMode: string;
}

export function createParticipant(
	context: vscode.ExtensionContext,
	onHandled: (handled: HandledRequest) => void,
): vscode.ChatParticipant {
	const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, async (request, chatContext, stream, token) => {
		let markdown = '';
		const recording: vscode.ChatResponseStream = Object.create(stream);
		recording.markdown = (value: string | vscode.MarkdownString) => {
			markdown += typeof value === 'string' ? value : value.value;
			stream.markdown(value);
		};
		const result = await handleRequest(request, chatContext, recording, token);
		onHandled({ prompt: request.prompt, command: request.command, markdown, metadata: result.metadata, errorMessage: result.errorDetails?.message });
		return result;
	});
	participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.png');
	return participant;
}

async function handleRequest(
	request: vscode.ChatRequest,
	_chatContext: vscode.ChatContext,
	stream: vscode.ChatResponseStream,
	token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
	const settings = readSettings();
	const metadata: LonghaulResultMetadata = { summarizationMode: settings.summarizationMode };

	if (request.command === 'compact' || request.command === 'context') {
		stream.markdown(`\`/${request.command}\` is not implemented yet.`);
		return { metadata };
	}

	const messages = [vscode.LanguageModelChatMessage.User(request.prompt)];
	const response = await request.model.sendRequest(messages, {}, token);
	for await (const chunk of response.text) {
		stream.markdown(chunk);
	}
	return { metadata };
}
