// The `longhaul-summary:` documents as a small file system: reading one gives the summary (with a
// header saying what it stands for), and saving one is the user's edit of that summary. A save is
// checked (summaryEdit.ts) and kept for the next request of its chat (summaryEdits.ts), and a
// message says so; a save that fails the check is refused with its reason, so the editor stays
// dirty and nothing changes; VS Code's save error, which carries the reason, is the one message.
// Auto-save does not get this far while the text would be refused (summaryDiagnostics.ts).
// Ctrl+S in a summary editor is bound to `saveSummary`, which checks first and shows only the
// reason; in the e2e test (code-server) the key still reached VS Code's own save, so the refusal
// here must stand on its own. Nothing else can be done here: no folders, no deleting or renaming.
import * as vscode from 'vscode';
import { checkSummaryEdit, type EditCheck } from '../common/summaries/summaryEdit';
import { parseSummaryKey, SAVED_NOTE, summaryTextOf, withSummaryText, type SummaryDocument } from '../common/summaries/summaryDocument';
import { countTokens } from '../common/tokens/tokenizer';
import type { SummaryEditStore } from './summaryEdits';
import { log } from './log';

/** What the file system reads and writes through: the summaries this window knows. */
export interface SummaryDocumentStore {
	get(key: string): SummaryDocument | undefined;
	set(document: SummaryDocument): void;
	/** The largest summary a block may hold, from the newest request's budget (undefined before the first). */
	readonly summaryLimit: number | undefined;
}

/** What a summary document this window does not know shows (the heading is the one every summary document has). */
export function notLoaded(): string {
	return `# Longhaul summary\n\n${vscode.l10n.t('This summary is not loaded in this window. Run `@longhaul /context` in the chat it belongs to and open it from there.')}\n`;
}

export class SummaryFileSystem implements vscode.FileSystemProvider {
	private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
	readonly onDidChangeFile = this.changed.event;
	private readonly times = new Map<string, number>();

	constructor(
		private readonly store: SummaryDocumentStore,
		private readonly edits: SummaryEditStore,
	) {}

	/** The document's text as the editor shows it: with the user's saved edit when one is waiting. */
	content(key: string): string {
		const document = this.store.get(key);
		if (!document) return notLoaded();
		const parsed = parseSummaryKey(key);
		const pending = parsed ? this.edits.pendingFor(parsed.roundId) : undefined;
		return pending ? withSummaryText(document, pending.text, SAVED_NOTE).content : document.content;
	}

	/** Tells open editors that a document's text changed (an edit saved or put in use). */
	touch(key: string, uri: vscode.Uri): void {
		this.times.set(key, Date.now());
		this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
	}

	stat(uri: vscode.Uri): vscode.FileStat {
		const time = this.times.get(uri.query) ?? 0;
		// What stands in for rounds set aside is shown, never edited: the editor opens it read-only.
		const readOnly = this.store.get(uri.query)?.readOnly ? { permissions: vscode.FilePermission.Readonly } : {};
		return { type: vscode.FileType.File, ctime: 0, mtime: time, size: Buffer.byteLength(this.content(uri.query), 'utf8'), ...readOnly };
	}

	readFile(uri: vscode.Uri): Uint8Array {
		return Buffer.from(this.content(uri.query), 'utf8');
	}

	/** Why a save of `text` would be refused, or undefined when it would go through. */
	refusal(uri: vscode.Uri, text: string): string | undefined {
		const check = this.check(uri.query, text);
		return check.kind === 'invalid' ? check.message : undefined;
	}

	private check(key: string, text: string): EditCheck {
		if (!this.store.get(key) || !parseSummaryKey(key)) {
			return {
				kind: 'invalid',
				message: vscode.l10n.t(
					'This summary is not loaded in this window: open it from the chat (the Open summary button, or a link in /context), then edit it.',
				),
			};
		}
		if (this.store.get(key)?.readOnly) {
			return {
				kind: 'invalid',
				message: vscode.l10n.t('This is what the agent sees in place of rounds set aside while their summary is written: it cannot be edited.'),
			};
		}
		return checkSummaryEdit(text, summaryTextOf(this.content(key)) ?? '', this.store.summaryLimit, countTokens);
	}

	async writeFile(uri: vscode.Uri, bytes: Uint8Array): Promise<void> {
		const key = uri.query;
		const check = this.check(key, Buffer.from(bytes).toString('utf8'));
		if (check.kind === 'invalid') {
			log().info(`summary save refused: ${check.message}`);
			throw refuse(check.message);
		}
		if (check.kind === 'ok') {
			const parsed = parseSummaryKey(key)!;
			await this.edits.save({ roundId: parsed.roundId, base: parsed.hash, text: check.text });
			void vscode.window.showInformationMessage(
				vscode.l10n.t(
					'Summary saved. From your next @longhaul request in this chat on, the model remembers your text in place of this summary (the chat says so when it uses it).',
				),
			);
		}
		this.touch(key, uri);
	}

	watch(): vscode.Disposable {
		return new vscode.Disposable(() => undefined);
	}

	readDirectory(): [string, vscode.FileType][] {
		return [];
	}

	createDirectory(): void {
		throw refuse(vscode.l10n.t('Longhaul summaries are single documents.'));
	}

	delete(): void {
		throw refuse(vscode.l10n.t('A Longhaul summary cannot be deleted: to bring back the rounds it replaced, use Restore (@longhaul /restore).'));
	}

	rename(): void {
		throw refuse(vscode.l10n.t('A Longhaul summary cannot be renamed.'));
	}

	dispose(): void {
		this.changed.dispose();
	}
}

/**
 * The error VS Code shows when a save fails ("Failed to save …", with the reason): the one message
 * of a refused save. (It used to be shown as a notification of its own too: two messages.)
 */
function refuse(message: string): vscode.FileSystemError {
	return vscode.FileSystemError.NoPermissions(message);
}
