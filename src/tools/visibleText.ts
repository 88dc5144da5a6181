// How text is shown to a user who must read all of it before allowing something (a command to run,
// a change to a file): nothing in it may be invisible or out of sight. No vscode import:
// unit-tested in Node against a renderer model (tab widths 1 to 8, a view DISPLAY_WIDTH columns
// wide) and a CommonMark parser.
//
// The invariant: every character of the text that is not a plain space is in the shown text,
// either as itself or inside a marker, within the first DISPLAY_WIDTH columns of its line at any
// tab width; no shown line is blank; and the shown text reads back as exactly the text (fromVisible).
//
// - Characters that show nothing or move the text (controls such as CR or ESC, bidirectional
//   overrides, zero-width and other invisible characters, spaces other than the plain space, line
//   separators, unassigned and private-use code points, piles of three or more combining marks,
//   which draw over neighbouring lines) are shown as ⟪U+XXXX⟫, and so is the marker's own bracket.
// - Whitespace other than single spaces is shown too: tabs anywhere (a tab's width depends on the
//   renderer, so a run of tabs under any length rule still pushed text hundreds of columns right),
//   runs of two or more spaces except an indentation of up to INDENT_ALLOWANCE spaces, whitespace
//   at the end of a line, lines that hold only whitespace, and the line breaks around them. A run of one character is one counted
//   marker, ⟪U+0009×5⟫, so 4,000 blank lines take one marker instead of 4,000 lines.
// - A shown line wider than DISPLAY_WIDTH columns (wide characters counted as two) is broken, with
//   ⟪↩⟫ where the text has no line break: nothing sits out of sight to the right.

/** Columns of the view the shown text is laid out for (VS Code's chat is narrow and does not wrap code). */
export const DISPLAY_WIDTH = 64;
/** Leading spaces kept as they are at the start of a line (indentation of a here-document, of a diff). */
export const INDENT_ALLOWANCE = 12;

const MARK_OPEN = '⟪';
const MARK_CLOSE = '⟫';
/** Where a line wider than DISPLAY_WIDTH is broken; the text has no line break there. */
export const WRAP_MARK = '⟪↩⟫';

/**
 * Characters shown as ⟪U+XXXX⟫: controls (Cc), format characters (Cf: bidi overrides, zero-width
 * joiners, tags), default-ignorable ones (fillers, variation selectors), private use, unassigned,
 * lone surrogates, line and paragraph separators, every space but U+0020, the braille blank, and
 * the marker's own bracket. Tabs, spaces and newlines follow the whitespace rules instead.
 */
const HIDDEN = /^[\p{Cc}\p{Cf}\p{DI}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Zs}\u2800⟪]$/u;
const COMBINING_PILE = /\p{M}{3,}/gu;
const BLANK_LINE = /^[ \t]*$/;

/** One piece of the shown text: a character as itself, or a marker for a run of one character. */
interface Unit {
	readonly text: string;
	readonly width: number;
}

interface Marked {
	readonly char: string;
	readonly mark: boolean;
}

export interface VisibleText {
	readonly text: string;
	/** Markers for invisible or control characters (other than tabs, spaces and line breaks). */
	readonly marked: number;
	/** Markers for whitespace other than single spaces: tabs, runs of spaces, blank lines. */
	readonly runs: number;
	/** Markers saved by showing a repeating pattern of markers as one, ⟪(A B)×N⟫. */
	readonly grouped: number;
	/** Line breaks added because a line was wider than DISPLAY_WIDTH. */
	readonly wrapped: number;
	/** Lines of the shown text. */
	readonly lines: number;
}

/**
 * Columns one code point takes, rounded up: East Asian wide and emoji ranges start at U+1100, so
 * everything from there on counts as two (the markers' own brackets too).
 */
function charWidth(char: string): number {
	return char.codePointAt(0)! >= 0x1100 ? 2 : 1;
}

function textWidth(text: string): number {
	let width = 0;
	for (const char of text) width += charWidth(char);
	return width;
}

const WRAP_WIDTH = textWidth(WRAP_MARK);

function marker(char: string, count: number): string {
	const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
	return `${MARK_OPEN}U+${code}${count > 1 ? `×${count}` : ''}${MARK_CLOSE}`;
}

/** The code points of a line that are part of a pile of combining marks (by index in `chars`). */
function pileIndexes(line: string): Set<number> {
	const piles = new Set<number>();
	for (const match of line.matchAll(COMBINING_PILE)) {
		const start = [...line.slice(0, match.index)].length;
		const length = [...match[0]].length;
		for (let i = 0; i < length; i++) piles.add(start + i);
	}
	return piles;
}

/** One line (no newline in it) with each character marked or kept. */
function markLine(line: string, indent: number): Marked[] {
	const chars = [...line];
	if (BLANK_LINE.test(line)) return chars.map(char => ({ char, mark: true }));
	const piles = pileIndexes(line);
	const out: Marked[] = [];
	let i = 0;
	while (i < chars.length) {
		if (chars[i] === ' ' || chars[i] === '\t') {
			let end = i;
			while (end < chars.length && (chars[end] === ' ' || chars[end] === '\t')) end++;
			const run = chars.slice(i, end).join('');
			// Trailing whitespace is marked too: a line broken just before it would show a blank line.
			const keep = end < chars.length && (run === ' ' || (i === 0 && !run.includes('\t') && run.length <= indent));
			for (const char of run) out.push({ char, mark: !keep });
			i = end;
			continue;
		}
		out.push({ char: chars[i], mark: piles.has(i) || HIDDEN.test(chars[i]) });
		i++;
	}
	return out;
}

/**
 * The text's characters, each marked or kept. With `multiline`, a line break stays a line break
 * only between two lines that are not blank; otherwise every line break is marked.
 */
function markText(text: string, multiline: boolean, indent: number): Marked[] {
	const lines = text.split('\n');
	const blank = lines.map(line => BLANK_LINE.test(line));
	const out: Marked[] = [];
	lines.forEach((line, i) => {
		const breaks = multiline && (i === 0 || (!blank[i - 1] && !blank[i]));
		if (i > 0) out.push({ char: '\n', mark: !breaks });
		// Indentation is kept only where a shown line starts.
		out.push(...markLine(line, breaks ? indent : 0));
	});
	return out;
}

/** Marked characters as units, a run of one marked character as one counted marker. */
function toUnits(marked: readonly Marked[]): { units: Unit[]; marked: number; runs: number } {
	const units: Unit[] = [];
	let hidden = 0;
	let runs = 0;
	for (let i = 0; i < marked.length;) {
		const { char, mark } = marked[i];
		if (!mark) {
			units.push({ text: char, width: char === '\n' ? 0 : charWidth(char) });
			i++;
			continue;
		}
		let end = i + 1;
		while (end < marked.length && marked[end].mark && marked[end].char === char) end++;
		const text = marker(char, end - i);
		units.push({ text, width: textWidth(text) });
		if (char === ' ' || char === '\t' || char === '\n') runs++;
		else hidden++;
		i = end;
	}
	return { units, marked: hidden, runs };
}

/** Longest repeating pattern (period 2 to 4 markers) of markers starting at `at`, at least 3 times. */
function repeatAt(units: readonly Unit[], at: number): { period: number; times: number } | undefined {
	let best: { period: number; times: number } | undefined;
	for (let period = 2; period <= 4; period++) {
		const pattern = units.slice(at, at + period);
		if (pattern.length < period || !pattern.every(u => u.text.startsWith(MARK_OPEN))) continue;
		let length = period;
		while (at + length < units.length && units[at + length].text === pattern[length % period].text) length++;
		const times = Math.floor(length / period);
		if (times >= 3 && (!best || times * period > best.times * best.period)) best = { period, times };
	}
	return best;
}

/**
 * Runs of a repeating pattern of markers as one marker, ⟪(U+0009×5 U+0020)×20⟫: a tab-and-space
 * pattern or 3,000 lines holding one space take one line instead of pushing the rest out of sight.
 */
function groupRepeats(units: readonly Unit[]): { units: Unit[]; grouped: number } {
	const out: Unit[] = [];
	let grouped = 0;
	for (let i = 0; i < units.length;) {
		const repeat = repeatAt(units, i);
		if (!repeat) {
			out.push(units[i++]);
			continue;
		}
		const inner = units.slice(i, i + repeat.period).map(u => u.text.slice(MARK_OPEN.length, -MARK_CLOSE.length));
		const text = `${MARK_OPEN}(${inner.join(' ')})×${repeat.times}${MARK_CLOSE}`;
		out.push({ text, width: textWidth(text) });
		grouped += repeat.period * repeat.times - 1;
		i += repeat.period * repeat.times;
	}
	return { units: out, grouped };
}

/** Breaks one shown line into pieces of at most `width` columns, ending each broken piece with ⟪↩⟫. */
function wrapLine(units: readonly Unit[], width: number): string[] {
	const total = units.reduce((sum, u) => sum + u.width, 0);
	if (total <= width) return [units.map(u => u.text).join('')];
	const limit = width - WRAP_WIDTH;
	const pieces: string[] = [];
	let piece: Unit[] = [];
	let columns = 0;
	for (const unit of units) {
		if (columns > 0 && columns + unit.width > limit) {
			// Break after the last single space when it is near the end, so words stay whole.
			const space = piece.map(u => u.text).lastIndexOf(' ');
			const tail = space > 0 && columns - piece.slice(0, space + 1).reduce((s, u) => s + u.width, 0) <= 16 ? piece.splice(space + 1) : [];
			pieces.push(piece.map(u => u.text).join('') + WRAP_MARK);
			piece = tail;
			columns = tail.reduce((s, u) => s + u.width, 0);
		}
		piece.push(unit);
		columns += unit.width;
	}
	pieces.push(piece.map(u => u.text).join(''));
	return pieces;
}

/**
 * `text` as it is shown: hidden characters and whitespace other than single spaces as markers.
 * With `multiline`, real line breaks stay and lines wider than `width` are broken with ⟪↩⟫;
 * without it, the text is one line and line breaks are markers too.
 */
export function visible(text: string, multiline: boolean, width = multiline ? DISPLAY_WIDTH : Infinity): VisibleText {
	const marked = toUnits(markText(text, multiline, INDENT_ALLOWANCE));
	const { units, grouped } = groupRepeats(marked.units);
	const lines: Unit[][] = [[]];
	for (const unit of units) {
		if (unit.text === '\n') lines.push([]);
		else lines[lines.length - 1].push(unit);
	}
	const shown = lines.flatMap(line => wrapLine(line, width));
	return { text: shown.join('\n'), marked: marked.marked, runs: marked.runs, grouped, wrapped: shown.length - lines.length, lines: shown.length };
}

export interface GutterLine {
	/** Shown as it is before the line: a diff sign and a line number. */
	readonly gutter: string;
	/** One line of a file, without its line break. */
	readonly text: string;
}

/**
 * Lines of a file shown after a gutter each (a change to confirm): the same rules as `visible`, the
 * indentation counted from the end of the gutter, and each line broken at `width` with ⟪↩⟫.
 */
export function visibleGutterLines(lines: readonly GutterLine[], width = DISPLAY_WIDTH): VisibleText {
	let marked = 0;
	let runs = 0;
	let grouped = 0;
	const shown: string[] = [];
	for (const line of lines) {
		const units = toUnits(markLine(line.text, INDENT_ALLOWANCE));
		const repeated = groupRepeats(units.units);
		marked += units.marked;
		runs += units.runs;
		grouped += repeated.grouped;
		const gutter = [...line.gutter].map(text => ({ text, width: charWidth(text) }));
		shown.push(...wrapLine([...gutter, ...repeated.units], width));
	}
	return { text: shown.join('\n'), marked, runs, grouped, wrapped: shown.length - lines.length, lines: shown.length };
}

/**
 * Reverses `visible`: what the user reads maps back to exactly one text.
 * @internal Kept beside the markers it reads so both change together; tests prove with it that the shown text is unambiguous.
 */
export function fromVisible(shown: string): string {
	const one = (item: string) => {
		const [, hex, count] = /^U\+([0-9A-F]{4,6})(?:×([0-9]+))?$/.exec(item) ?? [];
		return hex === undefined ? item : String.fromCodePoint(parseInt(hex, 16)).repeat(count ? Number(count) : 1);
	};
	return shown.replace(
		/⟪↩⟫\n|⟪\(([^)⟫]*)\)×([0-9]+)⟫|⟪(U\+[0-9A-F]{4,6}(?:×[0-9]+)?)⟫/g,
		(_, group: string | undefined, times: string | undefined, item: string | undefined) => {
			if (group !== undefined) return group.split(' ').map(one).join('').repeat(Number(times));
			return item === undefined ? '' : one(item);
		},
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
	if (/^ *$/.test(shown)) shown = shown.replace(/ /g, c => marker(c, 1));
	const ticks = '`'.repeat(longestRun(shown, '`') + 1);
	// CommonMark strips one space from each side when both are there: pad so that only the padding goes.
	return `${ticks} ${shown} ${ticks}`;
}

export interface ShownBlock extends VisibleText {
	/** The fenced code block. */
	readonly block: string;
}

/** A fenced code block that shows `text` exactly, however many backticks or fences it holds. */
export function codeBlock(text: string, language = ''): ShownBlock {
	const shown = visible(text, true);
	const fence = '`'.repeat(Math.max(3, longestRun(shown.text, '`') + 1));
	return { ...shown, block: `${fence}${language}\n${shown.text}\n${fence}` };
}

/** The note that explains the markers of a shown block, or '' when it has none. */
export function markerNotes(shown: VisibleText, what: string): string[] {
	return [
		shown.marked > 0 ? `${shown.marked} invisible or control character(s) in ${what} are shown as ${MARK_OPEN}U+XXXX${MARK_CLOSE}.` : '',
		shown.runs > 0
			? `Whitespace other than single spaces is shown as ${MARK_OPEN}U+XXXX×N${MARK_CLOSE} (${shown.runs} run(s); U+0009 is a tab, U+0020 a space, U+000A a line break).`
			: '',
		shown.grouped > 0 ? `${MARK_OPEN}(A B)×N${MARK_CLOSE} stands for A then B, N times over.` : '',
		shown.wrapped > 0 ? `Lines wider than ${DISPLAY_WIDTH} columns are broken at ${WRAP_MARK}; ${what} has no line break there.` : '',
	].filter(Boolean);
}

/** One line for progress messages and the terminal: the start of the text, shown safely. */
export function preview(text: string, maxChars = 200): string {
	const { text: shown } = visible(text.length > maxChars ? text.slice(0, maxChars) : text, false);
	return text.length > maxChars ? `${shown}…` : shown;
}
