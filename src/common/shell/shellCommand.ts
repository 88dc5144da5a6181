// What a shell command line did, read from its text alone: which files it only looked at, which
// files it wrote, and whether anything else ran. The done-ledger uses this so that `cat a.py`
// is remembered as a read, `sed -i … a.py` as an edit and `pytest` as a command with an outcome.
//
// The line is read with a real bash parser (shellSyntax.ts). Conservative by design: a line is
// "inspect only" when every command it runs, including those in substitutions ($(…), `…`,
// <(…)), behind wrappers (env, xargs, timeout, find -exec, …), in function bodies and in the
// background (&), is a known inspection used without its writing or code-running options
// (shellPrograms.ts, shellGit.ts), no variable that decides what runs is assigned
// (shellVariables.ts), and no alias is defined. Anything else, every program it does not know,
// a word whose value is unknown where it matters, and a line the parser cannot read (or before
// it is loaded) count as a command that ran.
import { posix } from 'node:path';
import { gitEffects } from './shellGit';
import { type Arg, type Effects, inspecting, isOption, looksLikePath, merge, none, running } from './shellEffectsModel';
import {
	agEffects,
	awkEffects,
	dateEffects,
	fileEffects,
	pagerEffects,
	printfEffects,
	rgEffects,
	sedEffects,
	sortEffects,
	treeEffects,
	uniqEffects,
} from './shellPrograms';
import { readShell, type SimpleCommand } from './shellSyntax';
import { runsThroughVariable } from './shellVariables';
export interface ShellEffects {
	/** Files the line printed or looked into (cat, head, sed -n, nl, …). */
	readonly reads: readonly string[];
	/** The line only inspected things (ls, find, grep, …, or the reads above) and changed nothing. */
	readonly inspectOnly: boolean;
	/** Files the line wrote: output redirections, `sed -i`, `tee`, `sort -o`. */
	readonly writes: readonly string[];
	/** The line ran something that is neither an inspection nor a plain write. */
	readonly runs: boolean;
	/** A program wrote a file itself (`sed -i`, `tee`, `sort -o`), not only an output redirection of the shell. */
	readonly programWrites: boolean;
	/** The line without heredoc bodies and leading `cd DIR &&`, whitespace collapsed. */
	readonly normalized: string;
}

/** Programs that only print files; their options cannot run or write anything, their file arguments are reads. */
const PRINTERS = new Set(['cat', 'head', 'tail', 'nl', 'tac']);
/** Programs that only look around, whatever their options (those with options that write or run are in shellPrograms.ts). */
const LOOKERS = new Set([
	'ls',
	'grep',
	'egrep',
	'fgrep',
	'pwd',
	'wc',
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
	'cut',
	'tr',
	'paste',
	'column',
	'fold',
	'basename',
	'dirname',
	'realpath',
	'readlink',
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
/** Builtins that only set up the shell (directory, options, limits); they neither inspect nor run anything. */
const SETUP = new Set(['cd', 'pushd', 'popd', 'set', 'unset', 'shopt', 'ulimit', 'umask', 'break', 'continue', 'return', 'exit', 'wait']);
/** Builtins that assign the variables they name (the parser lists the names). */
const DECLARE = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
/** Where a redirection writes without a file being changed. */
const NOT_A_FILE = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

/** The effects of a whole line; a line that cannot be read (or the parser not loaded) runs something. */
function lineEffects(line: string): Effects {
	const parsed = readShell(line);
	if (!parsed?.understood) return running();
	const total = none();
	for (const command of parsed.commands) merge(total, commandEffects(command));
	return total;
}

const assigning = (name: string): Effects => (runsThroughVariable(name) ? running() : none());

/** The file a redirection writes, or undefined when it writes none (a descriptor, /dev/null). */
function redirectTarget(op: string, target: string): string | undefined {
	const writes = ['>', '>>', '>|', '&>', '&>>', '<>'].includes(op) || (op === '>&' && !/^(\d+|-)$/.test(target));
	if (!writes || target === '') return undefined;
	// /dev/../tmp/x is /tmp/x: the path as the kernel resolves it decides.
	return NOT_A_FILE.test(posix.normalize(target)) ? undefined : target;
}

function commandEffects(command: SimpleCommand): Effects {
	const effects = none();
	for (const r of command.redirects) {
		const target = redirectTarget(r.op, r.target);
		if (target !== undefined) {
			effects.writes.push(target);
			(effects.redirected ??= []).push(target);
		}
	}
	for (const inner of command.inner) merge(effects, commandEffects(inner));
	for (const name of command.assignments) merge(effects, assigning(name));
	const words = command.words.map((text, i): Arg => ({ text, literal: command.literal[i] ?? false }));
	if (!words.length) {
		effects.inspects ||= effects.writes.length === 0;
		return effects;
	}
	return merge(effects, programEffects(words));
}

/** The effects of running `words` (program first, assignments already removed). */
function programEffects(words: readonly Arg[]): Effects {
	if (!words[0].literal) return running();
	const program = words[0].text.replace(/^.*\//, '');
	const args = words.slice(1);
	if (SETUP.has(program)) return none();
	const wrapped = unwrap(program, args);
	if (wrapped) return merge(wrapped.rest.length ? programEffects(wrapped.rest) : wrapped.alone, wrapped.assigns);
	if (PRINTERS.has(program)) return inspecting(args.filter(looksLikePath).map(a => a.text));
	const special = SPECIAL[program];
	if (special) return special(args);
	return LOOKERS.has(program) ? inspecting() : running();
}

/** Builtins and programs whose arguments decide what they do. */
const SPECIAL: Readonly<Record<string, (args: readonly Arg[]) => Effects>> = {
	sed: sedEffects,
	awk: awkEffects,
	gawk: awkEffects,
	mawk: awkEffects,
	sort: sortEffects,
	uniq: uniqEffects,
	tree: treeEffects,
	date: dateEffects,
	file: fileEffects,
	rg: rgEffects,
	ag: agEffects,
	less: pagerEffects,
	more: pagerEffects,
	bat: pagerEffects,
	git: gitEffects,
	// bash evaluates `test -v 'a[$(…)]'` and the operands of -eq and the like as arithmetic, whose
	// array subscripts run command substitutions, quoted or not.
	test: testEffects,
	'[': testEffects,
	find: args => findEffects(args),
	tee: args => ({ ...none(), writes: args.filter(looksLikePath).map(a => a.text), runs: args.some(a => !a.literal) }),
	printf: args => printfEffects(args, assigning),
	// An alias can make any later word of the line run anything.
	alias: args => (args.some(a => !a.literal || a.text.includes('=')) ? running() : none()),
	// hash -p PATH NAME makes NAME run the program at PATH.
	hash: args => (args.some(a => !a.literal || /^-[a-z]*p/.test(a.text)) ? running() : none()),
	...Object.fromEntries([...DECLARE].map(d => [d, (args: readonly Arg[]) => (args.some(a => !a.literal || /^-[a-zA-Z]*n/.test(a.text)) ? running() : none())])),
};

interface Unwrapped {
	/** The command the wrapper runs; empty when it runs none. */
	readonly rest: readonly Arg[];
	/** What the wrapper does by itself when it runs no command. */
	readonly alone: Effects;
	/** What the variables it sets for the command do. */
	readonly assigns: Effects;
}

/** A word that stands for input appended to the command (xargs): its value is unknown. */
const INPUT_WORD: Arg = { text: '…', literal: false };

/**
 * Wrappers run the command that follows their own options. Unknown options, or options whose
 * value is unknown, make the wrapper count as running something (its arguments cannot be told
 * apart from the command).
 */
function unwrap(program: string, args: readonly Arg[]): Unwrapped | undefined {
	const skip = (withValue: readonly string[], flagsRe: RegExp, alone: Effects, valueFirst = 0, assignments = false): Unwrapped => {
		let i = 0;
		while (i < args.length && isOption(args[i].text)) {
			const a = args[i].text;
			if (!args[i].literal) return { rest: [], alone: running(), assigns: none() };
			if (a === '--') {
				i++;
				break;
			}
			if (withValue.includes(a)) i += 2;
			else if (withValue.some(v => v.startsWith('--') && a.startsWith(v + '='))) i++;
			else if (flagsRe.test(a)) i++;
			else return { rest: [], alone: running(), assigns: none() };
		}
		i += Math.min(valueFirst, args.length - i); // timeout's duration
		const assigns = none();
		// env and sudo take NAME=VALUE words before the command.
		while (assignments && i < args.length && args[i].literal && /^[A-Za-z_]\w*=/.test(args[i].text)) merge(assigns, assigning(args[i++].text.split('=')[0]));
		if (i < args.length && !args[i].literal && assignments) return { rest: [], alone: running(), assigns };
		return { rest: args.slice(i), alone, assigns };
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
			// Only -v or -V among its own options (before the command) makes it a lookup: `command rm -v x` removes.
			for (const a of args) {
				if (!a.literal || !/^-[pvV]+$/.test(a.text)) break;
				if (/[vV]/.test(a.text)) return { rest: [], alone: inspecting(), assigns: none() };
			}
			return skip([], /^-p$/, none());
		case 'nice':
			return skip(['-n', '--adjustment'], /^-\d+$/, none());
		case 'stdbuf':
			return skip(['-i', '-o', '-e', '--input', '--output', '--error'], /^-[ioe]\w+$/, none());
		case 'timeout':
			return skip(['-s', '-k', '--signal', '--kill-after'], /^(--foreground|--preserve-status|-v|--verbose)$/, none(), 1);
		case 'sudo':
		case 'doas':
			return skip(['-u', '-g', '--user', '--group'], /^-[EHnS]+$/, none(), 0, true);
		case 'env':
			return skip(['-u', '-C', '--unset', '--chdir'], /^(-i|-0|--ignore-environment|--null|-v|--debug|-)$/, inspecting(), 0, true);
		case 'xargs': {
			// Without a command xargs runs echo; with one, its input becomes more words of it.
			const unwrapped = skip(
				['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--max-lines', '--max-args', '--max-procs', '--delimiter', '--arg-file', '--replace'],
				/^(-0|-r|-t|-p|-x|--null|--no-run-if-empty|--verbose|--interactive|--exit|-[0rtpx]+|-[IiLnPsdEa].+|--replace)$/,
				inspecting(),
			);
			return unwrapped.rest.length ? { ...unwrapped, rest: [...unwrapped.rest, INPUT_WORD] } : unwrapped;
		}
	}
	return undefined;
}

function testEffects(args: readonly Arg[]): Effects {
	return args.some(a => /\$\(|`/.test(a.text)) ? running() : inspecting();
}

function findEffects(args: readonly Arg[]): Effects {
	const effects = inspecting();
	for (let i = 0; i < args.length; i++) {
		const a = args[i].text;
		if (!args[i].literal || a === '-delete' || a === '-fprint' || a === '-fprint0' || a === '-fprintf' || a === '-fls') {
			effects.runs = true;
		} else if (a === '-exec' || a === '-execdir' || a === '-ok' || a === '-okdir') {
			let end = i + 1;
			while (end < args.length && args[end].text !== ';' && args[end].text !== '+') end++;
			const command = args.slice(i + 1, end);
			if (command.length === 0) effects.runs = true;
			// Files the executed command reads are the found files ({}), not worth recording.
			else merge(effects, { ...programEffects(command), reads: [] });
			i = end;
		}
	}
	return effects;
}

/**
 * Replaces heredoc bodies by `…` (their text is data, not commands; the mark says something was
 * left out, so `cat > f << 'EOF' … EOF` does not read as a command that waits for input), drops
 * comment lines, and joins the lines with `;`.
 */
function withoutHeredocs(text: string): string {
	const lines = text.split(/\r?\n/);
	const kept: string[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		const heredoc = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/.exec(line);
		if (!heredoc) {
			kept.push(line);
			continue;
		}
		const end = heredoc[2];
		const bodyStart = i + 1;
		while (i + 1 < lines.length && lines[i + 1].trim() !== end) i++;
		const hasBody = i + 1 > bodyStart;
		const terminated = i + 1 < lines.length;
		kept.push(`${line}${hasBody ? ' …' : ''}${terminated ? ` ${end}` : ''}`);
		i++; // the terminator line
	}
	// Whole-line comments are not commands.
	return kept.filter(l => l.trim() !== '' && !l.trim().startsWith('#')).join(' ; ');
}

const LEADING_CD = /^cd\s+(?:'[^']*'|"[^"]*"|[^\s;&|]+)\s*(?:&&|;)\s*/;

export interface ShellEffectsOptions {
	/**
	 * The line ran in Longhaul's sandbox (src/common/sandbox/): a git command pointed at another
	 * repository could not reach outside it, so it stays an inspection.
	 */
	readonly sandboxed?: boolean;
}

/** Reads a shell command line. Never throws. */
export function shellEffects(commandLine: string, options: ShellEffectsOptions = {}): ShellEffects {
	const effects = lineEffects(commandLine);
	if (effects.otherRepository && !options.sandboxed) effects.runs = true;
	// The ledger's key for the command: a leading `cd DIR &&` only sets where the rest runs.
	let normalized = withoutHeredocs(commandLine).replace(/\s+/g, ' ').trim();
	for (let m = LEADING_CD.exec(normalized); m && m[0].length < normalized.length; m = LEADING_CD.exec(normalized)) {
		normalized = normalized.slice(m[0].length);
	}
	const writes = unique(effects.writes);
	const redirected = new Set(effects.redirected);
	return {
		reads: unique(effects.reads),
		writes,
		inspectOnly: !effects.runs && writes.length === 0 && (effects.inspects || effects.reads.length > 0),
		runs: effects.runs,
		programWrites: writes.some(w => !redirected.has(w)),
		normalized,
	};
}

function unique(values: readonly string[]): string[] {
	return [...new Set(values)];
}
