import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { cutMiddle } from '../common/shrinking/cutText';
import { displayPath, resolveWorkspacePath, textResult } from './workspaceRoots';

interface ReadFileInput {
	path: string;
	startLine?: number;
	endLine?: number;
}

const MAX_CHARS = 60_000;

/** Reads a text file, optionally a 1-based inclusive line range, with line numbers. */
export const readFileTool: vscode.LanguageModelTool<ReadFileInput> = {
	prepareInvocation(options) {
		return { invocationMessage: `Reading ${options.input.path}` };
	},
	async invoke(options) {
		const file = resolveWorkspacePath(options.input.path);
		const content = await fs.readFile(file, 'utf8');
		const lines = content.split('\n');
		const start = Math.max(1, Math.floor(options.input.startLine ?? 1));
		const end = Math.min(lines.length, Math.floor(options.input.endLine ?? lines.length));
		if (start > lines.length) {
			return textResult(`${displayPath(file)} has ${lines.length} lines; line ${start} does not exist.`);
		}
		const numbered = lines
			.slice(start - 1, end)
			.map((line, i) => `${start + i}: ${line}`)
			.join('\n');
		return textResult(`${displayPath(file)} lines ${start}-${end} of ${lines.length}\n${cutMiddle(numbered, MAX_CHARS)}`);
	},
};
