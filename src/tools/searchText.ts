import * as vscode from 'vscode';
import { SEARCH_EXCLUDE } from './findFiles';
import { searchInWorker } from './textSearch';
import { textResult, workspaceRoots } from './workspaceRoots';

interface SearchTextInput {
	query: string;
	isRegexp?: boolean;
	include?: string;
	maxResults?: number;
}

const MAX_FILES = 5000;
const MAX_FILE_BYTES = 1_000_000;
/** The search stops here and answers with what it found. */
const SEARCH_TIME_LIMIT_MS = 30_000;

/**
 * Searches the text of workspace files; answers `path:line: text` lines. Every file goes through
 * the path guard, and the matching runs on RE2 in a worker thread (src/tools/textSearch.ts).
 */
export const searchTextTool: vscode.LanguageModelTool<SearchTextInput> = {
	prepareInvocation(options) {
		return { invocationMessage: vscode.l10n.t('Searching for {0}', String(options.input.query)) };
	},
	async invoke(options, token) {
		const { query, isRegexp, include } = options.input;
		const requested = Number(options.input.maxResults ?? 100);
		const max = Math.min(Math.max(1, Number.isFinite(requested) ? Math.floor(requested) : 100), 500);
		const uris = await vscode.workspace.findFiles(include || '**/*', SEARCH_EXCLUDE, MAX_FILES, token);
		uris.sort((a, b) => a.fsPath.localeCompare(b.fsPath));
		const shown = new Map(uris.map(uri => [uri.fsPath, vscode.workspace.asRelativePath(uri, false)]));
		const cancel = new AbortController();
		const subscription = token.onCancellationRequested(() => cancel.abort());
		if (token.isCancellationRequested) cancel.abort();
		const result = await searchInWorker(
			{ roots: workspaceRoots(), files: uris.map(u => u.fsPath), query, isRegexp: isRegexp === true, maxHits: max, maxFileBytes: MAX_FILE_BYTES },
			{ timeLimitMs: SEARCH_TIME_LIMIT_MS, signal: cancel.signal },
		).finally(() => subscription.dispose());
		if (result.error) {
			return textResult(result.error);
		}
		const names = (files: readonly string[] | undefined, count: number) =>
			files?.length ? `: ${files.map(f => shown.get(f) ?? f).join(', ')}${count > files.length ? `, and ${count - files.length} more` : ''}` : '';
		const hits = result.hits.map(h => `${shown.get(h.file) ?? h.file}:${h.line}: ${h.text}`);
		const notes = [
			hits.length > max ? `[more than ${max} matches; narrow the search]` : '',
			result.stopped === 'time' ? `[the search stopped after ${SEARCH_TIME_LIMIT_MS / 1000} s; narrow include or the pattern]` : '',
			result.stopped === 'cancel' ? '[the search was cancelled]' : '',
			result.refused > 0
				? `[${result.refused} file(s) skipped: they lead outside the workspace folders, are not regular files, or have more than one hard link]`
				: '',
			result.tooLarge > 0
				? `[${result.tooLarge} file(s) over ${MAX_FILE_BYTES} bytes were not searched${names(result.skippedNames?.tooLarge, result.tooLarge)}; search them with a command such as grep]`
				: '',
			result.binary > 0 ? `[${result.binary} binary file(s) (holding a NUL byte) were not searched${names(result.skippedNames?.binary, result.binary)}]` : '',
		].filter(Boolean);
		return textResult(`${Math.min(hits.length, max)} match(es) for ${query}\n${hits.slice(0, max).join('\n')}${notes.length ? `\n${notes.join('\n')}` : ''}`);
	},
};
