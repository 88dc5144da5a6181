// The shapes the shell classifier works with: a word of a command line (its text and whether
// that text is its value) and what a command does (reads, writes, looks, runs).

/** A word of a command: quotes removed; `literal` when its value is exactly `text` (no expansion, glob or substitution). */
export interface Arg {
	readonly text: string;
	readonly literal: boolean;
}

export interface Effects {
	reads: string[];
	writes: string[];
	inspects: boolean;
	runs: boolean;
	/** A git command pointed at another repository (-C, --git-dir, --work-tree): its configuration runs. */
	otherRepository?: boolean;
	/** Of `writes`, those an output redirection of the shell made (`> f`), not the program itself. */
	redirected?: string[];
}

export const none = (): Effects => ({ reads: [], writes: [], inspects: false, runs: false });
export const inspecting = (reads: string[] = []): Effects => ({ reads, writes: [], inspects: true, runs: false });
export const running = (writes: string[] = []): Effects => ({ reads: [], writes, inspects: false, runs: true });
export const writing = (writes: string[]): Effects => ({ reads: [], writes, inspects: false, runs: false });

export function merge(into: Effects, e: Effects): Effects {
	into.reads.push(...e.reads);
	into.writes.push(...e.writes);
	into.inspects ||= e.inspects;
	into.runs ||= e.runs;
	if (e.otherRepository) into.otherRepository = true;
	if (e.redirected?.length) (into.redirected ??= []).push(...e.redirected);
	return into;
}

export const isOption = (w: string) => w.startsWith('-') && w !== '-';

/** A word that names a file rather than a pattern, number, option or expansion. */
export const looksLikePath = (a: Arg) =>
	a.literal &&
	a.text !== '' &&
	a.text !== '{}' &&
	!isOption(a.text) &&
	!/^[+-]?\d+(,\d+)?p?$/.test(a.text) &&
	!/[*?\s]/.test(a.text) &&
	!/[$`<>()]/.test(a.text);
