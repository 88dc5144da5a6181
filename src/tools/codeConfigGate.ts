// Longhaul's own question before it writes a file that configures code that runs (.git/config,
// .vscode/settings.json, package.json, …; src/common/tools/codeConfigFiles.ts).
//
// VS Code's tool confirmation can be approved ahead of time: "Allow in this session", "Always
// allow", the chat.tools.global.autoApprove setting, an autopilot mode. An extension's tool cannot
// opt out of that (the confirmation's allowAutoConfirm is not part of the extension API). So for
// these files Longhaul asks again itself, in a quick pick that no setting answers: the change is
// opened beside it, "Don't write" is the first choice, and cancelling the request closes it.
import * as vscode from 'vscode';

const SCHEME = 'longhaul-change';

/** The read-only documents that show a change while its question is open. */
class ChangeDocuments implements vscode.TextDocumentContentProvider {
	private readonly changes = new Map<string, string>();
	private counter = 0;

	provideTextDocumentContent(uri: vscode.Uri): string {
		return this.changes.get(uri.toString()) ?? '';
	}

	/** A new document showing `text`. */
	add(title: string, text: string): vscode.Uri {
		const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${++this.counter}/${title.replace(/[\\/]/g, '_')}` });
		this.changes.set(uri.toString(), text);
		return uri;
	}

	remove(uri: vscode.Uri): void {
		this.changes.delete(uri.toString());
	}

	clear(): void {
		this.changes.clear();
	}
}
const changeDocuments = new ChangeDocuments();

/** Registers the read-only documents that show a change; once, at activation (and forgets them with the extension). */
export function registerChangeDocuments(): vscode.Disposable {
	return vscode.Disposable.from(vscode.workspace.registerTextDocumentContentProvider(SCHEME, changeDocuments), { dispose: () => changeDocuments.clear() });
}

/** Shows `text` in a read-only editor beside the chat; answers a function that closes it. */
async function showBeside(title: string, text: string): Promise<() => Promise<void>> {
	const uri = changeDocuments.add(title, text);
	try {
		const document = await vscode.workspace.openTextDocument(uri);
		await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
	} catch {
		// No editor (a host without one): the quick pick still says what and why.
	}
	return async () => {
		changeDocuments.remove(uri);
		const tabs = vscode.window.tabGroups.all
			.flatMap(g => g.tabs)
			.filter(t => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString());
		await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
	};
}

/** `$(` starts an icon in quick pick text: shown as a marker instead, so a file name cannot draw one. */
function noIcons(text: string): string {
	return text.replace(/\$\(/g, '$⟪U+0028⟫');
}

/**
 * Asks the user whether to write a file that configures code that runs. `change` is the change as
 * shown in the confirmation. Answers true only when the user picks "Write".
 */
export async function askBeforeCodeConfigWrite(
	shownPath: string,
	why: string,
	summary: string,
	change: string,
	token: vscode.CancellationToken,
): Promise<boolean> {
	const writeChoice = vscode.l10n.t('Write');
	const header = [vscode.l10n.t('Longhaul asks to write {0}, which configures code that runs:', shownPath), `${why}.`, summary, ''].join('\n');
	const close = await showBeside(vscode.l10n.t('{0} (change to confirm)', shownPath), `${header}\n${change}\n`);
	try {
		const dontWrite: vscode.QuickPickItem = { label: `$(close) ${vscode.l10n.t("Don't write")}`, description: vscode.l10n.t('nothing is written') };
		const write: vscode.QuickPickItem = { label: `$(warning) ${writeChoice} ${noIcons(shownPath)}`, description: noIcons(summary) };
		const picked = await vscode.window.showQuickPick(
			[dontWrite, write],
			{
				title: noIcons(vscode.l10n.t('Write {0}? It configures code that runs.', shownPath)),
				placeHolder: noIcons(`${why}. ${vscode.l10n.t('The change is open beside this; pick "{0}" to write it.', writeChoice)}`),
				ignoreFocusOut: true,
			},
			token,
		);
		return picked === write;
	} finally {
		await close();
	}
}
