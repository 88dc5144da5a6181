// What a shell command line did, read from its text alone: which files it only looked at, which
// files it wrote, and whether anything else ran. The done-ledger uses this so that `cat a.py`
// is remembered as a read, `sed -i … a.py` as an edit and `pytest` as a command with an outcome.
// Deliberately conservative: anything it does not recognise counts as a command that ran.

export interface ShellEffects {
	/** Files the line printed or looked into (cat, head, sed -n, nl, …). */
	readonly reads: readonly string[];
	/** The line only inspected things (ls, find, grep, …, or the reads above) and changed nothing. */
	readonly inspectOnly: boolean;
	/** Files the line wrote: output redirections, `sed -i`, `tee`. */
	readonly writes: readonly string[];
	/** The line ran something that is neither an inspection nor a plain write. */
	readonly runs: boolean;
	/** The line without heredoc bodies and leading `cd DIR &&`, whitespace collapsed. */
	readonly normalized: string;
}

/** Programs that only print or inspect; their file arguments are reads. */
const PRINTERS = new Set(['cat', 'head', 'tail', 'nl', 'less', 'more', 'bat']);
/** Programs that only look around; their output is a listing or search hits, not a file's text. */
const LOOKERS = new Set([
	'ls',
	'find',
	'grep',
	'egrep',
	'fgrep',
	'rg',
	'ag',
	'tree',
	'pwd',
	'wc',
	'file',
	'stat',
	'which',
	'whereis',
	'type',
	'du',
	'diff',
	'echo',
	'printf',
	'true',
	'sort',
	'uniq',
	'cut',
	'tr',
	'xargs',
	'basename',
	'dirname',
	'realpath',
	'date',
	'env',
	'printenv',
	'id',
	'whoami',
	'uname',
]);
/** Read-only git subcommands. */
const GIT_LOOKS = new Set(['status', 'diff', 'log', 'show', 'grep', 'ls-files', 'blame', 'branch', 'rev-parse']);
/** Prefixes that do not change what the rest of a segment does. */
const TRANSPARENT = new Set(['sudo', 'time', 'nice', 'command', 'exec']);

/** Removes heredoc bodies (their text is data, not commands) and comment lines, and joins the lines with `;`. */
function withoutHeredocs(text: string): string {
	const lines = text.split(/\r?\n/);
	const kept: string[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		kept.push(line);
		const heredoc = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/.exec(line);
		if (heredoc) {
			const end = heredoc[2];
			while (i + 1 < lines.length && lines[i + 1].trim() !== end) i++;
			i++; // the terminator line
		}
	}
	// Whole-line comments are not commands.
	return kept.filter(l => l.trim() !== '' && !l.trim().startsWith('#')).join(' ; ');
}

/** Splits at `&&`, `||`, `;` and `|` outside quotes. Each part keeps its text. */
export function splitSegments(line: string): string[] {
	const segments: string[] = [];
	let current = '';
	let quote: string | undefined;
	for (let i = 0; i < line.length; i++) {
		const ch = line[i];
		if (quote) {
			current += ch;
			if (ch === '\\' && quote === '"' && i + 1 < line.length) current += line[++i];
			else if (ch === quote) quote = undefined;
			continue;
		}
		if (ch === '\\' && i + 1 < line.length) {
			current += ch + line[++i];
			continue;
		}
		if (ch === "'" || ch === '"') {
			quote = ch;
			current += ch;
			continue;
		}
		const two = line.slice(i, i + 2);
		if (two === '&&' || two === '||') {
			segments.push(current);
			current = '';
			i++;
			continue;
		}
		// `|` but not `||` (handled) and not `>|`; `;` always.
		if (ch === ';' || (ch === '|' && line[i - 1] !== '>')) {
			segments.push(current);
			current = '';
			continue;
		}
		current += ch;
	}
	segments.push(current);
	return segments.map(s => s.trim()).filter(s => s !== '');
}

/** Shell words of one segment, quotes removed. */
export function shellWords(segment: string): string[] {
	const words: string[] = [];
	let current = '';
	let inWord = false;
	let quote: string | undefined;
	for (let i = 0; i < segment.length; i++) {
		const ch = segment[i];
		if (quote) {
			if (ch === quote) quote = undefined;
			else if (ch === '\\' && quote === '"' && i + 1 < segment.length) current += segment[++i];
			else current += ch;
			continue;
		}
		if (ch === "'" || ch === '"') {
			quote = ch;
			inWord = true;
			continue;
		}
		if (ch === '\\' && i + 1 < segment.length) {
			current += segment[++i];
			inWord = true;
			continue;
		}
		if (/\s/.test(ch)) {
			if (inWord) words.push(current);
			current = '';
			inWord = false;
			continue;
		}
		current += ch;
		inWord = true;
	}
	if (inWord) words.push(current);
	return words;
}

const isAssignment = (w: string) => /^[A-Za-z_]\w*=/.test(w);
const isOption = (w: string) => w.startsWith('-') && w !== '-';
/** A word that names a file rather than a pattern, number or option. */
const looksLikePath = (w: string) => w !== '' && !isOption(w) && !/^\d+(,\d+)?p?$/.test(w) && !/[*?\s]/.test(w) && !w.startsWith('$');

interface SegmentEffects {
	reads: string[];
	writes: string[];
	inspects: boolean;
	runs: boolean;
	cdOnly: boolean;
}

function segmentEffects(segment: string): SegmentEffects {
	const writes: string[] = [];
	// Output redirections write files; `2>&1`, `>&2` and /dev/null write nothing worth noting.
	const redirect = /(?:^|[^\d&<>])(?:\d?)(>>?|>\|)\s*([^\s;&|<>]+)/g;
	let m: RegExpExecArray | null;
	while ((m = redirect.exec(segment))) {
		const target = m[2].replace(/^['"]|['"]$/g, '');
		if (!target.startsWith('&') && !target.startsWith('/dev/')) writes.push(target);
	}
	const words = shellWords(
		segment
			.replace(/\d?(>>?|>\|)\s*(&\d|[^\s;&|<>]+)/g, ' ')
			.replace(/<<-?\s*\S+/g, ' ')
			.replace(/<\s*\S+/g, ' '),
	);
	while (words.length && (isAssignment(words[0]) || TRANSPARENT.has(words[0]))) words.shift();
	const program = (words[0] ?? '').replace(/^.*\//, '');
	const args = words.slice(1);
	const effects: SegmentEffects = { reads: [], writes, inspects: false, runs: false, cdOnly: false };
	if (!program) {
		effects.inspects = writes.length === 0;
		return effects;
	}
	if (program === 'cd' || program === 'export' || program === 'set' || program === 'source' || program === '.') {
		effects.cdOnly = true;
		return effects;
	}
	if (PRINTERS.has(program)) {
		effects.reads.push(...args.filter(looksLikePath).filter(a => !/^[+-]?\d+$/.test(a)));
		effects.inspects = true;
		return effects;
	}
	if (program === 'sed') {
		const inPlace = args.some(a => a === '-i' || a.startsWith('-i') || a === '--in-place');
		const files = sedFiles(args);
		if (inPlace) writes.push(...files);
		else effects.reads.push(...files);
		effects.inspects = !inPlace;
		return effects;
	}
	if (program === 'awk') {
		effects.inspects = true;
		return effects;
	}
	if (program === 'tee') {
		writes.push(...args.filter(looksLikePath));
		return effects;
	}
	if (program === 'git' && GIT_LOOKS.has(args.find(a => !isOption(a)) ?? '')) {
		effects.inspects = true;
		return effects;
	}
	if (LOOKERS.has(program)) {
		effects.inspects = true;
		return effects;
	}
	effects.runs = true;
	return effects;
}

/** The file operands of a sed call: what follows the script (the first non-option word, unless -e/-f gave it). */
function sedFiles(args: readonly string[]): string[] {
	const operands: string[] = [];
	let scriptGiven = false;
	for (let i = 0; i < args.length; i++) {
		const a = args[i];
		if (a === '-e' || a === '-f' || a === '--expression') {
			scriptGiven = true;
			i++;
			continue;
		}
		if (isOption(a)) continue;
		operands.push(a);
	}
	return (scriptGiven ? operands : operands.slice(1)).filter(looksLikePath);
}

const LEADING_CD = /^cd\s+(?:'[^']*'|"[^"]*"|[^\s;&|]+)\s*(?:&&|;)\s*/;

/** Reads a shell command line. Never throws. */
export function shellEffects(commandLine: string): ShellEffects {
	const flat = withoutHeredocs(commandLine);
	const segments = splitSegments(flat);
	const reads: string[] = [];
	const writes: string[] = [];
	let runs = false;
	let inspects = false;
	for (const segment of segments) {
		const e = segmentEffects(segment);
		reads.push(...e.reads);
		writes.push(...e.writes);
		runs ||= e.runs;
		inspects ||= e.inspects;
	}
	// A leading `cd DIR &&` only sets where the rest runs; it is left out of the normalized text.
	let normalized = flat.replace(/\s+/g, ' ').trim();
	for (let m = LEADING_CD.exec(normalized); m && m[0].length < normalized.length; m = LEADING_CD.exec(normalized)) {
		normalized = normalized.slice(m[0].length);
	}
	return {
		reads: unique(reads),
		writes: unique(writes),
		inspectOnly: !runs && writes.length === 0 && (inspects || reads.length > 0),
		runs,
		normalized,
	};
}

function unique(values: readonly string[]): string[] {
	return [...new Set(values)];
}
