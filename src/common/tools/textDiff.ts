// What a write changes, line by line: the confirmation of an overwrite or an edit shows this
// instead of a character count, so the user sees what the file will say. No vscode import.
//
// Lines common to the start and the end are matched first; the lines between are matched with a
// longest-common-subsequence table when that is small (at most MAX_LCS_CELLS cells), else shown
// as all removed and all added: always a correct diff, if not the shortest one, in bounded time.

export interface DiffLine {
	readonly kind: ' ' | '-' | '+';
	/** 0-based: the line's index in the text before (for an added line, of the line it goes before). */
	readonly oldIndex: number;
	/** 0-based: the line's index in the text after (for a removed line, of the line it was before). */
	readonly newIndex: number;
	readonly text: string;
}

export interface Diff {
	/** Groups of changed lines with up to `context` unchanged lines around them. */
	readonly hunks: readonly (readonly DiffLine[])[];
	readonly removed: number;
	readonly added: number;
}

const MAX_LCS_CELLS = 4_000_000;

/** The edit script between two line arrays as a list of kinds, matched by LCS or not at all. */
function middleScript(a: readonly string[], b: readonly string[]): (' ' | '-' | '+')[] {
	if ((a.length + 1) * (b.length + 1) > MAX_LCS_CELLS) return [...a.map(() => '-' as const), ...b.map(() => '+' as const)];
	const width = b.length + 1;
	// lcs[i * width + j]: the longest common subsequence of a[i..] and b[j..].
	const lcs = new Uint32Array((a.length + 1) * width);
	for (let i = a.length - 1; i >= 0; i--) {
		for (let j = b.length - 1; j >= 0; j--) {
			lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
		}
	}
	const script: (' ' | '-' | '+')[] = [];
	let i = 0;
	let j = 0;
	while (i < a.length || j < b.length) {
		if (i < a.length && j < b.length && a[i] === b[j]) {
			script.push(' ');
			i++;
			j++;
		} else if (j >= b.length || (i < a.length && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
			script.push('-');
			i++;
		} else {
			script.push('+');
			j++;
		}
	}
	return script;
}

/** Every line of both texts in order, each kept, removed or added. */
function allLines(before: readonly string[], after: readonly string[]): DiffLine[] {
	let prefix = 0;
	while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix++;
	let suffix = 0;
	while (suffix < before.length - prefix && suffix < after.length - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
	const script = [
		...before.slice(0, prefix).map(() => ' ' as const),
		...middleScript(before.slice(prefix, before.length - suffix), after.slice(prefix, after.length - suffix)),
		...before.slice(before.length - suffix).map(() => ' ' as const),
	];
	const lines: DiffLine[] = [];
	let i = 0;
	let j = 0;
	for (const kind of script) {
		lines.push({ kind, oldIndex: i, newIndex: j, text: kind === '+' ? after[j] : before[i] });
		if (kind !== '+') i++;
		if (kind !== '-') j++;
	}
	return lines;
}

/** The line diff of two texts, in hunks with `context` unchanged lines around each change. */
export function lineDiff(before: string, after: string, context = 3): Diff {
	const lines = allLines(before.split('\n'), after.split('\n'));
	const changed = lines.map(l => l.kind !== ' ');
	const near = lines.map((_, i) => changed.slice(Math.max(0, i - context), i + context + 1).some(Boolean));
	const hunks: DiffLine[][] = [];
	lines.forEach((line, i) => {
		if (!near[i]) return;
		if (i === 0 || !near[i - 1]) hunks.push([]);
		hunks[hunks.length - 1].push(line);
	});
	return { hunks, removed: changed.filter((c, i) => c && lines[i].kind === '-').length, added: changed.filter((c, i) => c && lines[i].kind === '+').length };
}
