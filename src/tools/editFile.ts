import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { displayPath, resolveWorkspacePath, textResult } from './workspaceRoots';

interface EditFileInput {
	path: string;
	/** Exact text to replace; it must occur exactly once. Omit it to create a new file. */
	oldText?: string;
	newText: string;
	/** With no oldText: replace an existing file's whole content. */
	overwrite?: boolean;
}

function requireTrust(): void {
	if (!vscode.workspace.isTrusted) {
		throw new Error('This workspace is not trusted; Longhaul does not change files in it.');
	}
}

function countOccurrences(text: string, needle: string): number {
	let count = 0;
	for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
		count++;
	}
	return count;
}

/** Creates a file, or replaces one exact occurrence of a text in it. Asks the user first. */
export const editFileTool: vscode.LanguageModelTool<EditFileInput> = {
	prepareInvocation(options) {
		const { input } = options;
		// Refuse before asking: the user is never asked to confirm a write that would be refused.
		requireTrust();
		const shown = displayPath(resolveWorkspacePath(input.path));
		if (typeof input.newText !== 'string') {
			throw new Error('newText must be a string.');
		}
		const what = input.oldText === undefined ? (input.overwrite ? 'Overwrite' : 'Create') : 'Edit';
		return {
			invocationMessage: `${what} ${shown}`,
			confirmationMessages: {
				title: `${what} ${shown}?`,
				message: new vscode.MarkdownString(
					input.oldText === undefined
						? `Longhaul wants to write ${input.newText.length} characters to \`${shown}\`.`
						: `Longhaul wants to replace ${input.oldText.length} characters in \`${shown}\` with ${input.newText.length} characters.`,
				),
			},
		};
	},
	async invoke(options) {
		requireTrust();
		const { input } = options;
		const file = resolveWorkspacePath(input.path);
		if (typeof input.newText !== 'string') {
			throw new Error('newText must be a string.');
		}
		if (input.oldText === undefined) {
			const exists = await fs.stat(file).then(
				() => true,
				() => false,
			);
			if (exists && !input.overwrite) {
				throw new Error(`${displayPath(file)} already exists; give oldText to edit it, or overwrite: true to replace it.`);
			}
			await fs.mkdir(path.dirname(file), { recursive: true });
			await fs.writeFile(file, input.newText, 'utf8');
			return textResult(`${exists ? 'Overwrote' : 'Created'} ${displayPath(file)} (${input.newText.split('\n').length} lines).`);
		}
		const content = await fs.readFile(file, 'utf8');
		const count = countOccurrences(content, input.oldText);
		if (count !== 1 || input.oldText === '') {
			throw new Error(
				`oldText occurs ${input.oldText === '' ? 'everywhere (it is empty)' : `${count} times`} in ${displayPath(file)}; it must occur exactly once. Read the file and quote a unique passage.`,
			);
		}
		const at = content.indexOf(input.oldText);
		await fs.writeFile(file, content.slice(0, at) + input.newText + content.slice(at + input.oldText.length), 'utf8');
		const line = content.slice(0, at).split('\n').length;
		return textResult(`Edited ${displayPath(file)} at line ${line}.`);
	},
};
