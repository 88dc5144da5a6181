import * as vscode from 'vscode';
import { resolveInsideRoots } from './pathGuard';
import { textResult, workspaceRoots } from './workspaceRoots';

interface FindFilesInput {
	pattern: string;
	maxResults?: number;
}

export const SEARCH_EXCLUDE = '**/{node_modules,.git,dist,out,.vscode-test}/**';

/**
 * Finds workspace files by glob pattern. VS Code's file search follows symbolic links, so every
 * result goes through the path guard: files reached through a link that leads outside are left out.
 */
export const findFilesTool: vscode.LanguageModelTool<FindFilesInput> = {
	prepareInvocation(options) {
		return { invocationMessage: vscode.l10n.t('Finding files matching {0}', String(options.input.pattern)) };
	},
	async invoke(options, token) {
		const requested = Number(options.input.maxResults ?? 200);
		const max = Math.min(Math.max(1, Number.isFinite(requested) ? Math.floor(requested) : 200), 1000);
		const roots = workspaceRoots();
		const found = await vscode.workspace.findFiles(options.input.pattern, SEARCH_EXCLUDE, max + 1, token);
		const uris = found.filter(u => u.scheme === 'file' && resolveInsideRoots(roots, u.fsPath).ok);
		const left = found.length - uris.length;
		const paths = uris.map(u => vscode.workspace.asRelativePath(u, false)).sort();
		const more = paths.length > max ? `\n[more than ${max} matches; narrow the pattern]` : '';
		const outside = left > 0 ? `\n[${left} match(es) left out: they lead outside the workspace folders]` : '';
		return textResult(`${Math.min(paths.length, max)} file(s) match ${options.input.pattern}\n${paths.slice(0, max).join('\n')}${more}${outside}`);
	},
};
