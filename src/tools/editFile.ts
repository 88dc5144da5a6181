import * as vscode from 'vscode';
import { inlineCode, visible } from './visibleText';
import { resolveInsideRoots } from './pathGuard';
import { createInside, updateInside } from './safeFs';
import { displayPath, textResult, workspaceRoots } from './workspaceRoots';

interface EditFileInput {
	path: string;
	/** Exact text to replace; it must occur exactly once. Omit it to create a new file. */
	oldText?: string;
	newText: string;
	/** With no oldText: replace an existing file's whole content. */
	overwrite?: boolean;
}

/** Files larger than this are not edited in place. */
const MAX_EDIT_BYTES = 16 * 1024 * 1024;

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

/** Where the path really leads (links resolved), or an error the model can read. */
function guarded(input: unknown): { path: string; exists: boolean } {
	const resolved = resolveInsideRoots(workspaceRoots(), input);
	if (!resolved.ok) {
		throw new Error(resolved.reason);
	}
	return resolved;
}

/** Creates a file, or replaces one exact occurrence of a text in it. Asks the user first. */
export const editFileTool: vscode.LanguageModelTool<EditFileInput> = {
	prepareInvocation(options) {
		const { input } = options;
		// Refuse before asking: the user is never asked to confirm a write that would be refused.
		// The confirmation names the file the write really goes to, links resolved.
		requireTrust();
		const shown = displayPath(guarded(input.path).path);
		if (typeof input.newText !== 'string') {
			throw new Error('newText must be a string.');
		}
		const what = input.oldText === undefined ? (input.overwrite ? 'Overwrite' : 'Create') : 'Edit';
		const title = visible(shown, false).text;
		return {
			invocationMessage: `${what} ${title}`,
			confirmationMessages: {
				title: `${what} ${title}?`,
				message: new vscode.MarkdownString(
					input.oldText === undefined
						? `Longhaul wants to write ${input.newText.length} characters to ${inlineCode(shown)}.`
						: `Longhaul wants to replace ${input.oldText.length} characters in ${inlineCode(shown)} with ${input.newText.length} characters.`,
				),
			},
		};
	},
	async invoke(options) {
		requireTrust();
		const { input } = options;
		const roots = workspaceRoots();
		const target = guarded(input.path);
		if (typeof input.newText !== 'string') {
			throw new Error('newText must be a string.');
		}
		const newText = input.newText;
		if (input.oldText === undefined) {
			if (target.exists && !input.overwrite) {
				throw new Error(`${displayPath(target.path)} already exists; give oldText to edit it, or overwrite: true to replace it.`);
			}
			// New files are created with O_EXCL|O_NOFOLLOW; existing ones are rewritten in place
			// after the open descriptor was checked (src/tools/safeFs.ts).
			const written = target.exists ? await updateInside(roots, input.path, () => newText, MAX_EDIT_BYTES) : await createInside(roots, input.path, newText);
			if (!written.ok) {
				throw new Error(written.reason);
			}
			return textResult(`${target.exists ? 'Overwrote' : 'Created'} ${displayPath(written.path)} (${newText.split('\n').length} lines).`);
		}
		const oldText = input.oldText;
		const edited = await updateInside(
			roots,
			input.path,
			content => {
				const count = countOccurrences(content, oldText);
				if (count !== 1 || oldText === '') {
					return {
						ok: false,
						reason: `oldText occurs ${oldText === '' ? 'everywhere (it is empty)' : `${count} times`} in ${displayPath(target.path)}; it must occur exactly once. Read the file and quote a unique passage.`,
					};
				}
				const at = content.indexOf(oldText);
				return content.slice(0, at) + newText + content.slice(at + oldText.length);
			},
			MAX_EDIT_BYTES,
		);
		if (!edited.ok) {
			throw new Error(edited.reason);
		}
		const line = edited.before.slice(0, edited.before.indexOf(oldText)).split('\n').length;
		return textResult(`Edited ${displayPath(edited.path)} at line ${line}.`);
	},
};
