// Readable summaries: every summary Longhaul makes or finds in the chat history can be opened as
// a read-only document (`longhaul-summary:` scheme). The chat offers an "Open summary" button after
// each summarization notice (it carries the text, so it still works after a window reload), and
// `/context` links every summary block (by key: the request that printed the links loaded them).
import * as vscode from 'vscode';
import { summaryDocument, type SummaryDocument, type SummaryToShow } from '../common/summaries/summaryDocument';

export const SUMMARY_SCHEME = 'longhaul-summary';
export const OPEN_SUMMARY_COMMAND = 'longhaul.openSummary';

/** Summaries kept for the documents; the oldest are forgotten past this many (buttons carry their own text). */
const MAX_SUMMARIES = 200;

/** What the open command takes: a key the store knows, or a whole document (buttons). */
export type SummaryReference = { readonly key: string } | SummaryDocument;

const documents = new Map<string, SummaryDocument>();

/** Remembers a summary so its document can be opened; returns the document. */
export function rememberSummary(summary: SummaryToShow): SummaryDocument {
	const document = summaryDocument(summary);
	remember(document);
	return document;
}

function remember(document: SummaryDocument): void {
	documents.delete(document.key);
	documents.set(document.key, document);
	while (documents.size > MAX_SUMMARIES) documents.delete(documents.keys().next().value!);
}

export function summaryUri(document: Pick<SummaryDocument, 'key' | 'title'>): vscode.Uri {
	return vscode.Uri.from({ scheme: SUMMARY_SCHEME, path: '/' + document.title, query: document.key });
}

/** A markdown link that opens the summary (the MarkdownString must trust {@link OPEN_SUMMARY_COMMAND}). */
export function summaryLink(document: SummaryDocument, label: string): string {
	const args = encodeURIComponent(JSON.stringify([{ key: document.key }]));
	return `[${label}](command:${OPEN_SUMMARY_COMMAND}?${args})`;
}

/** Summaries offered again at the end of a response, newest last. */
export const RECAP_LIMIT = 3;

/** Where notices and buttons go: the response stream, or the end of the response (responseEpilogue.ts). */
export interface ResponseSink {
	markdown(text: string): void;
	button(command: vscode.Command): void;
}

/**
 * VS Code 1.139 folds everything before a response's final answer into "Completed N steps", the
 * summarization notices and their buttons included. The end of the response says how often it
 * summarized and offers the newest summaries again, where the user sees them.
 */
export function summaryRecap(stream: ResponseSink, made: readonly SummaryDocument[]): void {
	if (made.length === 0) return;
	const shown = made.slice(-RECAP_LIMIT);
	const times = made.length === 1 ? 'once' : `${made.length} times`;
	const which = made.length === 1 ? 'Open it to read' : shown.length === made.length ? 'Open them to read' : `Open the newest ${shown.length} to read`;
	stream.markdown(`\n\n*This response summarized the conversation ${times}. ${which} what the model now remembers in place of the older rounds.*\n\n`);
	shown.forEach((document, i) =>
		summaryButton(stream, document, made.length === 1 ? 'Open summary' : `Open summary ${made.length - shown.length + i + 1} of ${made.length}`),
	);
}

/** The "Open summary" button under a summarization notice. */
export function summaryButton(stream: Pick<ResponseSink, 'button'>, document: SummaryDocument, title = 'Open summary'): void {
	stream.button({
		command: OPEN_SUMMARY_COMMAND,
		title,
		tooltip: 'Show what the model now remembers of the older rounds',
		arguments: [document],
	});
}

/** Registers the document provider and the open command. */
export function registerSummaryDocuments(): vscode.Disposable {
	const provider: vscode.TextDocumentContentProvider = {
		provideTextDocumentContent(uri) {
			return (
				documents.get(uri.query)?.content ??
				'# Longhaul summary\n\nThis summary is not loaded in this window. Run `@longhaul /context` in the chat it belongs to and open it from there.\n'
			);
		},
	};
	return vscode.Disposable.from(
		vscode.workspace.registerTextDocumentContentProvider(SUMMARY_SCHEME, provider),
		vscode.commands.registerCommand(OPEN_SUMMARY_COMMAND, async (reference?: SummaryReference) => {
			if (!reference || typeof reference.key !== 'string') {
				void vscode.window.showInformationMessage('Open a Longhaul summary from the chat: the button under a summarization notice, or a link in /context.');
				return;
			}
			if ('content' in reference && typeof reference.content === 'string' && typeof reference.title === 'string') remember(reference);
			const title = documents.get(reference.key)?.title ?? 'Longhaul summary.md';
			const document = await vscode.workspace.openTextDocument(summaryUri({ key: reference.key, title }));
			await vscode.window.showTextDocument(document, { preview: true });
		}),
	);
}
