import * as vscode from 'vscode';
import { textResult } from './workspaceRoots';

interface FindFilesInput {
	pattern: string;
	maxResults?: number;
}

export const SEARCH_EXCLUDE = '**/{node_modules,.git,dist,out,.vscode-test}/**';

/** Finds workspace files by glob pattern (VS Code's own file search, so it never leaves the workspace). */
export const findFilesTool: vscode.LanguageModelTool<FindFilesInput> = {
	prepareInvocation(options) {
		return { invocationMessage: `Finding files matching ${options.input.pattern}` };
	},
	async invoke(options, token) {
		const max = Math.min(Math.max(1, options.input.maxResults ?? 200), 1000);
		const uris = await vscode.workspace.findFiles(options.input.pattern, SEARCH_EXCLUDE, max + 1, token);
		const paths = uris.map(u => vscode.workspace.asRelativePath(u, false)).sort();
		const more = paths.length > max ? `\n[more than ${max} matches; narrow the pattern]` : '';
		return textResult(`${Math.min(paths.length, max)} file(s) match ${options.input.pattern}\n${paths.slice(0, max).join('\n')}${more}`);
	},
};
