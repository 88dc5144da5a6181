// Log lines that would repeat at every request (the tools left out, for one) are written when they
// change, not each time: remembers the last line of each topic.
export class ChangedLines {
	private readonly last = new Map<string, string>();

	/** Whether `line` differs from the last one of `topic` (and remembers it). */
	changed(topic: string, line: string): boolean {
		if (this.last.get(topic) === line) return false;
		this.last.set(topic, line);
		return true;
	}
}
