// Deterministic text truncation that keeps the head and the tail and says what was cut.

/** Keeps at most `maxChars` characters: the head, a marker naming how much was cut, and the tail. */
export function truncateMiddle(text: string, maxChars: number, unit = 'characters'): string {
	if (text.length <= maxChars) {
		return text;
	}
	const keep = Math.max(0, maxChars);
	const head = Math.ceil(keep * 0.6);
	const tail = keep - head;
	const cut = text.length - head - tail;
	return `${text.slice(0, head)}\n[... ${cut} ${unit} truncated ...]\n${tail > 0 ? text.slice(text.length - tail) : ''}`;
}
