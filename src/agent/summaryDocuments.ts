// Readable, editable summaries: every summary Longhaul makes or finds in the chat history can be
// opened as a document (`longhaul-summary:` scheme, summaryFileSystem.ts), edited and saved. The
// chat offers "Open summary" and "Restore" buttons after each summarization notice (the open button
// carries the text, so it still works after a window reload), and `/context` links every summary
// block (by key: the request that printed the links loaded them).
import * as vscode from 'vscode';
import { parseSummaryKey, summaryDocument, withSummaryText, type SummaryDocument, type SummaryToShow } from '../common/summaries/summaryDocument';
import { watchSummaryDiagnostics } from './summaryDiagnostics';
import { SummaryFileSystem, type SummaryDocumentStore } from './summaryFileSystem';
import type { SummaryEditStore } from './summaryEdits';

export const SUMMARY_SCHEME = 'longhaul-summary';
export const OPEN_SUMMARY_COMMAND = 'longhaul.openSummary';
export const RESTORE_SUMMARY_COMMAND = 'longhaul.restoreSummary';
/** Ctrl+S in a summary editor (package.json keybindings): checks before saving (summaryFileSystem.ts). */
export const SAVE_SUMMARY_COMMAND = 'longhaul.saveSummary';

/** Summaries kept for the documents; the oldest are forgotten past this many (buttons carry their own text). */
const MAX_SUMMARIES = 200;
/**
 * The newest documents are kept in the workspace's storage too, so that after a window reload a
 * summary tab VS Code reopens shows its text, and a link or key opens it again (VS Code greys out
 * the buttons of responses restored from before the reload). Bounded in count and size.
 */
const STORAGE_KEY = 'longhaul.summaryDocuments';
const MAX_STORED = 60;
const MAX_STORED_CHARS = 1_000_000;

/** What the open command takes: a key the store knows, or a whole document (buttons). */
export type SummaryReference = { readonly key: string } | SummaryDocument;

/**
 * What the restore command takes: the block's request as /context numbers them (none: the newest
 * block), and how many of the newest rounds. `roundId` is what buttons of earlier versions carry.
 */
export interface RestoreReference {
	readonly request?: number;
	readonly roundId?: string;
	readonly newest?: number;
}

/**
 * The summaries this window can open as documents, the summary limit an edit is checked against,
 * and the file system that serves them: created in `activate`, disposed with the extension.
 */
export class SummaryDocuments implements SummaryDocumentStore, vscode.Disposable {
	private readonly documents = new Map<string, SummaryDocument>();
	private limit: number | undefined;
	private readonly fileSystem: SummaryFileSystem;
	private readonly registrations: vscode.Disposable;

	constructor(
		edits: SummaryEditStore,
		private readonly memento?: vscode.Memento,
	) {
		for (const document of storedDocuments(memento)) this.documents.set(document.key, document);
		this.fileSystem = new SummaryFileSystem(this, edits);
		this.registrations = this.register();
	}

	get(key: string): SummaryDocument | undefined {
		return this.documents.get(key);
	}

	get summaryLimit(): number | undefined {
		return this.limit;
	}

	/** Remembers a summary so its document can be opened; returns the document. */
	remember(summary: SummaryToShow): SummaryDocument {
		const document = summaryDocument(summary);
		this.set(document);
		return document;
	}

	set(document: SummaryDocument): void {
		const known = this.documents.get(document.key);
		this.documents.delete(document.key);
		this.documents.set(document.key, document);
		while (this.documents.size > MAX_SUMMARIES) this.documents.delete(this.documents.keys().next().value!);
		if (known?.content !== document.content || known.title !== document.title) this.store();
	}

	/** Keeps the newest documents in the workspace's storage (see {@link STORAGE_KEY}). */
	private store(): void {
		if (!this.memento) return;
		const kept: SummaryDocument[] = [];
		let chars = 0;
		for (const document of [...this.documents.values()].reverse()) {
			chars += document.content.length;
			if (kept.length >= MAX_STORED || chars > MAX_STORED_CHARS) break;
			kept.unshift(document);
		}
		void this.memento.update(STORAGE_KEY, kept);
	}

	/** The largest summary a block may hold with the model of the newest request: what an edit is checked against. */
	noteSummaryLimit(tokens: number): void {
		this.limit = tokens;
	}

	/** An edit is in use: every open document of that block shows the user's text, marked as theirs. */
	editApplied(roundId: string, text: string): void {
		for (const [key, document] of [...this.documents]) {
			if (parseSummaryKey(key)?.roundId !== roundId) continue;
			this.documents.set(
				key,
				withSummaryText(document, text, vscode.l10n.t('You edited this summary: the model remembers your text. Edit and save again to change it.')),
			);
			this.fileSystem.touch(key, summaryUri(document));
		}
	}

	/** Registers the summary file system and the open and restore commands. */
	private register(): vscode.Disposable {
		return vscode.Disposable.from(
			this.fileSystem,
			vscode.workspace.registerFileSystemProvider(SUMMARY_SCHEME, this.fileSystem, { isCaseSensitive: true }),
			watchSummaryDiagnostics(
				SUMMARY_SCHEME,
				(uri, text) => this.fileSystem.refusal(uri, text),
				uri => this.fileSystem.content(uri.query),
			),
			vscode.commands.registerCommand(OPEN_SUMMARY_COMMAND, (reference?: SummaryReference) => this.open(reference)),
			vscode.commands.registerCommand(SAVE_SUMMARY_COMMAND, async () => {
				const document = vscode.window.activeTextEditor?.document;
				if (document?.uri.scheme !== SUMMARY_SCHEME) return;
				const refusal = this.fileSystem.refusal(document.uri, document.getText());
				// A refused text is not saved at all: one message with the reason, and the text stays in the editor to be fixed.
				if (refusal) void vscode.window.showErrorMessage(refusal);
				else await document.save();
			}),
			vscode.commands.registerCommand(RESTORE_SUMMARY_COMMAND, async (reference?: RestoreReference) => {
				// A chat request of its own (/restore), so the change is stored in the chat like any other.
				await vscode.commands.executeCommand('workbench.action.chat.open', { query: restoreQuery(reference ?? {}) });
			}),
		);
	}

	private async open(reference?: SummaryReference): Promise<void> {
		if (!reference || typeof reference.key !== 'string') {
			void vscode.window.showInformationMessage(
				vscode.l10n.t('Open a Longhaul summary from the chat: the button under a summarization notice, or a link in /context.'),
			);
			return;
		}
		if ('content' in reference && typeof reference.content === 'string' && typeof reference.title === 'string') this.set(reference);
		const title = this.documents.get(reference.key)?.title ?? 'Longhaul summary.md';
		const document = await vscode.workspace.openTextDocument(summaryUri({ key: reference.key, title }));
		await vscode.window.showTextDocument(document, { preview: true });
	}

	dispose(): void {
		this.registrations.dispose();
		this.documents.clear();
	}
}

/** The documents a previous window kept (see {@link STORAGE_KEY}); anything malformed is skipped. */
function storedDocuments(memento: vscode.Memento | undefined): SummaryDocument[] {
	const stored = memento?.get<unknown>(STORAGE_KEY);
	return Array.isArray(stored) ? stored.filter(isDocument) : [];
}

function isDocument(value: unknown): value is SummaryDocument {
	const v = value as Partial<SummaryDocument> | null;
	return typeof v === 'object' && v !== null && typeof v.key === 'string' && typeof v.title === 'string' && typeof v.content === 'string';
}

export function summaryUri(document: Pick<SummaryDocument, 'key' | 'title'>): vscode.Uri {
	return vscode.Uri.from({ scheme: SUMMARY_SCHEME, path: '/' + document.title, query: document.key });
}

/** A markdown link that opens the summary (the MarkdownString must trust {@link OPEN_SUMMARY_COMMAND}). */
export function summaryLink(document: SummaryDocument, label: string): string {
	const args = encodeURIComponent(JSON.stringify([{ key: document.key }]));
	return `[${label}](command:${OPEN_SUMMARY_COMMAND}?${args})`;
}

/** A markdown link that restores a block (the MarkdownString must trust {@link RESTORE_SUMMARY_COMMAND}). */
export function restoreLink(reference: RestoreReference, label: string): string {
	return `[${label}](command:${RESTORE_SUMMARY_COMMAND}?${encodeURIComponent(JSON.stringify([reference]))})`;
}

/** The `/restore` request a restore reference stands for, as the user could type it: `/restore N newest:M`. */
export function restoreQuery(reference: RestoreReference = {}): string {
	const target = reference.request ? [String(reference.request)] : reference.roundId ? [`id:${reference.roundId}`] : [];
	return ['@longhaul /restore', ...target, ...(reference.newest ? [`newest:${reference.newest}`] : [])].join(' ');
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
 * summarized and offers the newest summaries again, and a way to undo the newest, where the user sees them.
 */
export function summaryRecap(stream: ResponseSink, made: readonly SummaryDocument[], summarizerNotice?: string): void {
	// The notice that the summarizer model was not found is repeated here once, where the user sees it.
	if (summarizerNotice) stream.markdown(`\n\n*${summarizerNotice}*\n\n`);
	if (made.length === 0) return;
	const shown = made.slice(-RECAP_LIMIT);
	const times =
		made.length === 1
			? vscode.l10n.t('This response summarized the conversation once.')
			: vscode.l10n.t('This response summarized the conversation {0} times.', made.length);
	const which =
		made.length === 1
			? vscode.l10n.t('Open it to read (or correct) what the model now remembers in place of the older rounds; Restore brings the rounds back instead.')
			: shown.length === made.length
				? vscode.l10n.t('Open them to read (or correct) what the model now remembers in place of the older rounds; Restore brings the rounds back instead.')
				: vscode.l10n.t(
						'Open the newest {0} to read (or correct) what the model now remembers in place of the older rounds; Restore brings the rounds back instead.',
						shown.length,
					);
	// VS Code turns off the buttons of responses restored after a window reload: say so, and what still works.
	const afterReload = vscode.l10n.t(
		'After a window reload VS Code turns these buttons off; `@longhaul /context` lists every summary with links that open or restore it.',
	);
	stream.markdown(`\n\n*${times} ${which} ${afterReload}*\n\n`);
	shown.forEach((document, i) =>
		openButton(
			stream,
			document,
			made.length === 1 ? vscode.l10n.t('Open summary') : vscode.l10n.t('Open summary {0} of {1}', made.length - shown.length + i + 1, made.length),
		),
	);
	restoreButton(stream, restoreReferenceOf(made[made.length - 1]), vscode.l10n.t('Restore newest summary'));
}

/** The "Open summary" and "Restore" buttons under a summarization notice. */
export function summaryButton(stream: Pick<ResponseSink, 'button'>, document: SummaryDocument, title = vscode.l10n.t('Open summary')): void {
	openButton(stream, document, title);
	restoreButton(stream, restoreReferenceOf(document), vscode.l10n.t('Restore'));
}

/** The button under a set-aside notice: opens what the agent sees in place of the rounds set aside. */
export function setAsideButton(stream: Pick<ResponseSink, 'button'>, document: SummaryDocument): void {
	stream.button({
		command: OPEN_SUMMARY_COMMAND,
		title: vscode.l10n.t('Open what the agent sees'),
		tooltip: vscode.l10n.t('Show the text the agent sees in place of the rounds set aside while their summary is written'),
		arguments: [document],
	});
}

/** The request number of a summary's block when known, else its anchor round. */
function restoreReferenceOf(document: SummaryDocument): RestoreReference {
	return document.request ? { request: document.request } : { roundId: parseSummaryKey(document.key)?.roundId };
}

function openButton(stream: Pick<ResponseSink, 'button'>, document: SummaryDocument, title: string): void {
	stream.button({
		command: OPEN_SUMMARY_COMMAND,
		title,
		tooltip: vscode.l10n.t('Show (and edit) what the model now remembers of the older rounds'),
		arguments: [document],
	});
}

/** A button that undoes a summary: the rounds it replaced come back word for word, if they fit. */
export function restoreButton(stream: Pick<ResponseSink, 'button'>, reference: RestoreReference, title: string): void {
	stream.button({
		command: RESTORE_SUMMARY_COMMAND,
		title,
		tooltip: vscode.l10n.t('Take this summary away and bring back the rounds it replaced, if they fit'),
		arguments: [reference],
	});
}
