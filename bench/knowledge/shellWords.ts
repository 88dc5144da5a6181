// The fact oracle's own reading of a shell line, apart from the product's parser
// (src/common/shell, tree-sitter-bash), so the oracle does not grade the product with the
// product's reading. A small tokenizer of the POSIX shell grammar's surface, enough to tell which
// simple commands a line runs, with their words and redirections:
//   - words with '…' and "…" quoting and backslash escapes; a word holding an expansion ($NAME,
//     ${…}, $((…))), a substitution ($(…), `…`) or an unquoted glob (* ? [) is not literal;
//   - the commands inside $(…), `…` and <(…) are read as the word's `inner` commands;
//   - separators ; & && || | and line breaks; ( ) and { } group commands and are not words;
//   - redirections [N]> >> >| < <> &> &>> and descriptor copies (2>&1, >&2: no file);
//   - here-documents (<< and <<-, delimiter quoted or not): the body is data, not commands, and
//     ends at the line that is the delimiter alone;
//   - reserved words (if then else elif fi do done while until !) before a command are skipped;
//     `for`/`case`/`select` headers run nothing; NAME=value before a command is an assignment;
//   - # starts a comment at the start of a word.
// A redirection with no command (`> f`) is a command of no words that writes f.

export interface ShellRedirect {
	readonly op: string;
	readonly target: string;
}

export interface ShellCommand {
	readonly words: readonly string[];
	/** Per word: its value is exactly the text in `words`. */
	readonly literal: readonly boolean[];
	readonly redirects: readonly ShellRedirect[];
	/** Commands run by substitutions in this command's words. */
	readonly inner: readonly ShellCommand[];
	/** Here-document bodies given to this command. */
	readonly heredocs: readonly string[];
}

const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', 'time']);
const HEADERS = new Set(['for', 'case', 'select', 'esac', 'in', 'function']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

interface Building {
	words: string[];
	literal: boolean[];
	redirects: ShellRedirect[];
	inner: ShellCommand[];
	heredocs: string[];
	/** A `for`/`case` header: its words are not a command. */
	header: boolean;
}

const fresh = (): Building => ({ words: [], literal: [], redirects: [], inner: [], heredocs: [], header: false });

/** The text from `at` to the `)` that closes an opening just before it (quotes and nesting respected); returns the end index (after `)`). */
function closingParen(line: string, at: number): number {
	let depth = 1;
	let i = at;
	while (i < line.length && depth > 0) {
		const c = line[i];
		if (c === '\\') i += 2;
		else if (c === "'") i = skipSingle(line, i + 1);
		else if (c === '"') i = skipDouble(line, i + 1);
		else {
			if (c === '(') depth++;
			else if (c === ')') depth--;
			i++;
		}
	}
	return i;
}

function skipSingle(line: string, at: number): number {
	const end = line.indexOf("'", at);
	return end === -1 ? line.length : end + 1;
}

function skipDouble(line: string, at: number): number {
	let i = at;
	while (i < line.length && line[i] !== '"') i += line[i] === '\\' ? 2 : 1;
	return i + 1;
}

/** One word from `at`: its value, whether it is literal, the commands its substitutions run, and where it ends. */
function readWord(line: string, at: number): { value: string; literal: boolean; inner: ShellCommand[]; end: number } {
	let value = '';
	let literal = true;
	const inner: ShellCommand[] = [];
	let i = at;
	const substitution = (open: number, close: number) => {
		inner.push(...readShell(line.slice(open, close - 1)));
		value += line.slice(open - 2, close);
		literal = false;
		i = close;
	};
	while (i < line.length) {
		const c = line[i];
		if (/[\s;&|()<>]/.test(c)) break;
		if (c === '\\') {
			value += line[i + 1] ?? '';
			i += 2;
		} else if (c === "'") {
			const end = skipSingle(line, i + 1);
			value += line.slice(i + 1, end - 1);
			i = end;
		} else if (c === '"') {
			const end = skipDouble(line, i + 1);
			const body = line.slice(i + 1, end - 1);
			for (const m of body.matchAll(/\$\(/g)) inner.push(...readShell(body.slice(m.index + 2, closingParen(body, m.index + 2) - 1)));
			if (/[$`]/.test(body)) literal = false;
			value += body.replace(/\\(["\\$`])/g, '$1');
			i = end;
		} else if (c === '$' && line[i + 1] === '(') {
			substitution(i + 2, closingParen(line, i + 2));
		} else if (c === '`') {
			const end = line.indexOf('`', i + 1);
			const close = end === -1 ? line.length : end;
			inner.push(...readShell(line.slice(i + 1, close)));
			value += line.slice(i, close + 1);
			literal = false;
			i = close + 1;
		} else {
			if (c === '$' || c === '*' || c === '?' || c === '[' || (c === '{' && /,|\.\./.test(line.slice(i, line.indexOf('}', i) + 1)))) literal = false;
			value += c;
			i++;
		}
	}
	return { value, literal, inner, end: i };
}

const REDIRECT = /^(\d*)(&>>|&>|>>|>\||>&|<<<|<<-|<<|<>|<&|>|<)/;

/** Here-document bodies pending at a line break, read from `at`: returns where reading goes on. */
function readBodies(line: string, at: number, pending: { delimiter: string; strip: boolean; into: string[] }[]): number {
	let i = at;
	for (const doc of pending) {
		const body: string[] = [];
		while (i < line.length) {
			const end = line.indexOf('\n', i);
			const text = line.slice(i, end === -1 ? line.length : end);
			i = end === -1 ? line.length : end + 1;
			if ((doc.strip ? text.replace(/^\t+/, '') : text) === doc.delimiter) break;
			body.push(text);
		}
		doc.into.push(body.join('\n'));
	}
	pending.length = 0;
	return i;
}

/** The simple commands `line` runs, in order (those of substitutions as `inner` of their command). */
export function readShell(line: string): ShellCommand[] {
	const out: ShellCommand[] = [];
	let current = fresh();
	const pending: { delimiter: string; strip: boolean; into: string[] }[] = [];
	const finish = () => {
		if (!current.header && (current.words.length || current.redirects.length)) {
			const { words, literal, redirects, inner, heredocs } = current;
			out.push({ words, literal, redirects, inner, heredocs });
		}
		current = fresh();
	};
	let i = 0;
	while (i < line.length) {
		const c = line[i];
		if (c === '\n') {
			finish();
			i = readBodies(line, i + 1, pending);
		} else if (c === ' ' || c === '\t' || c === '\r') {
			i++;
		} else if (c === '#' && (i === 0 || /\s|;|&|\||\(/.test(line[i - 1]))) {
			const end = line.indexOf('\n', i);
			i = end === -1 ? line.length : end;
		} else if (/[;&|()]/.test(c) && !(c === '&' && line[i + 1] === '>')) {
			finish();
			i += c === '(' || c === ')' ? 1 : line.startsWith(';;', i) || line.startsWith('&&', i) || line.startsWith('||', i) ? 2 : 1;
		} else if (REDIRECT.test(line.slice(i, i + 8)) && (/\d/.test(c) ? REDIRECT.exec(line.slice(i, i + 8))![1] !== '' : true)) {
			i = readRedirect(line, i, current, pending);
		} else {
			const word = readWord(line, i);
			i = word.end;
			addWord(current, word);
		}
	}
	finish();
	return out;
}

/** A redirection at `at` into `current` (a here-document waits for the line break); returns where reading goes on. */
function readRedirect(line: string, at: number, current: Building, pending: { delimiter: string; strip: boolean; into: string[] }[]): number {
	const m = REDIRECT.exec(line.slice(at, at + 8))!;
	const op = m[2];
	let i = at + m[0].length;
	while (line[i] === ' ' || line[i] === '\t') i++;
	const target = readWord(line, i);
	current.inner.push(...target.inner);
	if (op === '<<' || op === '<<-') {
		pending.push({ delimiter: target.value, strip: op === '<<-', into: current.heredocs });
	} else if (!((op === '>&' || op === '<&') && /^(\d+|-)$/.test(target.value))) {
		current.redirects.push({ op: op === '>&' ? '&>' : op, target: target.literal ? target.value : '' });
	}
	return target.end;
}

function addWord(current: Building, word: { value: string; literal: boolean; inner: ShellCommand[] }): void {
	current.inner.push(...word.inner);
	if (!current.words.length) {
		if (word.value === '{' || word.value === '}' || RESERVED.has(word.value)) return;
		if (HEADERS.has(word.value)) current.header = true;
		if (ASSIGNMENT.test(word.value)) return;
	}
	current.words.push(word.value);
	current.literal.push(word.literal);
}
