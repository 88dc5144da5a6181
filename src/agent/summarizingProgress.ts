// The progress lines that say a summary is being written, whatever language they are in: the
// context meter spins from such a line until the next text (participant.ts). They are recognised
// by identity, not by their words, which change with the user's language.
const lines = new Set<string>();
/** Lines kept to recognise: the few a request may still show. */
const KEPT = 64;

/** `text`, shown as a progress line, marks a summary being written. */
export function summarizingLine(text: string): string {
	lines.delete(text);
	lines.add(text);
	if (lines.size > KEPT) lines.delete(lines.values().next().value as string);
	return text;
}

/** Was `text` made by {@link summarizingLine}? */
export function isSummarizingLine(text: string): boolean {
	return lines.has(text);
}
