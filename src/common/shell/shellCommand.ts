// What a shell command line did, read from its text alone: which files it only looked at, which
// files it wrote, and whether anything else ran. The done-ledger uses this so that `cat a.py`
// is remembered as a read, `sed -i … a.py` as an edit and `pytest` as a command with an outcome.
//
// Conservative by design: a line is "inspect only" when every command it runs, including those
// in substitutions ($(…), `…`, <(…)), behind wrappers (env, xargs, timeout, find -exec, …) and
// in the background (&), is a known inspection used without its writing options. Anything else,
// and every program it does not know, counts as a command that ran.
import { parseShell, type SimpleCommand } from './shellSyntax';

export interface ShellEffects {
	/** Files the line printed or looked into (cat, head, sed -n, nl, …). */
	readonly reads: readonly string[];
	/** The line only inspected things (ls, find, grep, …, or the reads above) and changed nothing. */
	readonly inspectOnly: boolean;
	/** Files the line wrote: output redirections, `sed -i`, `tee`, `sort -o`. */
	readonly writes: readonly string[];
	/** The line ran something that is neither an inspection nor a plain write. */
	readonly runs: boolean;
	/** The line without heredoc bodies and leading `cd DIR &&`, whitespace collapsed. */
	readonly normalized: string;
}

/** Programs that only print files; their file arguments are reads. */
const PRINTERS = new Set(['cat', 'head', 'tail', 'nl', 'less', 'more', 'bat', 'tac']);
/** Programs that only look around (with the exceptions handled in {@link programEffects}). */
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
	'df',
	'diff',
	'cmp',
	'comm',
	'echo',
	'printf',
	'sort',
	'uniq',
	'cut',
	'tr',
	'paste',
	'column',
	'fold',
	'basename',
	'dirname',
	'realpath',
	'readlink',
	'date',
	'printenv',
	'id',
	'whoami',
	'uname',
	'jq',
	'seq',
	'md5sum',
	'sha1sum',
	'sha256sum',
	'test',
	'[',
	'[[',
	'true',
	'false',
	':',
]);
/** Builtins that only set up the shell (directory, variables, options); they neither inspect nor run anything. */
const SETUP = new Set([
	'cd',
	'pushd',
	'popd',
	'export',
	'set',
	'unset',
	'alias',
	'shopt',
	'ulimit',
	'umask',
	'declare',
	'typeset',
	'local',
	'readonly',
	'hash',
	'break',
	'continue',
	'return',
	'exit',
	'wait',
]);
/** Read-only git subcommands (branch, tag, remote and stash are read-only only in some forms, see gitEffects). */
const GIT_LOOKS = new Set([
	'status',
	'diff',
	'log',
	'show',
	'grep',
	'ls-files',
	'ls-tree',
	'blame',
	'rev-parse',
	'describe',
	'shortlog',
	'cat-file',
	'rev-list',
]);
/** Substitutions nested deeper than this are not read; the line then counts as running something. */
const MAX_DEPTH = 8;

interface Effects {
	reads: string[];
	writes: string[];
	inspects: boolean;
	runs: boolean;
}

const none = (): Effects => ({ reads: [], writes: [], inspects: false, runs: false });
const inspecting = (reads: string[] = []): Effects => ({ reads, writes: [], inspects: true, runs: false });
const running = (writes: string[] = []): Effects => ({ reads: [], writes, inspects: false, runs: true });

function merge(into: Effects, e: Effects): Effects {
	into.reads.push(...e.reads);
	into.writes.push(...e.writes);
	into.inspects ||= e.inspects;
	into.runs ||= e.runs;
	return into;
}

const isAssignment = (w: string) => /^[A-Za-z_]\w*=/.test(w);
const isOption = (w: string) => w.startsWith('-') && w !== '-';
/** A word that names a file rather than a pattern, number, option or expansion. */
const looksLikePath = (w: string) => w !== '' && w !== '{}' && !isOption(w) && !/^[+-]?\d+(,\d+)?p?$/.test(w) && !/[*?\s]/.test(w) && !/[$`<>()]/.test(w);

/** The effects of a whole line (and, recursively, of its substitutions). */
function lineEffects(line: string, depth: number): Effects {
	if (depth > MAX_DEPTH) return running();
	const total = none();
	for (const command of parseShell(line)) merge(total, commandEffects(command, depth));
	return total;
}

function commandEffects(command: SimpleCommand, depth: number): Effects {
	const effects = none();
	for (const r of command.redirects) {
		const writesFile = ['>', '>>', '>|', '&>', '&>>', '<>'].includes(r.op) || (r.op === '>&' && !/^(\d+|-)$/.test(r.target));
		if (writesFile && r.target !== '' && !r.target.startsWith('/dev/')) effects.writes.push(r.target);
	}
	for (const inner of command.substitutions) merge(effects, lineEffects(inner, depth + 1));
	const words = [...command.words];
	while (words.length && isAssignment(words[0])) words.shift();
	if (!words.length) {
		effects.inspects ||= effects.writes.length === 0;
		return effects;
	}
	return merge(effects, programEffects(words, depth));
}

/** The effects of running `words` (program first, assignments already removed). */
function programEffects(words: readonly string[], depth: number): Effects {
	const program = words[0].replace(/^.*\//, '');
	const args = words.slice(1);
	if (SETUP.has(program)) return none();
	const wrapped = unwrap(program, args);
	if (wrapped) return wrapped.rest.length ? programEffects(wrapped.rest, depth) : wrapped.alone;
	if (PRINTERS.has(program)) return inspecting(args.filter(looksLikePath));
	switch (program) {
		case 'sed':
			return sedEffects(args);
		case 'awk':
		case 'gawk':
		case 'mawk': {
			// awk can write files (print > f), pipe to commands and call system(): any of those counts as running.
			const script = args.find(a => !isOption(a)) ?? '';
			return /system\s*\(|\||>|getline|close\s*\(|fflush/.test(script) ? running() : inspecting();
		}
		case 'tee':
			return { ...none(), writes: args.filter(looksLikePath) };
		case 'git':
			return gitEffects(args);
		case 'find':
			return findEffects(args, depth);
		case 'sort': {
			const out = optionValue(args, '-o', '--output');
			return out === undefined ? inspecting() : running([out]);
		}
		case 'uniq': {
			const operands = args.filter(a => !isOption(a));
			return operands.length >= 2 ? running([operands[1]]) : inspecting();
		}
		case 'tree': {
			const out = optionValue(args, '-o');
			return out === undefined ? inspecting() : running([out]);
		}
		case 'date':
			return args.some(a => a === '-s' || a.startsWith('--set') || /^-[a-zA-Z]*s/.test(a)) ? running() : inspecting();
		case 'rg':
			return args.some(a => a === '--pre' || a.startsWith('--pre=')) ? running() : inspecting();
		case 'file':
			return args.some(a => a === '-C' || a === '--compile') ? running() : inspecting();
	}
	return LOOKERS.has(program) ? inspecting() : running();
}

/**
 * Wrappers run the command that follows their own options: `rest` is that command, or, when none
 * follows, `alone` is what the wrapper does by itself. Unknown options make the wrapper count as
 * running something (its arguments cannot be told apart from the command).
 */
function unwrap(program: string, args: readonly string[]): { rest: readonly string[]; alone: Effects } | undefined {
	const skip = (withValue: readonly string[], flags: RegExp, alone: Effects, valueFirst = 0) => {
		let i = 0;
		while (i < args.length && isOption(args[i])) {
			const a = args[i];
			if (a === '--') {
				i++;
				break;
			}
			if (withValue.includes(a)) i += 2;
			else if (withValue.some(v => v.startsWith('--') && a.startsWith(v + '='))) i++;
			else if (flags.test(a)) i++;
			else return { rest: ['__unknown_option__'], alone: running() };
		}
		while (valueFirst-- > 0 && i < args.length) i++; // timeout's duration
		const rest = args.slice(i);
		return { rest, alone };
	};
	switch (program) {
		case 'time':
			return skip([], /^-p$/, none());
		case 'nohup':
		case 'exec':
		case 'builtin':
		case 'unbuffer':
			return skip([], /^$/, none());
		case 'command':
			if (args.some(a => a === '-v' || a === '-V')) return { rest: [], alone: inspecting() };
			return skip([], /^-p$/, none());
		case 'nice':
			return skip(['-n', '--adjustment'], /^-\d+$/, none());
		case 'stdbuf':
			return skip(['-i', '-o', '-e', '--input', '--output', '--error'], /^-[ioe]\w+$/, none());
		case 'timeout':
			return skip(['-s', '-k', '--signal', '--kill-after'], /^(--foreground|--preserve-status|-v|--verbose)$/, none(), 1);
		case 'sudo':
		case 'doas':
			return skip(['-u', '-g', '--user', '--group'], /^-[EHnS]+$/, none());
		case 'env': {
			const unwrapped = skip(['-u', '-C', '--unset', '--chdir'], /^(-i|-0|--ignore-environment|--null|-v|--debug|-)$/, inspecting());
			const rest = [...unwrapped.rest];
			while (rest.length && isAssignment(rest[0])) rest.shift();
			return { rest, alone: unwrapped.alone };
		}
		case 'xargs':
			// Without a command xargs runs echo.
			return skip(
				['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--max-lines', '--max-args', '--max-procs', '--delimiter', '--arg-file', '--replace'],
				/^(-0|-r|-t|-p|-x|--null|--no-run-if-empty|--verbose|--interactive|--exit|-[0rtpx]+|-[IiLnPsdEa].+|--replace)$/,
				inspecting(),
			);
	}
	return undefined;
}

/** The value of an option given as `-o V`, `-oV`, `--output=V` or `--output V`. */
function optionValue(args: readonly string[], short: string, long?: string): string | undefined {
	for (let i = 0; i < args.length; i++) {
		const a = args[i];
		if (a === short || (long && a === long)) return args[i + 1] ?? '';
		if (long && a.startsWith(long + '=')) return a.slice(long.length + 1);
		if (a.startsWith(short) && a.length > short.length && !a.startsWith('--')) return a.slice(short.length);
	}
	return undefined;
}

function sedEffects(args: readonly string[]): Effects {
	const scripts: string[] = [];
	const operands: string[] = [];
	let scriptGiven = false;
	let inPlace = false;
	for (let i = 0; i < args.length; i++) {
		const a = args[i];
		if (a === '-e' || a === '--expression') {
			scriptGiven = true;
			scripts.push(args[++i] ?? '');
		} else if (a === '-f' || a === '--file') {
			scriptGiven = true;
			i++;
		} else if (a === '-i' || a.startsWith('-i') || a.startsWith('--in-place') || /^-[a-zA-Z]*i/.test(a)) {
			inPlace = true;
		} else if (!isOption(a)) operands.push(a);
	}
	if (!scriptGiven && operands.length) scripts.push(operands.shift()!);
	const files = operands.filter(looksLikePath);
	if (inPlace) return { ...none(), writes: files };
	// sed's w/W commands and the w flag write files, its e command runs one.
	if (scripts.some(s => /(^|[\s;{}/\d$!])[wWe](\s|$)/.test(s))) return running();
	return inspecting(files);
}

function gitEffects(args: readonly string[]): Effects {
	let i = 0;
	// Global options before the subcommand.
	while (i < args.length && isOption(args[i])) {
		if (args[i] === '-C' || args[i] === '-c' || args[i] === '--git-dir' || args[i] === '--work-tree') i += 2;
		else i++;
	}
	const sub = args[i] ?? '';
	const rest = args.slice(i + 1);
	if (rest.some(a => a === '--output' || a.startsWith('--output=') || a === '-o')) return running();
	if (GIT_LOOKS.has(sub)) return inspecting();
	const onlyOptions = (allowed: RegExp) => rest.every(a => allowed.test(a));
	switch (sub) {
		case 'branch':
			// Listing forms only; a name, or -d/-D/-m/-M/-c/-C/-u/--delete/… changes branches.
			return onlyOptions(/^(-a|-r|-v|-vv|-l|--list|--all|--remotes|--verbose|--show-current|--no-color|--color|--merged|--no-merged|--contains)$/)
				? inspecting()
				: running();
		case 'tag':
			return onlyOptions(/^(-l|--list|-n\d*)$/) ? inspecting() : running();
		case 'remote':
			return onlyOptions(/^(-v|--verbose)$/) ? inspecting() : running();
		case 'stash':
			return rest[0] === 'list' || rest[0] === 'show' ? inspecting() : running();
		case 'config':
			return rest.some(a => /^(--get|--get-all|--get-regexp|-l|--list)$/.test(a)) ? inspecting() : running();
	}
	return running();
}

function findEffects(args: readonly string[], depth: number): Effects {
	const effects = inspecting();
	for (let i = 0; i < args.length; i++) {
		const a = args[i];
		if (a === '-delete' || a === '-fprint' || a === '-fprint0' || a === '-fprintf' || a === '-fls') {
			effects.runs = true;
		} else if (a === '-exec' || a === '-execdir' || a === '-ok' || a === '-okdir') {
			let end = i + 1;
			while (end < args.length && args[end] !== ';' && args[end] !== '+') end++;
			const command = args.slice(i + 1, end);
			if (command.length === 0) effects.runs = true;
			else {
				const run = depth >= MAX_DEPTH ? running() : programEffects(command, depth + 1);
				// Files the executed command reads are the found files ({}), not worth recording.
				merge(effects, { ...run, reads: [] });
			}
			i = end;
		}
	}
	return effects;
}

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

const LEADING_CD = /^cd\s+(?:'[^']*'|"[^"]*"|[^\s;&|]+)\s*(?:&&|;)\s*/;

/** Reads a shell command line. Never throws. */
export function shellEffects(commandLine: string): ShellEffects {
	const effects = lineEffects(commandLine, 0);
	// The ledger's key for the command: a leading `cd DIR &&` only sets where the rest runs.
	let normalized = withoutHeredocs(commandLine).replace(/\s+/g, ' ').trim();
	for (let m = LEADING_CD.exec(normalized); m && m[0].length < normalized.length; m = LEADING_CD.exec(normalized)) {
		normalized = normalized.slice(m[0].length);
	}
	const writes = unique(effects.writes);
	return {
		reads: unique(effects.reads),
		writes,
		inspectOnly: !effects.runs && writes.length === 0 && (effects.inspects || effects.reads.length > 0),
		runs: effects.runs,
		normalized,
	};
}

function unique(values: readonly string[]): string[] {
	return [...new Set(values)];
}
