import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { displayPath, resolveWorkspacePath, textResult } from './workspaceRoots';

interface ListDirectoryInput {
	path?: string;
}

const MAX_ENTRIES = 500;

/** Lists a folder: sub-folders end with `/`. */
export const listDirectoryTool: vscode.LanguageModelTool<ListDirectoryInput> = {
	prepareInvocation(options) {
		return { invocationMessage: `Listing ${options.input.path || '.'}` };
	},
	async invoke(options) {
		const dir = resolveWorkspacePath(options.input.path || '.');
		const entries = await fs.readdir(dir, { withFileTypes: true });
		const names = entries.map(e => (e.isDirectory() ? `${e.name}/` : e.name)).sort((a, b) => a.localeCompare(b));
		const shown = names.slice(0, MAX_ENTRIES).join('\n');
		const more = names.length > MAX_ENTRIES ? `\n[... ${names.length - MAX_ENTRIES} more entries]` : '';
		return textResult(`${displayPath(dir) || '.'}: ${names.length} entries\n${shown}${more}`);
	},
};
