// The lines longhaul_readFile answers: 1-based and inclusive, a negative number counting from the
// end (-1 is the last line), so `endLine: -1` means "to the end" instead of an empty "lines 1--1".
// No vscode import.

export type LineRange =
	{ readonly ok: true; readonly start: number; readonly end: number; readonly note: string } | { readonly ok: false; readonly message: string };

/** A whole number from what the model sent, or undefined (NaN, text and the like). */
function wholeNumber(value: unknown): number | undefined {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof n === 'number' && Number.isFinite(n) ? Math.trunc(n) : undefined;
}

/** A line number as given, negative ones counted from the end of `total` lines. */
function fromEnd(n: number, total: number): number {
	return n < 0 ? total + n + 1 : n;
}

/** The range of `total` lines to show for startLine / endLine as the model sent them. */
export function lineRange(startLine: unknown, endLine: unknown, total: number): LineRange {
	const start = wholeNumber(startLine);
	const end = wholeNumber(endLine);
	const notes: string[] = [];
	if (start !== undefined && start < 0) notes.push(`startLine ${start} counts from the end`);
	if (end !== undefined && end < 0) notes.push(end === -1 ? 'endLine -1 is the last line' : `endLine ${end} counts from the end`);
	if (end === 0) notes.push('endLine 0 is read as the last line');
	const first = Math.max(1, start === undefined || start === 0 ? 1 : fromEnd(start, total));
	const last = Math.min(total, end === undefined || end === 0 ? total : fromEnd(end, total));
	if (first > total) return { ok: false, message: `has ${total} lines; line ${first} does not exist.` };
	if (last < first) {
		return {
			ok: false,
			message: `has ${total} lines; endLine ${end} (line ${last}) comes before startLine ${start ?? 1} (line ${first}), so there is nothing to show. Lines are 1-based and inclusive; a negative number counts from the end (-1 is the last line).`,
		};
	}
	return { ok: true, start: first, end: last, note: notes.length ? ` (${notes.join('; ')})` : '' };
}
