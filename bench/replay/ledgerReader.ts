// Reads a rendered done-ledger back, the way the continuity benchmark (and the tests) check what
// a prompt names: which files it lists as edited and which commands it lists with which outcome.
// It reads only the text; what counts as naming a fact is decided here, not by the renderer:
//   - an edit is named when its full path is on a line of "Files created or edited:" (a line
//     inside a directory line, indented two more spaces, continues that directory's path; a
//     group line such as "12 files under src/" names no file);
//   - a command is named when a line of "Commands run" shows it with its latest outcome: the
//     command word for word, or shortened with "…" so that exactly one command of the ledger has
//     those pieces in that order (the first at its start, the last at its end), a shared start
//     written once on a "followed by:" line counting for each command under it; the outcome word
//     for word, or cut with "…" at its end (a long "last line" of output);
//   - a search is named by its line under "Searches and listings:" (the call's text, cut with "…"
//     at its end when long; a group line "N older searches …" names none);
//   - a request is named when its line shows it in full.
import { LEDGER_HEADING } from '../../src/common/ledger/doneLedgerRender';

export interface ReadLedger {
	/** Request lines: number (1-based) → text as shown. */
	readonly requests: ReadonlyMap<number, string>;
	readonly edits: ReadonlySet<string>;
	readonly reads: ReadonlySet<string>;
	/** The text after "- `" of each single command line (command, backtick, colon, outcome, maybe a run count). */
	readonly commandLines: readonly string[];
	/** The text after "- " of each single line of "Searches and listings:" (a search as the call wrote it), without its count. */
	readonly searchLines: readonly string[];
}

const SECTIONS = {
	'User requests, oldest first:': 'requests',
	'Files created or edited:': 'edits',
	'Commands run (outcome of the latest run):': 'commands',
	'Files read:': 'reads',
	'Searches and listings:': 'searches',
	'Other tool calls:': 'others',
} as const;

type Section = (typeof SECTIONS)[keyof typeof SECTIONS] | 'plan' | undefined;

/** The ledger inside `text` (a prompt, or the ledger alone); empty when there is none. */
export function readLedger(text: string): ReadLedger {
	const requests = new Map<number, string>();
	const edits = new Set<string>();
	const reads = new Set<string>();
	const commandLines: string[] = [];
	const searchLines: string[] = [];
	const start = text.indexOf(LEDGER_HEADING);
	if (start === -1) return { requests, edits, reads, commandLines, searchLines };
	const endTag = text.indexOf('</done-ledger>', start);
	const lines = text.slice(start + LEDGER_HEADING.length, endTag === -1 ? undefined : endTag).split('\n');
	let section: Section;
	const dirs: string[] = [];
	let prefix: string | undefined;
	for (const line of lines) {
		if (line in SECTIONS) {
			section = SECTIONS[line as keyof typeof SECTIONS];
			dirs.length = 0;
			continue;
		}
		if (line.startsWith('Latest plan (')) section = 'plan';
		if (section === 'requests') {
			const m = /^(\d+)\. (.*)$/.exec(line);
			if (m && !m[2].startsWith('(shown word for word')) requests.set(Number(m[1]), m[2]);
		} else if (section === 'edits' || section === 'reads') {
			// A directory tree: a line ending in / is a directory, the lines below it (two more spaces) are inside it.
			const into = section === 'edits' ? edits : reads;
			const m = /^((?: {2})*)- (.*)$/.exec(line);
			if (!m) continue;
			const level = m[1].length / 2;
			if (level > dirs.length) continue; // deeper than any directory above it: not part of a tree
			dirs.length = level;
			if (level === 0 && /^\d+ files( under .*)? \(/.test(m[2])) continue; // a group line names no file
			if (m[2].endsWith('/')) dirs.push(m[2]);
			else into.add(dirs.join('') + pathOf(m[2]));
		} else if (section === 'commands') {
			// "- `start` followed by:" puts its text before each command listed under it (two more spaces).
			const group = /^- `(.*)` followed by:$/.exec(line);
			const child = /^ {2}- `(.*)$/.exec(line);
			const top = /^- `(.*)$/.exec(line);
			if (group) prefix = group[1];
			else if (child && prefix !== undefined) commandLines.push(prefix + child[1]);
			else if (top) {
				prefix = undefined;
				commandLines.push(top[1]);
			} else prefix = undefined;
		} else if (section === 'searches') {
			// "- N older searches and listings: …" is a group line and names no search.
			const m = /^- (.*?)(?: \(\d+ times\))?$/.exec(line);
			if (m && !/^\d+ older /.test(m[1])) searchLines.push(m[1]);
		}
	}
	return { requests, edits, reads, commandLines, searchLines };
}

/** A path line's path: the text before its ` (detail)`, when it has one. */
function pathOf(entry: string): string {
	if (!entry.endsWith(')')) return entry;
	const at = entry.lastIndexOf(' (');
	return at === -1 ? entry : entry.slice(0, at);
}
