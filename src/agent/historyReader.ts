import * as vscode from 'vscode';
import { PARTICIPANT_ID } from './participantId';

/** One of Longhaul's past turns as VS Code stored it: the user's text and our result metadata. */
export interface StoredTurn {
	readonly user: string;
	readonly metadata: unknown;
	/** A slash command turn (`/compact`): it carries summaries but no conversation of its own. */
	readonly command?: string;
}

export interface HistoryRead {
	readonly turns: StoredTurn[];
	/** Turns of other participants, skipped: they are not ours to replay. */
	readonly foreignTurns: number;
}

/** Pairs each of Longhaul's requests in the chat history with its response. */
export function readChatHistory(history: ReadonlyArray<vscode.ChatRequestTurn | vscode.ChatResponseTurn>): HistoryRead {
	const turns: StoredTurn[] = [];
	let foreignTurns = 0;
	for (let i = 0; i < history.length; i++) {
		const request = history[i];
		if (!(request instanceof vscode.ChatRequestTurn)) {
			continue;
		}
		const response = history[i + 1];
		if (request.participant !== PARTICIPANT_ID) {
			foreignTurns++;
			continue;
		}
		const metadata = response instanceof vscode.ChatResponseTurn ? response.result.metadata : undefined;
		turns.push({ user: request.prompt, metadata, command: request.command });
	}
	return { turns, foreignTurns };
}
