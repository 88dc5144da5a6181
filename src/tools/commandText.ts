// How a command (and a path) is shown to the user who confirms it: exactly, whatever it holds.
// No vscode import: unit-tested in Node against a CommonMark renderer.
//
// - The code fence is one backtick longer than the longest run of backticks in the command, so
//   nothing in the command can close it early (a fixed ``` fence let a command render as two
//   harmless blocks while /bin/sh ran a hidden line).
// - Characters that show nothing or move the text (control characters such as CR or ESC,
//   bidirectional overrides, zero-width and other invisible characters, spaces other than the
//   plain space, line separators, unassigned and private-use code points, and piles of three or
//   more combining marks, which draw over neighbouring lines) are shown as ⟪U+XXXX⟫.
//   The marker's own opening bracket is shown the same way, so the display maps back to exactly
//   one command.
// - Commands longer than MAX_COMMAND_CHARS are refused: VS Code cuts confirmation markdown at
//   100,000 characters, and nobody reviews more than a screenful anyway.

export const MAX_COMMAND_CHARS = 10_000;
/** The confirmation markdown stays far below VS Code's 100,000-character cut. */
export const MAX_CONFIRMATION_CHARS = 60_000;

const MARK_OPEN = '⟪';
const MARK_CLOSE = '⟫';

/**
 * Characters shown as ⟪U+XXXX⟫: controls (Cc), format characters (Cf: bidi overrides, zero-width
 * joiners, tags), default-ignorable ones (fillers, variation selectors), private use, unassigned,
 * lone surrogates, line and paragraph separators, every space but U+0020, the braille blank, and
 * the marker's own bracket. Newline and tab are kept by `visible` unless asked otherwise.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{DI}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Zs}\u2800⟪]/gu;

const COMBINING_PILE = /\p{M}{3,}/gu;

export interface VisibleText {
	readonly text: string;
	/** How many characters were shown as ⟪U+XXXX⟫. */
	readonly marked: number;
}

function marker(char: string): string {
	return `${MARK_OPEN}U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}${MARK_CLOSE}`;
}

/** `text` with every hidden character shown as ⟪U+XXXX⟫ (newlines and tabs kept when `multiline`). */
export function visible(text: string, multiline: boolean): VisibleText {
	let marked = 0;
	const shown = text
		.replace(HIDDEN, char => {
			if (char === ' ' || (multiline && (char === '\n' || char === '\t'))) return char;
			marked++;
			return marker(char);
		})
		// A pile of combining marks draws over the lines around it and can cover one: past two in a
		// row (more than any script needs on one letter), each is shown as a marker.
		.replace(COMBINING_PILE, pile => {
			marked += [...pile].length;
			return [...pile].map(marker).join('');
		});
	return { text: shown, marked };
}

/** Reverses `visible`: what the user reads maps back to exactly one text. */
export function fromVisible(shown: string): string {
	// (Also reads the ⟪U+0020⟫ that inlineCode uses for a text of spaces only.)
	return shown.replace(/⟪U\+([0-9A-F]{4,6})⟫/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)));
}

function longestRun(text: string, char: string): number {
	let longest = 0;
	let run = 0;
	for (const c of text) {
		run = c === char ? run + 1 : 0;
		longest = Math.max(longest, run);
	}
	return longest;
}

/** A markdown code span that shows `text` exactly, on one line. */
export function inlineCode(text: string): string {
	let { text: shown } = visible(text, false);
	// Renderers disagree on code spans of spaces only: show those spaces as markers.
	if (/^ *$/.test(shown)) shown = shown.replace(/ /g, marker);
	const ticks = '`'.repeat(longestRun(shown, '`') + 1);
	// CommonMark strips one space from each side when both are there: pad so that only the padding goes.
	return `${ticks} ${shown} ${ticks}`;
}

/** A fenced code block that shows `text` exactly, however many backticks or fences it holds. */
export function codeBlock(text: string, language = ''): VisibleText {
	const shown = visible(text, true);
	const fence = '`'.repeat(Math.max(3, longestRun(shown.text, '`') + 1));
	return { text: `${fence}${language}\n${shown.text}\n${fence}`, marked: shown.marked };
}

export type Confirmation = { readonly ok: true; readonly markdown: string } | { readonly ok: false; readonly reason: string };

/** The markdown of the confirmation for running `command` in `folder`, or why it cannot be shown. */
export function commandConfirmation(command: string, folder: string): Confirmation {
	if (command.length > MAX_COMMAND_CHARS) {
		return {
			ok: false,
			reason: `The command has ${command.length} characters; Longhaul asks the user to confirm commands of at most ${MAX_COMMAND_CHARS} characters, so that the confirmation shows all of it. Write a script file with longhaul_editFile and run that instead.`,
		};
	}
	const block = codeBlock(command, 'sh');
	const note = block.marked > 0 ? `\n\n${block.marked} invisible or control character(s) are shown as ${MARK_OPEN}U+XXXX${MARK_CLOSE}.` : '';
	const markdown = `Longhaul wants to run in ${inlineCode(folder)}:\n\n${block.text}${note}`;
	if (markdown.length > MAX_CONFIRMATION_CHARS) {
		return {
			ok: false,
			reason: `The command holds too many invisible or control characters to show in a confirmation (${markdown.length} characters once made visible).`,
		};
	}
	return { ok: true, markdown };
}

/** One line for progress messages and the terminal: the start of the command, shown safely. */
export function commandPreview(command: string, maxChars = 200): string {
	const { text } = visible(command.length > maxChars ? command.slice(0, maxChars) : command, false);
	return command.length > maxChars ? `${text}…` : text;
}
