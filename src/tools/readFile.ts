import * as vscode from 'vscode';
import { cutMiddle } from '../common/text/cutText';
import { decodeUtf8Text } from '../common/tools/utf8Text';
import { lineRange } from './lineRange';
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

/** Reads a text file, optionally a 1-based inclusive line range, with line numbers. */
export const readFileTool: vscode.LanguageModelTool<ReadFileInput> = {
	prepareInvocation(options) {
		return { invocationMessage: vscode.l10n.t('Reading {0}', String(options.input.path)) };
	},
	async invoke(options) {
		// Only a single-link regular file that is really inside the workspace (src/tools/safeFs.ts).
		const read = await readInside(workspaceRoots(), options.input.path, MAX_READ_BYTES);
		if (!read.ok) {
			throw new Error(read.reason);
		}
		const file = read.path;
		const lines = read.data.toString('utf8').split('\n');
		const range = lineRange(options.input.startLine, options.input.endLine, lines.length);
		if (!range.ok) {
			return textResult(`${displayPath(file)} ${range.message}`);
		}
		const numbered = lines
			.slice(range.start - 1, range.end)
			.map((line, i) => `${range.start + i}: ${line}`)
			.join('\n');
		// A file that is not UTF-8 text reads with U+FFFD in place of what cannot be decoded: say so.
		const decoded = decodeUtf8Text(read.data);
		const notText = decoded.ok ? '' : `\n[This file ${decoded.reason}: bytes that cannot be read are shown as U+FFFD, and longhaul_editFile will not edit it.]`;
		return textResult(`${displayPath(file)} lines ${range.start}-${range.end} of ${lines.length}${range.note}${notText}\n${cutMiddle(numbered, MAX_CHARS)}`);
	},
};
