// The files one shell command line reads and changes, as far as its text shows: the knowledge
// probe's fact oracle (factOracle.ts) asks it for every shell call of a recorded session. It is
// written for the benchmark, apart from the done-ledger's own classifier (src/common/ledger), so
// the probe does not grade the ledger with the ledger's rules. The line is split into simple
// commands by the oracle's own reading (shellWords.ts), not the product's parser; the rules of what
// each program reads or writes are here:
//   reads:   cat/head/tail/less/more/nl/wc, grep/rg and sed/awk file operands, `<` redirections
//   changes: `>`/`>>` redirections, `sed -i`, `perl -i`/`-pi`, `tee`, `touch`, `cp`/`mv`
//            destinations, `git checkout … -- FILE`/`git restore FILE`, the `+++` lines of a patch
//            given in the line (`patch`, `git apply`), `patch FILE`, and files a Python script
//            given in the line (`python -c …`, `python - <<EOF …`) opens for writing.
// A word whose value is not known as written (an expansion, a glob) names no file.
import { readShell, type ShellCommand as SimpleCommand } from './shellWords';

export interface ShellFiles {
	readonly reads: readonly string[];
	readonly changes: readonly string[];
	/**
	 * The line runs something beyond looking at files and writing them with a redirection: false
	 * when every command in it only inspects (INSPECTORS, `sed` without -i, `find` without -delete
	 * whose -exec programs only inspect, `xargs` running a program that only inspects,
	 * `git status/diff/log/show`) or writes its output to a file (`cat > f <<EOF`, `echo … > f`,
	 * a redirection alone). An empty line runs nothing.
	 */
	readonly runs: boolean;
}

const READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'nl', 'wc', 'view']);
/** Programs whose first operand is a pattern or script and the rest are files. */
const PATTERN_FIRST = new Set(['grep', 'egrep', 'fgrep', 'rg', 'awk', 'sed']);
const INSPECTORS = new Set([
	...READERS,
	'grep',
	'egrep',
	'fgrep',
	'rg',
	'awk',
	'ls',
	'echo',
	'printf',
	'pwd',
	'which',
	'file',
	'stat',
	'diff',
	'cut',
	'sort',
	'uniq',
	'tr',
	'cd',
	'true',
	'tree',
	'du',
	'test',
	'[',
]);
const GIT_INSPECTORS = new Set(['status', 'diff', 'log', 'show', 'grep', 'blame']);
const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>']);
const PYTHONS = /^python(\d+(\.\d+)?)?$/;

/** A path as the oracle keeps it: trimmed, without a leading `./`. */
export function normalPath(path: string): string {
	return path.trim().replace(/^(\.\/)+/, '');
}

function isFileWord(word: string, literal: boolean): boolean {
	return literal && word !== '' && word !== '-' && !word.startsWith('-') && !word.startsWith('/dev/') && !/[\s*?]/.test(word);
}

/** The operands of a simple command (not its name, not options), literal ones only; `--` ends the options. */
function operands(command: SimpleCommand, skipOptionValues: ReadonlySet<string> = new Set()): string[] {
	const out: string[] = [];
	let optionsOver = false;
	for (let i = 1; i < command.words.length; i++) {
		const word = command.words[i];
		if (!optionsOver && word === '--') {
			optionsOver = true;
		} else if (!optionsOver && word.startsWith('-') && word !== '-') {
			if (skipOptionValues.has(word)) i++;
		} else if (isFileWord(word, command.literal[i])) {
			out.push(word);
		} else {
			out.push('');
		}
	}
	return out;
}

const programName = (command: SimpleCommand) => (command.words[0] ?? '').split('/').pop() ?? '';
const hasOption = (command: SimpleCommand, test: (option: string) => boolean) => command.words.slice(1).some(w => /^-[^-]/.test(w) && test(w));

/** What one simple command reads and changes by its program and operands. */
function programFiles(command: SimpleCommand, reads: string[], changes: string[]): void {
	const name = programName(command);
	const files = (xs: string[]) => xs.filter(Boolean);
	if (READERS.has(name)) reads.push(...files(operands(command, name === 'head' || name === 'tail' ? new Set(['-n', '-c']) : new Set())));
	else if (name === 'sed' && hasOption(command, o => o.includes('i'))) changes.push(...files(sedFiles(command)));
	else if (PATTERN_FIRST.has(name)) reads.push(...files(patternFirstFiles(command)));
	else if (name === 'perl' && hasOption(command, o => o.includes('i'))) {
		changes.push(...files(operands(command, new Set(['-e'])).slice(hasOption(command, o => o === '-e') ? 0 : 1)));
	} else if (name === 'tee' || name === 'touch') changes.push(...files(operands(command)));
	else if (name === 'cp' || name === 'mv') changes.push(...files(operands(command, new Set(['-t', '-S'])).slice(-1)));
	else if (name === 'patch') changes.push(...files(operands(command, new Set(['-p', '-i', '-o', '-d'])).slice(0, 1)));
	else if (name === 'git') changes.push(...gitChanges(command));
}

/** The command only looks at files or prints (its output may go to a file). */
function inspects(command: SimpleCommand): boolean {
	if (!command.words.length) return command.inner.every(inspects);
	const name = programName(command);
	if (name === 'sed') return !hasOption(command, o => o.includes('i'));
	if (name === 'find') return findInspects(command);
	if (name === 'xargs') return carried(command, xargsProgramAt(command.words)).every(inspects) && command.inner.every(inspects);
	if (name === 'git') return GIT_INSPECTORS.has(command.words[1] ?? '');
	return INSPECTORS.has(name) && command.inner.every(inspects);
}

/** The command another one runs from `words[from]` on (find's -exec, xargs), as a simple command of its own; none when `from` is past the end. */
function carried(command: SimpleCommand, from: number, to = command.words.length): SimpleCommand[] {
	if (from >= to) return [];
	return [{ words: command.words.slice(from, to), literal: command.literal.slice(from, to), redirects: [], inner: [], heredocs: [] }];
}

/**
 * find only looks unless it deletes, or runs a program (-exec, -execdir, -ok, -okdir, up to `;` or
 * `+`) that does more than look: `find . -exec grep -l x {} ;` only looks, as `grep -rl x .` does.
 */
function findInspects(command: SimpleCommand): boolean {
	const words = command.words;
	for (let i = 1; i < words.length; i++) {
		if (words[i] === '-delete') return false;
		if (!/^-(exec|execdir|ok|okdir)$/.test(words[i])) continue;
		let end = i + 1;
		while (end < words.length && words[end] !== ';' && words[end] !== '+') end++;
		if (!carried(command, i + 1, end).every(inspects)) return false;
		i = end;
	}
	return command.inner.every(inspects);
}

/** xargs options that take a value as the next word. */
const XARGS_VALUED = new Set(['-I', '-n', '-P', '-d', '-L', '-s', '-a', '-E', '-e', '-i']);

/** Where the program xargs runs starts (past its options); words.length when it names none (it runs echo). */
function xargsProgramAt(words: readonly string[]): number {
	let i = 1;
	while (i < words.length && words[i].startsWith('-')) {
		if (words[i] === '--') return i + 1;
		i += XARGS_VALUED.has(words[i]) ? 2 : 1;
	}
	return i;
}

/** sed's file operands: after the script, unless the script came with -e/-f. */
function sedFiles(command: SimpleCommand): string[] {
	const scripted = hasOption(command, o => o === '-e' || o === '-f');
	return operands(command, new Set(['-e', '-f'])).slice(scripted ? 0 : 1);
}

/** grep/rg/awk: the pattern (or program) first, then files; with -e/-f the pattern came with the option. */
function patternFirstFiles(command: SimpleCommand): string[] {
	const scripted = hasOption(command, o => o === '-e' || o === '-f');
	return operands(command, new Set(['-e', '-f', '-A', '-B', '-C', '-m', '-F'])).slice(scripted ? 0 : 1);
}

/** `git checkout [REF] -- FILE…` and `git restore FILE…` put files back. */
function gitChanges(command: SimpleCommand): string[] {
	const words = command.words;
	const sub = words[1];
	if (sub === 'checkout') {
		const dashes = words.indexOf('--');
		return dashes === -1 ? [] : words.slice(dashes + 1).filter((w, i) => isFileWord(w, command.literal[dashes + 1 + i]));
	}
	if (sub === 'restore') return words.slice(2).filter((w, i) => isFileWord(w, command.literal[2 + i]));
	return [];
}

/** Files a patch in the line names on its `+++` lines (the new side), without `b/`. */
function patchTargets(line: string): string[] {
	const out: string[] = [];
	for (const m of line.matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)) if (m[1] !== '/dev/null') out.push(m[1]);
	return out;
}

/** Files a Python script in the line writes: open(PATH, 'w'|'a'|'x'…), Path(PATH).write_text/bytes. */
export function pythonWrites(script: string): string[] {
	const out: string[] = [];
	for (const m of script.matchAll(/\bopen\(\s*(['"])([^'"\n]+)\1\s*,\s*(?:mode\s*=\s*)?(['"])([^'"\n]*)\3/g)) {
		if (/[wax+]/.test(m[4])) out.push(m[2]);
	}
	for (const m of script.matchAll(/\bPath\(\s*(['"])([^'"\n]+)\1\s*\)\s*\.\s*write_(?:text|bytes)\(/g)) out.push(m[2]);
	return out;
}

/** The files `line` reads and changes, each once, in order of appearance. */
export function shellFiles(line: string): ShellFiles {
	const reads: string[] = [];
	const changes: string[] = [];
	const commands = readShell(line);
	const all = (cs: readonly SimpleCommand[]): SimpleCommand[] => cs.flatMap(c => [c, ...all(c.inner)]);
	for (const command of all(commands)) {
		for (const r of command.redirects) {
			if (WRITE_REDIRECTS.has(r.op) && isFileWord(r.target, true)) changes.push(r.target);
			if (r.op === '<' && isFileWord(r.target, true)) reads.push(r.target);
		}
		programFiles(command, reads, changes);
	}
	const names = all(commands).map(programName);
	if (names.some(n => n === 'patch') || /\bgit\s+apply\b/.test(line)) changes.push(...patchTargets(line));
	// A script given in the line (-c or a heredoc): what it opens for writing. Without a parse, the line's text is all there is.
	if (names.some(n => PYTHONS.test(n)) || (commands.length === 0 && /\bpython/.test(line))) changes.push(...pythonWrites(line));
	const unique = (xs: string[]) => [...new Set(xs.map(normalPath).filter(Boolean))];
	const runs = !all(commands).every(inspects);
	return { reads: unique(reads), changes: unique(changes), runs };
}
