import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { SEARCH_EXCLUDE } from './findFiles';
import { textResult } from './workspaceRoots';

interface SearchTextInput {
	query: string;
	isRegexp?: boolean;
	include?: string;
	maxResults?: number;
}

const MAX_FILES = 5000;
const MAX_FILE_BYTES = 1_000_000;

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Searches the text of workspace files; answers `path:line: text` lines. */
export const searchTextTool: vscode.LanguageModelTool<SearchTextInput> = {
	prepareInvocation(options) {
		return { invocationMessage: `Searching for ${options.input.query}` };
	},
	async invoke(options, token) {
		const { query, isRegexp, include } = options.input;
		const max = Math.min(Math.max(1, options.input.maxResults ?? 100), 500);
		let pattern: RegExp;
		try {
			pattern = new RegExp(isRegexp ? query : escapeRegExp(query), 'i');
		} catch (error) {
			return textResult(`Invalid regular expression ${query}: ${(error as Error).message}`);
		}
		const uris = await vscode.workspace.findFiles(include || '**/*', SEARCH_EXCLUDE, MAX_FILES, token);
		uris.sort((a, b) => a.fsPath.localeCompare(b.fsPath));
		const hits: string[] = [];
		for (const uri of uris) {
			if (token.isCancellationRequested || hits.length > max) {
				break;
			}
			const stat = await fs.stat(uri.fsPath).catch(() => undefined);
			if (!stat || stat.size > MAX_FILE_BYTES) {
				continue;
			}
			const content = await fs.readFile(uri.fsPath, 'utf8').catch(() => '');
			if (content.includes('\0')) {
				continue;
			}
			const lines = content.split('\n');
			for (let i = 0; i < lines.length && hits.length <= max; i++) {
				if (pattern.test(lines[i])) {
					hits.push(`${vscode.workspace.asRelativePath(uri, false)}:${i + 1}: ${lines[i].slice(0, 300)}`);
				}
			}
		}
		const more = hits.length > max ? `\n[more than ${max} matches; narrow the search]` : '';
		return textResult(`${Math.min(hits.length, max)} match(es) for ${query}\n${hits.slice(0, max).join('\n')}${more}`);
	},
};
