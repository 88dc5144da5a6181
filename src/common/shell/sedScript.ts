// Reads a sed script (GNU sed's language) far enough to know whether it runs a command or writes
// a file: the `e` command and the `e` flag of `s` run one, the `w`/`W` commands and the `w` flag
// write one. Addresses, regular expressions (with bracket expressions, where the delimiter does
// not end them), replacements, labels and text arguments are stepped over as sed steps over
// them. Any command, flag or shape it does not know makes the script "not understood", which the
// classifier counts as running something.

export interface SedScript {
	/** Every part of the script was read. */
	readonly ok: boolean;
	/** It runs a command (`e`), or it was not understood. */
	readonly runs: boolean;
	/** Files its `w`/`W` commands and `w` flags write. */
	readonly writes: readonly string[];
}

/** Commands that take no argument. */
const PLAIN = new Set([...'=dDgGhHnNpPxzF']);
/** Commands that take an optional number. */
const NUMBERED = new Set([...'lLqQ']);
/** Where sed writes without a file being changed. */
const STANDARD_FILES = new Set(['/dev/stdout', '/dev/stderr']);

class SedReader {
	private i = 0;
	runs = false;
	readonly writes: string[] = [];

	constructor(private readonly s: string) {}

	private at(offset = 0): string {
		return this.s[this.i + offset] ?? '';
	}

	private skip(chars: string): void {
		while (this.i < this.s.length && chars.includes(this.s[this.i])) this.i++;
	}

	/** The rest of the line (a file name, a label, a text), the newline consumed. */
	private restOfLine(stopAtSemicolon = false): string {
		const start = this.i;
		while (this.i < this.s.length && this.s[this.i] !== '\n' && !(stopAtSemicolon && this.s[this.i] === ';')) this.i++;
		const text = this.s.slice(start, this.i);
		if (this.at() === '\n') this.i++;
		return text;
	}

	/** Text of a/i/c: to the end of the line, continued past lines that end with a backslash. */
	private text(): void {
		this.skip(' \t');
		if (this.at() === '\\') {
			this.i++;
			if (this.at() === '\n') this.i++;
		}
		for (;;) {
			const line = this.restOfLine();
			if (!line.endsWith('\\') || this.i >= this.s.length) return;
		}
	}

	/** A delimited part (the opening delimiter already read); false when it never ends. */
	private part(delimiter: string, regex: boolean): boolean {
		while (this.i < this.s.length) {
			const c = this.s[this.i];
			if (c === '\\') {
				this.i += 2;
				continue;
			}
			if (regex && c === '[') {
				this.bracket();
				continue;
			}
			this.i++;
			if (c === delimiter) return true;
			if (c === '\n' && !regex) return false;
		}
		return false;
	}

	/** A bracket expression: `]` first is literal, [:class:], [.x.] and [=x=] are stepped over. */
	private bracket(): void {
		this.i++;
		if (this.at() === '^') this.i++;
		if (this.at() === ']') this.i++;
		while (this.i < this.s.length && this.s[this.i] !== ']') {
			if (this.s[this.i] === '[' && ':.='.includes(this.at(1))) {
				const close = this.s.indexOf(this.at(1) + ']', this.i + 2);
				this.i = close === -1 ? this.s.length : close + 2;
			} else this.i++;
		}
		this.i++;
	}

	/** One address (a number, `first~step`, `$`, `/re/` or `\cREc` with I/M flags); false when malformed. */
	private address(second: boolean): boolean {
		const c = this.at();
		if (/\d/.test(c) || (second && (c === '+' || c === '~'))) {
			this.i++;
			this.skip('0123456789');
			if (this.at() === '~') {
				this.i++;
				this.skip('0123456789');
			}
			return true;
		}
		if (c === '$') {
			this.i++;
			return true;
		}
		if (c === '/' || c === '\\') {
			this.i++;
			const delimiter = c === '/' ? '/' : this.s[this.i++];
			if (!delimiter || delimiter === '\n' || !this.part(delimiter, true)) return false;
			this.skip('IM');
			return true;
		}
		return !second;
	}

	/** Reads the whole script; false at the first thing it does not know. */
	read(): boolean {
		for (;;) {
			this.skip(' \t\n;');
			if (this.i >= this.s.length) return true;
			const c = this.at();
			if (c === '#') {
				this.restOfLine();
				continue;
			}
			if (c === '}') {
				this.i++;
				continue;
			}
			if (!this.address(false)) return false;
			if (this.at() === ',') {
				this.i++;
				if (!this.address(true)) return false;
			}
			this.skip(' \t');
			while (this.at() === '!') {
				this.i++;
				this.skip(' \t');
			}
			if (!this.command(this.s[this.i++] ?? '')) return false;
		}
	}

	private command(c: string): boolean {
		if (c === '{') return true;
		if (PLAIN.has(c)) return this.end();
		if (NUMBERED.has(c)) {
			this.skip(' \t');
			this.skip('0123456789');
			return this.end();
		}
		switch (c) {
			case 'a':
			case 'i':
			case 'c':
				this.text();
				return true;
			case ':':
			case 'b':
			case 't':
			case 'T':
			case 'v':
				this.restOfLine(true);
				return true;
			case 'r':
			case 'R':
				this.restOfLine();
				return true;
			case 'w':
			case 'W':
				this.write(this.restOfLine());
				return true;
			case 'e':
				this.runs = true;
				this.restOfLine();
				return true;
			case 's':
				return this.substitute();
			case 'y': {
				const delimiter = this.s[this.i++];
				return !!delimiter && delimiter !== '\n' && delimiter !== '\\' && this.part(delimiter, false) && this.part(delimiter, false) && this.end();
			}
		}
		return false;
	}

	private substitute(): boolean {
		const delimiter = this.s[this.i++];
		if (!delimiter || delimiter === '\n' || delimiter === '\\') return false;
		if (!this.part(delimiter, true) || !this.part(delimiter, false)) return false;
		for (;;) {
			const f = this.at();
			if (f === 'w') {
				this.i++;
				this.write(this.restOfLine());
				return true;
			}
			if (f === 'e') this.runs = true;
			else if (!/[gpiImM0-9]/.test(f)) return this.end();
			this.i++;
		}
	}

	/** After a command: only blanks, then the end, `;`, a newline, `}` or a comment. */
	private end(): boolean {
		this.skip(' \t');
		return this.i >= this.s.length || ';\n}#'.includes(this.at());
	}

	private write(name: string): void {
		const file = name.trim();
		if (!STANDARD_FILES.has(file)) this.writes.push(file);
	}
}

/** What `script` does beyond printing. */
export function readSedScript(script: string): SedScript {
	const reader = new SedReader(script);
	const ok = reader.read();
	return ok ? { ok, runs: reader.runs, writes: reader.writes } : { ok, runs: true, writes: reader.writes };
}
