import * as vscode from 'vscode';
import { cutMiddle } from '../common/shrinking/cutText';
import { readInside } from './safeFs';
import { displayPath, textResult, workspaceRoots } from './workspaceRoots';

interface ReadFileInput {
	path: string;
	startLine?: number;
	endLine?: number;
}

const MAX_CHARS = 60_000;
/** Larger files are refused (search them, or read a part with a command). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

/** A whole line number from what the model sent, or `fallback` (NaN, text and the like). */
function lineNumber(value: unknown, fallback: number): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof n === 'number' && Number.isFinite(n) ? Math.floor(n) : fallback;
}

/** Reads a text file, optionally a 1-based inclusive line range, with line numbers. */
export const readFileTool: vscode.LanguageModelTool<ReadFileInput> = {
	prepareInvocation(options) {
		return { invocationMessage: `Reading ${options.input.path}` };
	},
	async invoke(options) {
		// Only a single-link regular file that is really inside the workspace (src/tools/safeFs.ts).
		const read = await readInside(workspaceRoots(), options.input.path, MAX_READ_BYTES);
		if (!read.ok) {
			throw new Error(read.reason);
		}
		const file = read.path;
		const lines = read.data.toString('utf8').split('\n');
		const start = Math.max(1, lineNumber(options.input.startLine, 1));
		const end = Math.min(lines.length, lineNumber(options.input.endLine, lines.length));
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
