// While a summary document holds a text that a save would refuse (summaryFileSystem.ts), it carries
// one error diagnostic with the reason: the squiggle under the text and the Problems view. That is
// also what keeps auto-save away from it: the `longhaul-summary` language (the documents' names,
// package.json) turns on `files.autoSaveWhenNoErrors`, so with `files.autoSave` on (the default in
// VS Code for the web) VS Code no longer tries every second to save a text it would refuse and
// shows its "Failed to save" error each time. The text stays in the editor, unsaved, and is saved by
// the next auto-save once it is fixed (docs/decisions.md decision 42). An explicit save still gives
// the one message with the reason.
import * as vscode from 'vscode';
import { structureBreakLine, SUMMARY_SEPARATOR } from '../common/summaries/summaryDocument';

/** Why a save of `text` would be refused, or undefined. */
export type SaveRefusal = (uri: vscode.Uri, text: string) => string | undefined;

/** The document's text as it was shown (before the edit), when known. */
export type ShownText = (uri: vscode.Uri) => string | undefined;

/** Keeps the diagnostics of every open document of `scheme` up to date while it is edited. */
export function watchSummaryDiagnostics(scheme: string, refusal: SaveRefusal, shown: ShownText): vscode.Disposable {
	const collection = vscode.languages.createDiagnosticCollection(scheme);
	const update = (document: vscode.TextDocument) => {
		if (document.uri.scheme !== scheme) return;
		// A document as it was read is never refused for what it holds (a summary not loaded says so in its text).
		const reason = document.isDirty ? refusal(document.uri, document.getText()) : undefined;
		collection.set(document.uri, reason ? [new vscode.Diagnostic(refusalRange(document, shown(document.uri)), reason, vscode.DiagnosticSeverity.Error)] : []);
	};
	vscode.workspace.textDocuments.forEach(update);
	return vscode.Disposable.from(
		collection,
		vscode.workspace.onDidOpenTextDocument(update),
		vscode.workspace.onDidChangeTextDocument(e => update(e.document)),
		vscode.workspace.onDidSaveTextDocument(update),
		vscode.workspace.onDidCloseTextDocument(document => collection.delete(document.uri)),
	);
}

/**
 * The summary text below the separator line; the separator when nothing is below it; when it is
 * gone, the line where the edit broke the structure (where the separator was), not the first line.
 */
function refusalRange(document: vscode.TextDocument, shown: string | undefined): vscode.Range {
	const lines = Array.from({ length: document.lineCount }, (_, i) => document.lineAt(i).text);
	const separator = lines.findIndex(line => line.trim() === SUMMARY_SEPARATOR);
	if (separator < 0) return document.lineAt((shown === undefined ? undefined : structureBreakLine(shown, document.getText())) ?? 0).range;
	let first = separator + 1;
	while (first < lines.length && !lines[first].trim()) first++;
	let last = lines.length - 1;
	while (last > first && !lines[last].trim()) last--;
	return first < lines.length ? new vscode.Range(first, 0, last, lines[last].length) : document.lineAt(separator).range;
}
