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

/**
 * The first lines of `text` that fit in `maxTokens`; when even the first line does not, its
 * beginning, cut at a character count scaled to fit, with an ellipsis. Never empty for a non-empty text.
 */
export function firstLines(text: string, maxTokens: number, countTokens: (text: string) => number): string {
	const lines = text.trim().split('\n');
	const kept: string[] = [];
	let used = 0;
	for (const line of lines) {
		const cost = countTokens(line) + (kept.length ? 1 : 0);
		if (used + cost > maxTokens) break;
		kept.push(line);
		used += cost;
	}
	if (kept.length) return kept.join('\n');
	let head = lines[0];
	while (head.length > 1 && countTokens(head + '…') > maxTokens) {
		head = head.slice(0, Math.max(1, Math.floor((head.length * maxTokens) / countTokens(head + '…')) - 1));
	}
	return head + '…';
}
