import * as vscode from 'vscode';
import { resolveInsideRoots } from './pathGuard';

/** File-system paths of the open workspace folders (only `file:` folders can be guarded). */
export function workspaceRoots(): string[] {
	return (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file').map(f => f.uri.fsPath);
}

/** Resolves a model-given path inside the workspace or throws an error the model can read. */
export function resolveWorkspacePath(input: unknown): string {
	const resolved = resolveInsideRoots(workspaceRoots(), typeof input === 'string' ? input : '');
	if (!resolved.ok) {
		throw new Error(resolved.reason);
	}
	return resolved.path;
}

export function textResult(text: string): vscode.LanguageModelToolResult {
	return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/** Path relative to the first workspace folder, for messages. */
export function displayPath(fsPath: string): string {
	return vscode.workspace.asRelativePath(fsPath, false);
}
