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
// - What would push part of the command out of sight is shown too: a long run of spaces or tabs
//   (a line that looks like `make test` and goes on 9,000 columns to the right) becomes one
//   marker with a count, ⟪U+0020×9000⟫, as does a run of more than two blank lines; and a command
//   that is tall or wide anyway gets a note with its number of lines and its longest line.
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

/** Runs this long (or longer) are shown as one counted marker: longer than any real indentation. */
const SPACE_RUN = / {24,}/g;
const TAB_RUN = /\t{6,}/g;
/** More than two blank lines in a row: the newlines between the first and the last are counted. */
const BLANK_LINES = /\n{4,}/g;

/** Past these, the confirmation says how many lines the command has and how long the longest is. */
const NOTE_LINES = 20;
const NOTE_LINE_CHARS = 160;

export interface VisibleText {
	readonly text: string;
	/** How many characters were shown as ⟪U+XXXX⟫. */
	readonly marked: number;
	/** How many runs of spaces, tabs or blank lines were shown as ⟪U+XXXX×N⟫. */
	readonly runs: number;
}

function marker(char: string, count = 1): string {
	const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
	return `${MARK_OPEN}U+${code}${count > 1 ? `×${count}` : ''}${MARK_CLOSE}`;
}

/**
 * `text` with every hidden character shown as ⟪U+XXXX⟫ (newlines and tabs kept when `multiline`)
 * and every long run of spaces, tabs or blank lines as ⟪U+XXXX×N⟫.
 */
export function visible(text: string, multiline: boolean): VisibleText {
	let marked = 0;
	let runs = 0;
	const run = (chars: string) => {
		runs++;
		return marker(chars, chars.length);
	};
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
			return [...pile].map(c => marker(c)).join('');
		})
		.replace(SPACE_RUN, run)
		.replace(TAB_RUN, run)
		// The first and the last newline stay, so the lines around the marker stay lines.
		.replace(BLANK_LINES, newlines => `\n${run(newlines.slice(2))}\n`);
	return { text: shown, marked, runs };
}

/** Reverses `visible`: what the user reads maps back to exactly one text. */
export function fromVisible(shown: string): string {
	// (Also reads the ⟪U+0020⟫ that inlineCode uses for a text of spaces only.)
	return shown.replace(/⟪U\+([0-9A-F]{4,6})(?:×([0-9]+))?⟫/g, (_, hex: string, count: string | undefined) =>
		String.fromCodePoint(parseInt(hex, 16)).repeat(count ? Number(count) : 1),
	);
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
	if (/^ *$/.test(shown)) shown = shown.replace(/ /g, c => marker(c));
	const ticks = '`'.repeat(longestRun(shown, '`') + 1);
	// CommonMark strips one space from each side when both are there: pad so that only the padding goes.
	return `${ticks} ${shown} ${ticks}`;
}

/** A fenced code block that shows `text` exactly, however many backticks or fences it holds. */
export function codeBlock(text: string, language = ''): VisibleText {
	const shown = visible(text, true);
	const fence = '`'.repeat(Math.max(3, longestRun(shown.text, '`') + 1));
	return { text: `${fence}${language}\n${shown.text}\n${fence}`, marked: shown.marked, runs: shown.runs };
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
	const notes = [
		block.marked > 0 ? `${block.marked} invisible or control character(s) are shown as ${MARK_OPEN}U+XXXX${MARK_CLOSE}.` : '',
		block.runs > 0 ? `${block.runs} long run(s) of spaces, tabs or blank lines are shown as ${MARK_OPEN}U+XXXX×N${MARK_CLOSE}.` : '',
		sizeNote(block.text),
	].filter(Boolean);
	const markdown = `Longhaul wants to run in ${inlineCode(folder)}:\n\n${block.text}${notes.map(n => `\n\n${n}`).join('')}`;
	if (markdown.length > MAX_CONFIRMATION_CHARS) {
		return {
			ok: false,
			reason: `The command holds too many invisible or control characters to show in a confirmation (${markdown.length} characters once made visible).`,
		};
	}
	return { ok: true, markdown };
}

/** For a tall or wide block: how many lines it has and how long its longest is, so none goes unread. */
function sizeNote(block: string): string {
	const lines = block.split('\n').slice(1, -1);
	const longest = Math.max(...lines.map(line => line.length));
	if (lines.length <= NOTE_LINES && longest <= NOTE_LINE_CHARS) return '';
	return `The command is shown on ${lines.length} line(s); the longest has ${longest} characters. Scroll the block to read all of it.`;
}

/** One line for progress messages and the terminal: the start of the command, shown safely. */
export function commandPreview(command: string, maxChars = 200): string {
	const { text } = visible(command.length > maxChars ? command.slice(0, maxChars) : command, false);
	return command.length > maxChars ? `${text}…` : text;
}
