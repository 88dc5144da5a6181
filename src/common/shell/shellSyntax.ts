// A small reader of POSIX-shell command lines, enough to know which simple commands a line runs
// and where their output goes. It does not execute or expand anything. It understands quoting
// ('…', "…", \x), command substitution ($(…) and `…`, also inside double quotes and unquoted
// heredoc bodies), process substitution (<(…), >(…)), arithmetic $((…)) and ${…} (skipped),
// redirections with their targets, heredoc bodies (data, skipped), comments, and every separator
// (; && || | |& & and newlines), subshells ( … ) and brace groups { …; }.
//
// What it cannot read it does not hide: an unmatched quote or parenthesis ends the text, and
// the caller (shellCommand.ts) treats anything it does not recognise as a command that ran.

export interface Redirect {
	/** `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<>`, `<<`, `<<-`, `<<<`, `>&`, `<&`. */
	readonly op: string;
	/** The target word, quotes removed (the heredoc delimiter for `<<`). */
	readonly target: string;
}

export interface SimpleCommand {
	/** Words with quotes removed; a substitution stays in its word as written (e.g. `$(date)`). */
	readonly words: readonly string[];
	readonly redirects: readonly Redirect[];
	/** Command substitutions and process substitutions in this command's words or redirections: their inner text. */
	readonly substitutions: readonly string[];
}

/** Every simple command of `line` in order, including those inside subshells and brace groups, not those inside substitutions. */
export function parseShell(line: string): SimpleCommand[] {
	return new Reader(line).commands();
}

/** Reserved words that begin or continue a compound command; the command proper follows them. */
const LEADING_KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{', 'time']);
/** Reserved words that close a compound command; they run nothing. */
const CLOSING_KEYWORDS = new Set(['fi', 'done', 'esac', '}']);

interface Word {
	readonly text: string;
	/** Any part of it was quoted (a quoted word is never an operator or reserved word). */
	readonly quoted: boolean;
}

class Reader {
	private i = 0;
	private readonly out: SimpleCommand[] = [];
	/** Heredocs announced on the current line: their bodies start after the next newline. */
	private pendingHeredocs: { delimiter: string; strip: boolean; expands: boolean; into: string[] }[] = [];

	constructor(private readonly s: string) {}

	commands(): SimpleCommand[] {
		while (this.i < this.s.length) this.command();
		return this.out;
	}

	private peek(offset = 0): string {
		return this.s[this.i + offset] ?? '';
	}

	/** Reads one simple command up to (and including) its separator, and records it. */
	private command(): void {
		const words: string[] = [];
		const redirects: Redirect[] = [];
		const substitutions: string[] = [];
		let atStart = true;
		for (;;) {
			this.skipBlanks();
			const c = this.peek();
			if (c === '') break;
			if (c === '\n') {
				this.i++;
				this.readHeredocBodies();
				break;
			}
			if (c === '#' && this.atWordBoundary()) {
				while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
				continue;
			}
			if (c === ';' || c === '&' || c === '|') {
				// ;, ;;, &&, ||, |, |&, & all end the simple command (&> is a redirection, handled below).
				if (!(c === '&' && this.peek(1) === '>')) {
					this.i++;
					if (this.peek() === c || (c === '|' && this.peek() === '&')) this.i++;
					break;
				}
			}
			if (c === '(' && atStart && words.length === 0) {
				this.i++; // a subshell: its commands follow as ordinary ones
				continue;
			}
			if (c === ')') {
				this.i++;
				break;
			}
			const redirect = this.redirect(substitutions);
			if (redirect) {
				redirects.push(redirect);
				continue;
			}
			const word = this.word(substitutions);
			if (word === undefined) break;
			if (atStart && !word.quoted && words.length === 0) {
				if (LEADING_KEYWORDS.has(word.text)) continue;
				if (CLOSING_KEYWORDS.has(word.text)) continue;
				if (word.text === 'for' || word.text === 'case' || word.text === 'select') {
					// `for x in a b` / `case x in`: the header runs nothing; skip to its end.
					this.skipHeader(word.text, substitutions);
					continue;
				}
			}
			atStart = false;
			words.push(word.text);
		}
		if (words.length || redirects.length || substitutions.length) this.out.push({ words, redirects, substitutions });
	}

	private skipBlanks(): void {
		for (;;) {
			const c = this.peek();
			if (c === ' ' || c === '\t' || c === '\r') this.i++;
			else if (c === '\\' && this.peek(1) === '\n') this.i += 2;
			else return;
		}
	}

	private atWordBoundary(): boolean {
		return this.i === 0 || /[\s;&|()]/.test(this.s[this.i - 1]);
	}

	/** `for NAME in WORDS` up to `;` or newline (its `do` follows); `case WORD in` up to `in`. */
	private skipHeader(keyword: string, substitutions: string[]): void {
		if (keyword === 'case') {
			const m = /\bin\b/.exec(this.s.slice(this.i));
			const end = m ? this.i + m.index + 2 : this.s.length;
			substitutions.push(...substitutionsIn(this.s.slice(this.i, end)));
			this.i = end;
			return;
		}
		while (this.i < this.s.length && this.s[this.i] !== ';' && this.s[this.i] !== '\n') {
			if (this.s[this.i] === '`' || (this.s[this.i] === '$' && this.peek(1) === '(')) {
				this.word(substitutions); // a substitution in the list runs: keep it
			} else this.i++;
		}
	}

	/** A redirection at the current position (with an optional fd number or `&` before it), or undefined. */
	private redirect(substitutions: string[]): Redirect | undefined {
		const m = /^(\d*|&)(>>|>\||>&|>|<<<|<<-|<<|<>|<&|<)/.exec(this.s.slice(this.i, this.i + 8));
		if (!m || (m[1] === '&' && !m[2].startsWith('>'))) return undefined;
		if (m[1] && m[1] !== '&' && !this.atWordBoundary()) return undefined;
		// <( and >( are process substitutions, not redirections.
		if ((m[2] === '<' || m[2] === '>') && m[1] === '' && this.peek(1) === '(') return undefined;
		this.i += m[0].length;
		const op = (m[1] === '&' ? '&' : '') + m[2];
		this.skipBlanks();
		const target = this.word(substitutions);
		if (op === '<<' || op === '<<-') {
			const delimiter = target?.text ?? '';
			this.pendingHeredocs.push({ delimiter, strip: op === '<<-', expands: !target?.quoted, into: substitutions });
		}
		return { op, target: target?.text ?? '' };
	}

	/** After a newline: skips the bodies of the heredocs announced on the line, keeping their substitutions. */
	private readHeredocBodies(): void {
		for (const heredoc of this.pendingHeredocs) {
			for (;;) {
				if (this.i >= this.s.length) break;
				const end = this.s.indexOf('\n', this.i);
				const line = this.s.slice(this.i, end === -1 ? this.s.length : end);
				this.i = end === -1 ? this.s.length : end + 1;
				if ((heredoc.strip ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) break;
				if (heredoc.expands) heredoc.into.push(...substitutionsIn(line));
			}
		}
		this.pendingHeredocs = [];
	}

	/** One word, quotes removed; undefined at an operator or the end. */
	private word(substitutions: string[]): Word | undefined {
		let text = '';
		let quoted = false;
		let any = false;
		while (this.i < this.s.length) {
			const c = this.peek();
			if (/[\s;&|()<>]/.test(c)) {
				// Process substitution at the start of a word: <(…) / >(…).
				if ((c === '<' || c === '>') && this.peek(1) === '(' && !any) {
					const start = this.i;
					this.i += 2;
					substitutions.push(this.balanced(')'));
					text += this.s.slice(start, this.i);
					any = true;
					continue;
				}
				break;
			}
			any = true;
			if (c === '\\') {
				text += this.peek(1);
				this.i += 2;
			} else if (c === "'") {
				quoted = true;
				const end = this.s.indexOf("'", this.i + 1);
				text += this.s.slice(this.i + 1, end === -1 ? this.s.length : end);
				this.i = end === -1 ? this.s.length : end + 1;
			} else if (c === '"') {
				quoted = true;
				this.i++;
				text += this.doubleQuoted(substitutions);
			} else if (c === '`') {
				const start = this.i;
				this.i++;
				substitutions.push(this.backticks());
				text += this.s.slice(start, this.i);
			} else if (c === '$' && this.peek(1) === '(') {
				text += this.dollarParen(substitutions);
			} else if (c === '$' && this.peek(1) === '{') {
				const start = this.i;
				this.i += 2;
				const inner = this.balanced('}');
				substitutions.push(...substitutionsIn(inner));
				text += this.s.slice(start, this.i);
			} else {
				text += c;
				this.i++;
			}
		}
		return any ? { text, quoted } : undefined;
	}

	/** The inside of "…" (the opening quote already read), with its substitutions noted. */
	private doubleQuoted(substitutions: string[]): string {
		let text = '';
		while (this.i < this.s.length) {
			const c = this.peek();
			if (c === '"') {
				this.i++;
				return text;
			}
			if (c === '\\' && '"\\$`\n'.includes(this.peek(1))) {
				text += this.peek(1);
				this.i += 2;
			} else if (c === '`') {
				const start = this.i;
				this.i++;
				substitutions.push(this.backticks());
				text += this.s.slice(start, this.i);
			} else if (c === '$' && this.peek(1) === '(') {
				text += this.dollarParen(substitutions);
			} else {
				text += c;
				this.i++;
			}
		}
		return text;
	}

	/**
	 * `$(…)` at the current position, as written; its command is noted. `$((…))` is arithmetic
	 * and runs nothing, unless its inside is not arithmetic: bash then reads it as a command
	 * substitution of a subshell, `$( (…) )`, and so does this.
	 */
	private dollarParen(substitutions: string[]): string {
		const start = this.i;
		this.i += 2;
		const inner = this.balanced(')');
		// Arithmetic has an operator between any two operands; `$(( rm a ))` is not arithmetic: count it as a command.
		const arithmetic = /^\([\w\s+\-*/%<>=!&|^~?:,.$#[\]()]*\)$/.test(inner) && !/[\w.\]]\s+[\w.$/]/.test(inner);
		if (!arithmetic) substitutions.push(inner);
		else if (inner.includes('$(')) substitutions.push(...substitutionsIn(inner)); // $(( $(cmd) + 1 ))
		return this.s.slice(start, this.i);
	}

	/** The inside of `…` (the opening backtick already read). */
	private backticks(): string {
		let text = '';
		while (this.i < this.s.length) {
			const c = this.peek();
			if (c === '`') {
				this.i++;
				return text;
			}
			if (c === '\\' && '`\\$'.includes(this.peek(1))) {
				text += this.peek(1);
				this.i += 2;
			} else {
				text += c;
				this.i++;
			}
		}
		return text;
	}

	/** The text up to the `close` that matches (the opening already read), skipping quoted parts; the close is consumed. */
	private balanced(close: ')' | '}'): string {
		const open = close === ')' ? '(' : '{';
		const start = this.i;
		let depth = 1;
		while (this.i < this.s.length) {
			const c = this.peek();
			if (c === '\\') {
				this.i += 2;
				continue;
			}
			if (c === "'") {
				const end = this.s.indexOf("'", this.i + 1);
				this.i = end === -1 ? this.s.length : end + 1;
				continue;
			}
			if (c === '"') {
				this.i++;
				this.doubleQuoted([]);
				continue;
			}
			if (c === '`') {
				this.i++;
				this.backticks();
				continue;
			}
			if (c === open) depth++;
			else if (c === close && --depth === 0) {
				this.i++;
				return this.s.slice(start, this.i - 1);
			}
			this.i++;
		}
		return this.s.slice(start);
	}
}

/** The command substitutions in a text where only $(…) and `…` are special (a heredoc body, a ${…}). */
function substitutionsIn(text: string): string[] {
	const found: string[] = [];
	for (const command of parseShell(`: ${text.replace(/["'\\]/g, ' ')}`)) found.push(...command.substitutions);
	return found;
}
