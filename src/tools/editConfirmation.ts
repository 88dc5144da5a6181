// What the user reads before longhaul_editFile writes: the new file whole, or the lines an edit or
// an overwrite changes, shown with the same rules as a command (src/tools/visibleText.ts), and a
// warning first when the file configures code that runs. No vscode import: unit-tested in Node.
//
// - A plain file's change is cut after MAX_CHANGE_LINES shown lines, with a note saying so.
// - A file that configures code that runs is shown whole or not written: its change must fit.
import { lineDiff } from '../common/tools/textDiff';
import { CONFIRM_HEIGHT, MAX_CONFIRMATION_CHARS } from './commandText';
import { EditPlan } from './editPlan';
import { Refusal } from './pathGuard';
import { GutterLine, inlineCode, markerNotes, VisibleText, visibleGutterLines } from './visibleText';

/** Shown lines of a change in a confirmation. */
export const MAX_CHANGE_LINES = 400;

export interface ShownChange {
	/** One line saying what is written: "Longhaul wants to edit `x` (1 line removed, 1 added)". */
	readonly summary: string;
	/** The change as shown lines, each after its gutter (sign and line number). */
	readonly shown: VisibleText;
	/** Lines of the change that are not shown (a plain file's change past MAX_CHANGE_LINES). */
	readonly cut: number;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The plan's change as gutter lines: the whole new file, or the diff's hunks. */
function changeLines(plan: EditPlan): { lines: GutterLine[]; summary: string } {
	if (plan.before === undefined) {
		const lines = plan.after.split('\n');
		const width = String(lines.length).length;
		return { lines: lines.map((text, i) => ({ gutter: `+${String(i + 1).padStart(width)}|`, text })), summary: plural(lines.length, 'line') };
	}
	const diff = lineDiff(plan.before, plan.after);
	const width = String(Math.max(plan.before.split('\n').length, plan.after.split('\n').length)).length;
	const lines: GutterLine[] = [];
	for (const hunk of diff.hunks) {
		const first = hunk[0];
		lines.push({ gutter: '', text: `@@ line ${first.newIndex + 1} @@` });
		for (const line of hunk) {
			const number = line.kind === '-' ? line.oldIndex : line.newIndex;
			lines.push({ gutter: `${line.kind}${String(number + 1).padStart(width)}|`, text: line.text });
		}
	}
	const summary = diff.hunks.length === 0 ? 'no change: the new text is the same as the old' : `${plural(diff.removed, 'line')} removed, ${diff.added} added`;
	return { lines, summary };
}

/** The change a plan makes, shown; a plain file's change cut at `maxLines` shown lines. */
export function showChange(plan: EditPlan, shownPath: string, maxLines = MAX_CHANGE_LINES): ShownChange {
	const { lines, summary } = changeLines(plan);
	const verb = plan.kind === 'edit' ? 'edit' : plan.kind;
	let kept = lines;
	let shown = visibleGutterLines(kept);
	// Cut by source lines until the shown (wrapped) lines fit; a file that runs code is never cut.
	while (!plan.codeConfig && shown.lines > maxLines && kept.length > 1) {
		kept = kept.slice(0, Math.max(1, Math.floor((kept.length * maxLines) / shown.lines) - 1));
		shown = visibleGutterLines(kept);
	}
	return { summary: `Longhaul wants to ${verb} ${inlineCode(shownPath)} (${summary}).`, shown, cut: lines.length - kept.length };
}

function fenced(text: string): string {
	let longest = 0;
	for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
	const fence = '`'.repeat(Math.max(3, longest + 1));
	return `${fence}diff\n${text}\n${fence}`;
}

/** The confirmation's markdown for a plan, or why the change cannot be shown whole. */
export function editConfirmation(plan: EditPlan, shownPath: string): { ok: true; markdown: string } | Refusal {
	const change = showChange(plan, shownPath);
	const tooLarge: Refusal = {
		ok: false,
		reason: `The change to ${inlineCode(shownPath)} is shown on ${change.shown.lines} lines; Longhaul writes files that configure tools which run code (${plan.codeConfig?.rule}) only when the whole change fits in the confirmation (${MAX_CHANGE_LINES} lines). Make it in smaller edits with oldText; nothing was written.`,
	};
	if (plan.codeConfig && change.shown.lines > MAX_CHANGE_LINES) return tooLarge;
	const notes = [
		plan.codeConfig
			? `⚠️ **This file configures code that runs**: ${plan.codeConfig.why}. Read the whole change before you allow it. Longhaul asks once more before it writes this file, whatever tool approvals are set.`
			: '',
		change.cut > 0 ? `The change has ${change.cut} more line(s) that are not shown here.` : '',
		change.shown.lines > CONFIRM_HEIGHT ? `The change is shown on ${change.shown.lines} lines; scroll the block (and open "See more") to read all of it.` : '',
		...markerNotes(change.shown, 'the file'),
	].filter(Boolean);
	const markdown = [change.summary, ...notes, fenced(change.shown.text)].join('\n\n');
	if (markdown.length > MAX_CONFIRMATION_CHARS) {
		if (plan.codeConfig) return tooLarge;
		const cut = showChange(plan, shownPath, Math.floor(MAX_CHANGE_LINES / 4));
		return {
			ok: true,
			markdown: [
				cut.summary,
				`The change has ${cut.cut} more line(s) that are not shown here.`,
				...markerNotes(cut.shown, 'the file'),
				fenced(cut.shown.text),
			].join('\n\n'),
		};
	}
	return { ok: true, markdown };
}
