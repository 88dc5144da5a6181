// Cutting one text down to a size: its head and its tail stay, a marker in the middle says how
// much was cut. The one text cutter of Longhaul (docs/glossary.md: "cut"); the token-exact
// variant for tool messages (src/prompts/toolResultText.ts) keeps the same shape.

/** Share of the kept characters taken from the head of the text; the rest comes from its end. */
export const HEAD_SHARE = 0.6;

export interface CutOptions {
	/** The marker line for `cutChars` characters cut. */
	readonly marker?: (cutChars: number) => string;
	/** Count the marker and its line breaks within `maxChars` (storage); otherwise `maxChars` is what is kept of the text. */
	readonly markerInside?: boolean;
}

const defaultMarker = (cutChars: number) => `[... ${cutChars} characters truncated ...]`;

/** `text` when it has at most `maxChars` characters; otherwise its head and tail around a marker. */
export function cutMiddle(text: string, maxChars: number, options: CutOptions = {}): string {
	if (text.length <= maxChars) {
		return text;
	}
	const marker = options.marker ?? defaultMarker;
	// With the marker inside, its length depends on the count it names; the count can only shrink
	// by the marker's length, so sizing the room for the largest possible cut is always enough.
	const room = Math.max(0, Math.floor(maxChars) - (options.markerInside ? marker(text.length).length + 2 : 0));
	const head = Math.ceil(room * HEAD_SHARE);
	const tail = room - head;
	return `${text.slice(0, head)}\n${marker(text.length - head - tail)}\n${tail > 0 ? text.slice(text.length - tail) : ''}`;
}

/**
 * A tool result cut to about `maxTokens` tokens before it is stored or shown (the agent loop and
 * the benchmark's recording): characters in proportion to the token excess, with a 5 % margin.
 */
export function cutToTokens(text: string, maxTokens: number, countTokens: (text: string) => number): string {
	const tokens = countTokens(text);
	if (tokens <= maxTokens) {
		return text;
	}
	return cutMiddle(text, Math.floor(text.length * (maxTokens / tokens) * 0.95));
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
