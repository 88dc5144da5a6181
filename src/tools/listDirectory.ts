import * as vscode from 'vscode';
import { listInside } from './safeFs';
import { displayPath, textResult, workspaceRoots } from './workspaceRoots';

interface ListDirectoryInput {
	path?: string;
}

const MAX_ENTRIES = 500;

/** Lists a folder: sub-folders end with `/`. */
export const listDirectoryTool: vscode.LanguageModelTool<ListDirectoryInput> = {
	prepareInvocation(options) {
		return { invocationMessage: vscode.l10n.t('Listing {0}', String(options.input.path || '.')) };
	},
	async invoke(options) {
		// The folder is opened without following a final link and checked where it really is.
		const listed = await listInside(workspaceRoots(), options.input.path || '.');
		if (!listed.ok) {
			throw new Error(listed.reason);
		}
		const dir = listed.path;
		const names = listed.entries.map(e => (e.isDirectory() ? `${e.name}/` : e.name)).sort((a, b) => a.localeCompare(b));
		const shown = names.slice(0, MAX_ENTRIES).join('\n');
		const more = names.length > MAX_ENTRIES ? `\n[... ${names.length - MAX_ENTRIES} more entries]` : '';
		return textResult(`${displayPath(dir) || '.'}: ${names.length} entries\n${shown}${more}`);
	},
};
