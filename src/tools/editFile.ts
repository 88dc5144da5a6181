import * as vscode from 'vscode';
import { askBeforeCodeConfigWrite } from './codeConfigGate';
import { editConfirmation, showChange } from './editConfirmation';
import { applyPlan, EditInput, EditPlan, planEdit, ShownPlans } from './editPlan';
import { visible } from './visibleText';
import { displayPath, textResult, workspaceRoots } from './workspaceRoots';

function requireTrust(): void {
	if (!vscode.workspace.isTrusted) {
		throw new Error('This workspace is not trusted; Longhaul does not change files in it.');
	}
}

/** What each call's confirmation showed, so that the write goes by it (docs/reliability.md, lost updates). */
const shownPlans = new ShownPlans();

/** The plan of the call, or an error the model can read. */
async function plan(input: EditInput): Promise<EditPlan> {
	requireTrust();
	const planned = await planEdit(workspaceRoots(), input);
	if ('ok' in planned) throw new Error(planned.reason);
	return planned;
}

/** The progress line and the confirmation's title for a plan: "Edit x" and "Edit x?". */
function titles(kind: EditPlan['kind'], file: string): { progress: string; question: string } {
	if (kind === 'edit') return { progress: vscode.l10n.t('Edit {0}', file), question: vscode.l10n.t('Edit {0}?', file) };
	if (kind === 'create') return { progress: vscode.l10n.t('Create {0}', file), question: vscode.l10n.t('Create {0}?', file) };
	return { progress: vscode.l10n.t('Overwrite {0}', file), question: vscode.l10n.t('Overwrite {0}?', file) };
}

/** Writes what the plan says and answers what was done. */
async function write(planned: EditPlan, input: EditInput): Promise<string> {
	const written = await applyPlan(workspaceRoots(), planned, input);
	if (!written.ok) throw new Error(written.reason);
	const lines = planned.after.split('\n').length;
	const where = displayPath(written.path);
	return planned.kind === 'edit'
		? `Edited ${where} at line ${planned.line}.`
		: `${planned.kind === 'create' ? 'Created' : 'Overwrote'} ${where} (${lines} lines).`;
}

/**
 * Creates a file, or replaces one exact occurrence of a text in it, or overwrites it. The user
 * confirms the change, shown line by line; a file that configures code that runs is asked for again.
 */
export const editFileTool: vscode.LanguageModelTool<EditInput> = {
	async prepareInvocation(options) {
		// Refuse before asking: the user is never asked to confirm a write that would be refused.
		// The confirmation names the file the write really goes to, links resolved.
		const planned = await plan(options.input);
		const shown = displayPath(planned.path);
		const confirmation = editConfirmation(planned, shown);
		if (!confirmation.ok) throw new Error(confirmation.reason);
		const title = titles(planned.kind, visible(shown, false).text);
		shownPlans.remember(options.input, planned);
		return {
			invocationMessage: title.progress,
			confirmationMessages: { title: title.question, message: new vscode.MarkdownString(confirmation.markdown) },
		};
	},
	async invoke(options, token) {
		requireTrust();
		// The plan the confirmation showed: the write checks the file still holds the text shown.
		const planned = shownPlans.take(options.input) ?? (await plan(options.input));
		if (planned.codeConfig) {
			const shown = displayPath(planned.path);
			// Asked again with the change shown: VS Code may have approved the call on its own.
			const change = showChange(planned, shown);
			const allowed = await askBeforeCodeConfigWrite(shown, planned.codeConfig.why, change.summary.replace(/`/g, ''), change.shown.text, token);
			if (!allowed) {
				return textResult(
					`Not written: ${shown} configures code that runs (${planned.codeConfig.rule}), and the user did not choose to write it. Nothing was changed.`,
				);
			}
		}
		return textResult(await write(planned, options.input));
	},
};
