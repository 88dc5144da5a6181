// The progress lines that say a summary is being written, whatever language they are in: the
// context meter spins from such a line until the next text (participant.ts). They are recognised
// by identity, not by their words, which change with the user's language. One set per request:
// only the lines a request shows are ever looked up.
export class SummarizingLines {
	private readonly lines = new Set<string>();

	/** `text`, shown as a progress line, marks a summary being written. */
	line(text: string): string {
		this.lines.add(text);
		return text;
	}

	/** Was `text` made by {@link line}? */
	has(text: string): boolean {
		return this.lines.has(text);
	}
}
