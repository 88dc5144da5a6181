import * as vscode from 'vscode';
import { cutMiddle } from '../common/text/cutText';

import type { ReferenceAttachment } from '../prompts';

const MAX_REFERENCE_CHARS = 40_000;

/** The files, selections and values the user attached to the request, as text for the prompt. */
export async function referencesAsText(references: readonly vscode.ChatPromptReference[]): Promise<ReferenceAttachment[]> {
	const out: ReferenceAttachment[] = [];
	for (const ref of references) {
		const value = ref.value;
		try {
			if (typeof value === 'string') {
				out.push({ name: ref.modelDescription ?? ref.id, text: cutMiddle(value, MAX_REFERENCE_CHARS) });
			} else if (value instanceof vscode.Uri) {
				const doc = await vscode.workspace.openTextDocument(value);
				out.push({ name: vscode.workspace.asRelativePath(value, false), text: cutMiddle(doc.getText(), MAX_REFERENCE_CHARS) });
			} else if (value instanceof vscode.Location) {
				const doc = await vscode.workspace.openTextDocument(value.uri);
				const name = `${vscode.workspace.asRelativePath(value.uri, false)} lines ${value.range.start.line + 1}-${value.range.end.line + 1}`;
				out.push({ name, text: cutMiddle(doc.getText(value.range), MAX_REFERENCE_CHARS) });
			}
		} catch (error) {
			out.push({ name: ref.modelDescription ?? ref.id, text: `[could not read this reference: ${(error as Error).message}]` });
		}
	}
	return out;
}
