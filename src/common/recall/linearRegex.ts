// Regular expressions for recall searches, matched in time linear in the text (a Pike VM: every
// position advances all alive states at once, so there is no backtracking). JavaScript's own
// RegExp backtracks: a pattern such as (a+)+$ on a long line of a's takes exponential time and
// would block the extension host. This engine cannot, and it also stops after a step budget.
//
// Supported: literals and escapes (\. \\ \t \n \r \xHH \uHHHH), . (not a line break), classes
// ([a-z], [^…], \d \w \s \D \W \S inside and outside), anchors ^ $ (per line), \b \B, groups
// ( … ) (?: … ) (?<name> … ), alternation |, quantifiers * + ? {n} {n,} {n,m} (lazy forms read
// as greedy: only whether and where a line matches is used). Always case-insensitive, like the
// workspace search. Not supported (a clear error): backreferences, lookahead and lookbehind.

export class PatternError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'PatternError';
	}
}

/** Instructions of the compiled program. */
type Inst =
	| { readonly op: 'char'; readonly test: (c: string) => boolean }
	| { readonly op: 'split'; x: number; y: number }
	| { readonly op: 'jmp'; x: number }
	| { readonly op: 'assert'; readonly kind: 'bol' | 'eol' | 'word' | 'notword' }
	| { readonly op: 'match' };

/** The largest compiled program accepted (counted repetition copies its operand). */
export const MAX_PROGRAM = 20_000;

// ---- parsing to a small syntax tree ----

type Node =
	| { readonly t: 'char'; readonly test: (c: string) => boolean }
	| { readonly t: 'assert'; readonly kind: 'bol' | 'eol' | 'word' | 'notword' }
	| { readonly t: 'seq'; readonly items: readonly Node[] }
	| { readonly t: 'alt'; readonly options: readonly Node[] }
	| { readonly t: 'repeat'; readonly node: Node; readonly min: number; readonly max: number };

const isWordChar = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_';
const lower = (c: string) => c.toLowerCase();
const upper = (c: string) => c.toUpperCase();
const caseless = (test: (c: string) => boolean) => (c: string) => test(c) || test(lower(c)) || test(upper(c));

/** A literal character, either case. */
function literal(c: string): Node {
	const l = lower(c);
	const u = upper(c);
	return { t: 'char', test: ch => ch === l || ch === u || (ch !== c && lower(ch) === l) };
}

const CLASS_ESCAPES: Record<string, (c: string) => boolean> = {
	d: c => c >= '0' && c <= '9',
	D: c => !(c >= '0' && c <= '9'),
	w: isWordChar,
	W: c => !isWordChar(c),
	s: c => /\s/.test(c),
	S: c => !/\s/.test(c),
};

class Parser {
	private i = 0;
	constructor(private readonly p: string) {}

	parse(): Node {
		const node = this.alternation();
		if (this.i < this.p.length) throw new PatternError(`unexpected "${this.p[this.i]}" at position ${this.i + 1}`);
		return node;
	}

	private alternation(): Node {
		const options = [this.sequence()];
		while (this.p[this.i] === '|') {
			this.i++;
			options.push(this.sequence());
		}
		return options.length === 1 ? options[0] : { t: 'alt', options };
	}

	private sequence(): Node {
		const items: Node[] = [];
		while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
			items.push(this.quantified(this.atom()));
		}
		return { t: 'seq', items };
	}

	private quantified(node: Node): Node {
		for (;;) {
			const c = this.p[this.i];
			let min: number;
			let max: number;
			if (c === '*') [min, max] = [0, Infinity];
			else if (c === '+') [min, max] = [1, Infinity];
			else if (c === '?') [min, max] = [0, 1];
			else if (c === '{') {
				const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
				if (!m) return node; // a literal {
				min = Number(m[1]);
				max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
				if (max < min) throw new PatternError(`numbers out of order in ${m[0]}`);
				if (min > 1000 || (max !== Infinity && max > 1000)) throw new PatternError(`repetition count too large in ${m[0]} (at most 1000)`);
				this.i += m[0].length - 1;
			} else return node;
			this.i++;
			if (this.p[this.i] === '?') this.i++; // lazy: same lines match
			if (node.t === 'assert') throw new PatternError('nothing to repeat before a quantifier');
			node = { t: 'repeat', node, min, max };
		}
	}

	private atom(): Node {
		const c = this.p[this.i++];
		switch (c) {
			case '.':
				return { t: 'char', test: ch => ch !== '\n' && ch !== '\r' };
			case '^':
				return { t: 'assert', kind: 'bol' };
			case '$':
				return { t: 'assert', kind: 'eol' };
			case '[':
				return this.charClass();
			case '(':
				return this.group();
			case '\\':
				return this.escape();
			case '*':
			case '+':
			case '?':
				throw new PatternError(`nothing to repeat before "${c}" at position ${this.i}`);
			default:
				return literal(c);
		}
	}

	private group(): Node {
		if (this.p[this.i] === '?') {
			const rest = this.p.slice(this.i, this.i + 3);
			if (rest.startsWith('?:')) this.i += 2;
			else if (/^\?<[A-Za-z_]/.test(rest)) {
				const end = this.p.indexOf('>', this.i);
				if (end === -1) throw new PatternError('unterminated group name');
				this.i = end + 1;
			} else throw new PatternError('lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported in recall searches');
		}
		const node = this.alternation();
		if (this.p[this.i] !== ')') throw new PatternError('missing )');
		this.i++;
		return node;
	}

	private escapeChar(): { test?: (c: string) => boolean; char?: string; assert?: 'word' | 'notword' } {
		const c = this.p[this.i++];
		if (c === undefined) throw new PatternError('\\ at the end of the pattern');
		if (CLASS_ESCAPES[c]) return { test: CLASS_ESCAPES[c] };
		if (c === 'b') return { assert: 'word' };
		if (c === 'B') return { assert: 'notword' };
		if (/[1-9]/.test(c)) throw new PatternError('backreferences (\\1 …) are not supported in recall searches');
		if (c === 'k' && this.p[this.i] === '<') throw new PatternError('backreferences (\\k<name>) are not supported in recall searches');
		const simple: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f', v: '\v', '0': '\0' };
		if (simple[c]) return { char: simple[c] };
		if (c === 'x' || c === 'u') {
			const n = c === 'x' ? 2 : 4;
			const hex = this.p.slice(this.i, this.i + n);
			if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw new PatternError(`bad \\${c} escape`);
			this.i += n;
			return { char: String.fromCharCode(parseInt(hex, 16)) };
		}
		return { char: c };
	}

	private escape(): Node {
		const e = this.escapeChar();
		if (e.assert) return { t: 'assert', kind: e.assert };
		if (e.test) return { t: 'char', test: e.test };
		return literal(e.char!);
	}

	private charClass(): Node {
		const negated = this.p[this.i] === '^';
		if (negated) this.i++;
		const tests: ((c: string) => boolean)[] = [];
		let first = true;
		for (;;) {
			if (this.i >= this.p.length) throw new PatternError('missing ]');
			let c = this.p[this.i];
			if (c === ']' && !first) {
				this.i++;
				break;
			}
			first = false;
			this.i++;
			if (c === '\\') {
				const e = this.escapeChar();
				if (e.test) {
					tests.push(e.test);
					continue;
				}
				if (e.assert) {
					tests.push(ch => ch === '\b');
					continue;
				}
				c = e.char!;
			}
			if (this.p[this.i] === '-' && this.p[this.i + 1] !== undefined && this.p[this.i + 1] !== ']') {
				this.i++;
				let end = this.p[this.i++];
				if (end === '\\') {
					const e = this.escapeChar();
					if (!e.char) throw new PatternError('bad range in a character class');
					end = e.char;
				}
				if (end < c) throw new PatternError(`range out of order in character class: ${c}-${end}`);
				const from = c;
				tests.push(ch => ch >= from && ch <= end);
			} else {
				const ch0 = c;
				tests.push(ch => ch === ch0);
			}
		}
		const any = caseless(ch => tests.some(t => t(ch)));
		return { t: 'char', test: negated ? ch => !any(ch) : any };
	}
}

// ---- compiling to instructions ----

function compile(node: Node, prog: Inst[]): void {
	if (prog.length > MAX_PROGRAM) throw new PatternError('pattern too large (its repetitions expand beyond the limit)');
	switch (node.t) {
		case 'char':
			prog.push({ op: 'char', test: node.test });
			return;
		case 'assert':
			prog.push({ op: 'assert', kind: node.kind });
			return;
		case 'seq':
			for (const item of node.items) compile(item, prog);
			return;
		case 'alt': {
			// split L1, next; L1: option0; jmp end; next: split L2, … ; last option
			const jumps: { op: 'jmp'; x: number }[] = [];
			node.options.forEach((option, k) => {
				if (k < node.options.length - 1) {
					const split: Inst = { op: 'split', x: prog.length + 1, y: -1 };
					prog.push(split);
					compile(option, prog);
					const jmp = { op: 'jmp' as const, x: -1 };
					prog.push(jmp);
					jumps.push(jmp);
					split.y = prog.length;
				} else compile(option, prog);
			});
			for (const j of jumps) j.x = prog.length;
			return;
		}
		case 'repeat': {
			for (let k = 0; k < node.min; k++) compile(node.node, prog);
			if (node.max === Infinity) {
				// L: split body, end; body; jmp L
				const split: Inst = { op: 'split', x: prog.length + 1, y: -1 };
				const at = prog.length;
				prog.push(split);
				compile(node.node, prog);
				prog.push({ op: 'jmp', x: at });
				split.y = prog.length;
			} else {
				const splits: Extract<Inst, { op: 'split' }>[] = [];
				for (let k = node.min; k < node.max; k++) {
					const split: Extract<Inst, { op: 'split' }> = { op: 'split', x: prog.length + 1, y: -1 };
					prog.push(split);
					splits.push(split);
					compile(node.node, prog);
				}
				for (const s of splits) s.y = prog.length;
			}
			return;
		}
	}
}

export interface LinearRegex {
	readonly source: string;
	/** Where the first match in `line` starts and ends, or undefined; counts its work in `budget`. */
	find(line: string, budget: StepBudget): { start: number; end: number } | undefined;
}

/** Work allowed across searches: one step is one state advanced at one position. */
export interface StepBudget {
	remaining: number;
}

/** Compiles `pattern`; throws PatternError with a readable reason. */
export function compileLinear(pattern: string): LinearRegex {
	if (pattern.length > 1000) throw new PatternError('pattern longer than 1,000 characters');
	const prog: Inst[] = [];
	compile(new Parser(pattern).parse(), prog);
	prog.push({ op: 'match' });
	if (prog.length > MAX_PROGRAM) throw new PatternError('pattern too large (its repetitions expand beyond the limit)');
	const program = flatten(prog);
	return { source: pattern, find: (line, budget) => run(program, line, budget) };
}

// The program in flat arrays (one shape for the hot loop).
const OP_CHAR = 0;
const OP_SPLIT = 1;
const OP_JMP = 2;
const OP_MATCH = 3;
const OP_BOL = 4;
const OP_EOL = 5;
const OP_WORD = 6;
const OP_NOTWORD = 7;

interface Program {
	readonly ops: Uint8Array;
	readonly x: Int32Array;
	readonly y: Int32Array;
	readonly tests: readonly ((c: string) => boolean)[];
}

function flatten(prog: readonly Inst[]): Program {
	const ops = new Uint8Array(prog.length);
	const x = new Int32Array(prog.length);
	const y = new Int32Array(prog.length);
	const tests: ((c: string) => boolean)[] = [];
	prog.forEach((inst, pc) => {
		tests.push(() => false);
		switch (inst.op) {
			case 'char':
				ops[pc] = OP_CHAR;
				tests[pc] = inst.test;
				break;
			case 'split':
				ops[pc] = OP_SPLIT;
				x[pc] = inst.x;
				y[pc] = inst.y;
				break;
			case 'jmp':
				ops[pc] = OP_JMP;
				x[pc] = inst.x;
				break;
			case 'match':
				ops[pc] = OP_MATCH;
				break;
			case 'assert':
				ops[pc] = { bol: OP_BOL, eol: OP_EOL, word: OP_WORD, notword: OP_NOTWORD }[inst.kind];
				break;
		}
	});
	return { ops, x, y, tests };
}

/**
 * The Pike VM: all threads advance together, each instruction entered at most once per position,
 * so the work is at most (program size) × (line length). Threads that started earlier come first,
 * so the match found starts leftmost; it is extended as long as a thread that started no later can.
 */
function run(program: Program, line: string, budget: StepBudget): { start: number; end: number } | undefined {
	const { ops, x, y, tests } = program;
	const n = ops.length;
	let clist = new Int32Array(n);
	let cstart = new Int32Array(n);
	let nlist = new Int32Array(n);
	let nstart = new Int32Array(n);
	let ccount = 0;
	let ncount = 0;
	const seen = new Int32Array(n).fill(-1);
	const stack = new Int32Array(n + 1);
	let generation = 0;
	let bestStart = -1;
	let bestEnd = -1;
	let steps = 0;

	const wordAt = (i: number) => i >= 0 && i < line.length && isWordChar(line[i]);
	const add = (pc0: number, start: number, pos: number) => {
		let top = 0;
		stack[top++] = pc0;
		while (top > 0) {
			const pc = stack[--top];
			if (seen[pc] === generation) continue;
			seen[pc] = generation;
			steps++;
			switch (ops[pc]) {
				case OP_JMP:
					stack[top++] = x[pc];
					break;
				case OP_SPLIT:
					stack[top++] = y[pc];
					stack[top++] = x[pc]; // x is taken first
					break;
				case OP_BOL:
					if (pos === 0) stack[top++] = pc + 1;
					break;
				case OP_EOL:
					if (pos === line.length) stack[top++] = pc + 1;
					break;
				case OP_WORD:
				case OP_NOTWORD:
					if ((wordAt(pos - 1) !== wordAt(pos)) === (ops[pc] === OP_WORD)) stack[top++] = pc + 1;
					break;
				default:
					nlist[ncount] = pc;
					nstart[ncount] = start;
					ncount++;
			}
		}
	};

	for (let pos = 0; pos <= line.length; pos++) {
		generation++;
		ncount = 0;
		const c = pos > 0 ? line[pos - 1] : '';
		for (let k = 0; k < ccount; k++) {
			const pc = clist[k];
			steps++;
			if (ops[pc] === OP_CHAR && tests[pc](c)) add(pc + 1, cstart[k], pos);
		}
		if (bestStart === -1) add(0, pos, pos);
		for (let k = 0; k < ncount; k++) {
			if (ops[nlist[k]] !== OP_MATCH) continue;
			const start = nstart[k];
			if (bestStart === -1 || start < bestStart || (start === bestStart && pos > bestEnd)) {
				bestStart = start;
				bestEnd = pos;
			}
		}
		let alive = false;
		for (let k = 0; k < ncount && bestStart !== -1 && !alive; k++) alive = ops[nlist[k]] !== OP_MATCH && nstart[k] <= bestStart;
		if (bestStart !== -1 && !alive) break;
		if (steps > budget.remaining) break;
		const t1 = clist;
		clist = nlist;
		nlist = t1;
		const t2 = cstart;
		cstart = nstart;
		nstart = t2;
		ccount = ncount;
	}
	budget.remaining -= steps;
	return bestStart === -1 ? undefined : { start: bestStart, end: bestEnd };
}
