import * as vscode from 'vscode';
import { readSettings } from './settings';

export const PARTICIPANT_ID = 'longhaul.agent';

/** What every Longhaul response stores in `ChatResult.metadata`. */
export interface LonghaulResultMetadata {
	readonly summarizationMode: string;
}

export function createParticipant(context: vscode.ExtensionContext): vscode.ChatParticipant {
	const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, handleRequest);
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
