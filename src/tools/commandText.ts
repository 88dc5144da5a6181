// How a command is shown to the user who confirms it: exactly, whatever it holds, and all of it in
// sight (src/tools/visibleText.ts says how). No vscode import: unit-tested in Node against a
// CommonMark renderer and a renderer model.
//
// - The code fence is one backtick longer than the longest run of backticks in the command, so
//   nothing in the command can close it early (a fixed ``` fence let a command render as two
//   harmless blocks while /bin/sh ran a hidden line).
// - The notes (what the markers mean, how tall the block is) come before the block: VS Code shows
//   the first ~200 pixels of a confirmation and folds the rest behind "See more".
// - Commands longer than MAX_COMMAND_CHARS are refused: VS Code cuts confirmation markdown at
//   100,000 characters, and nobody reviews more than a screenful anyway. So is a command that
//   needs more than MAX_MARKERS markers (whitespace of every kind in no repeating pattern).

import { nonAsciiNote } from './lookAlikes';
import { codeBlock, inlineCode, markerNotes, preview } from './visibleText';

export const MAX_COMMAND_CHARS = 10_000;
/** The confirmation markdown stays far below VS Code's 100,000-character cut. */
export const MAX_CONFIRMATION_CHARS = 60_000;
/** More markers than this and the command is no longer readable as a command. */
export const MAX_MARKERS = 300;
/** Lines of a code block the confirmation shows before "See more" and scrolling, about. */
export const CONFIRM_HEIGHT = 8;

export type Confirmation = { readonly ok: true; readonly markdown: string } | { readonly ok: false; readonly reason: string };

/**
 * The markdown of the confirmation for running `command` in `folder`, or why it cannot be shown.
 * `context` are lines said first: what the command may do (sandboxed or not), warnings.
 */
export function commandConfirmation(command: string, folder: string, context: readonly string[] = []): Confirmation {
	if (command.length > MAX_COMMAND_CHARS) {
		return {
			ok: false,
			reason: `The command has ${command.length} characters; Longhaul asks the user to confirm commands of at most ${MAX_COMMAND_CHARS} characters, so that the confirmation shows all of it. Write a script file with longhaul_editFile and run that instead.`,
		};
	}
	const shown = codeBlock(command, 'sh');
	const markers = shown.marked + shown.runs - shown.grouped;
	if (markers > MAX_MARKERS) {
		return {
			ok: false,
			reason: `The command holds ${markers} runs of invisible characters, tabs, repeated spaces or blank lines; a confirmation shows at most ${MAX_MARKERS} of them as markers. Remove the stray whitespace, or write a script file with longhaul_editFile and run that.`,
		};
	}
	const notes = [
		...context,
		nonAsciiNote(command, 'The command') ?? '',
		shown.lines > CONFIRM_HEIGHT
			? `The command is shown on ${shown.lines} lines; the confirmation may show only the first few. Scroll the block (and open "See more") to read all of it before allowing it.`
			: '',
		...markerNotes(shown, 'the command'),
	].filter(Boolean);
	const markdown = `Longhaul wants to run in ${inlineCode(folder)}:${notes.map(n => `\n\n${n}`).join('')}\n\n${shown.block}`;
	if (markdown.length > MAX_CONFIRMATION_CHARS) {
		return {
			ok: false,
			reason: `The command holds too many invisible, control or non-ASCII characters to show in a confirmation (${markdown.length} characters once made visible and named).`,
		};
	}
	return { ok: true, markdown };
}

/** One line for progress messages and the terminal: the start of the command, shown safely. */
export function commandPreview(command: string, maxChars = 200): string {
	return preview(command, maxChars);
}
