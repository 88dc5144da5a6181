// Chat sessions as VS Code exports and imports them (Chat: Export Chat… / Import Chat…), so a test
// can build a history that would take far too long to produce through the UI (2,000 rounds) or that
// the UI never produces (damaged Longhaul metadata), and hand it to Longhaul's real handler: the
// imported session opens in the Chat view and the next request sees it as ChatContext.history.
//   workbench.action.chat.export <uri>                                  writes the focused chat
//   workbench.action.chat.import { inputPath, target: 'chatViewPane' }  opens a session file
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';

/** One request of an exported session; only the fields the tests touch are typed. */
export interface ExportedRequest {
	requestId: string;
	responseId?: string;
	message: { text: string; parts?: unknown[] };
	result?: { metadata?: Record<string, unknown> };
	[key: string]: unknown;
}

export interface ExportedSession {
	requests: ExportedRequest[];
	[key: string]: unknown;
}

function tempFile(name: string): string {
	return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-chat-')), name);
}

/** The chat session shown in the Chat view, as VS Code exports it. */
export async function exportChat(): Promise<ExportedSession> {
	const file = tempFile('exported.chat.json');
	await vscode.commands.executeCommand('workbench.action.chat.export', vscode.Uri.file(file));
	assert.ok(fs.existsSync(file), 'workbench.action.chat.export wrote nothing (is the Chat view focused?)');
	const session = JSON.parse(fs.readFileSync(file, 'utf8')) as ExportedSession;
	assert.ok(Array.isArray(session.requests), `unexpected export format, keys: ${Object.keys(session).join(', ')}`);
	return session;
}

/** Opens `session` in the Chat view; the next chat request continues it. */
export async function importChat(session: ExportedSession): Promise<void> {
	const file = tempFile('imported.chat.json');
	fs.writeFileSync(file, JSON.stringify(session));
	await vscode.commands.executeCommand('workbench.action.chat.import', { inputPath: vscode.Uri.file(file), target: 'chatViewPane' });
}

/**
 * A copy of `request` with new request/response ids and every occurrence of `from` in the whole
 * request (user text, response text, metadata) replaced by `to`; `rewriteMetadata` may then change
 * Longhaul's metadata of the copy.
 */
export function cloneRequest(
	request: ExportedRequest,
	from: string,
	to: string,
	suffix: string,
	rewriteMetadata?: (metadata: Record<string, unknown>) => void,
): ExportedRequest {
	let json = JSON.stringify(request).split(from).join(to);
	for (const id of [request.requestId, request.responseId].filter((x): x is string => !!x)) {
		json = json.split(id).join(`${id}-${suffix}`);
	}
	const copy = JSON.parse(json) as ExportedRequest;
	if (rewriteMetadata && copy.result?.metadata) rewriteMetadata(copy.result.metadata);
	return copy;
}
