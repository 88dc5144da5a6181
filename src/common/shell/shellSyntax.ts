// Reads a shell command line with a real bash parser (tree-sitter-bash, bashParser.ts) into the
// simple commands it runs, the files its redirections name and the variables it assigns. It
// does not execute or expand anything. Each word comes with whether its value is known as
// written: a word holding an expansion, a substitution, a glob or a brace list can become any
// text, including an option, and the classifier (shellCommand.ts) treats it so.
//
// What it cannot read it does not guess: a line the parser reports an error in, a node of a kind
// not handled here, or one nested deeper than a bound makes the whole line "not understood",
// and the classifier counts such a line as one that ran something.
import type { Node } from '@vscode/tree-sitter-wasm';
import { bashParser } from './bashParser';

export interface Redirect {
	/** `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<>`, `<<`, `<<-`, `<<<`, `>&`, `<&`. */
	readonly op: string;
	/** The target word, quotes removed (the heredoc delimiter for `<<`). */
	readonly target: string;
}

export interface SimpleCommand {
	/** Words with quotes removed; an expansion or substitution stays in its word as written (e.g. `$(date)`). */
	readonly words: readonly string[];
	/** Per word: its value is exactly the text in `words` (no expansion, substitution, glob or brace list). */
	readonly literal: readonly boolean[];
	readonly redirects: readonly Redirect[];
	/** Command and process substitutions in this command's words, assignments or redirections: their inner text. */
	readonly substitutions: readonly string[];
	/** The simple commands those substitutions run (and those of expanding heredoc bodies), in order. */
	readonly inner: readonly SimpleCommand[];
	/** Variables this command assigns: `NAME=…` before it or alone, `export`/`declare`/`local`/… names, a `for` variable. */
	readonly assignments: readonly string[];
}

export interface ParsedLine {
	/** Every simple command of the line in order, including those in subshells, groups, loops and function bodies; not those inside substitutions (see `inner`). */
	readonly commands: readonly SimpleCommand[];
	/** False when some part of the line could not be read with certainty. */
	readonly understood: boolean;
}

/** Nesting deeper than this is not read. */
const MAX_DEPTH = 64;

/** Statements: nodes whose named children are again statements or the words of a header. */
const CONTAINERS = new Set([
	'program',
	'list',
	'pipeline',
	'subshell',
	'compound_statement',
	'if_statement',
	'elif_clause',
	'else_clause',
	'while_statement',
	'do_group',
	'case_statement',
	'case_item',
	'negated_command',
	'c_style_for_statement',
]);
/** Nodes that take part in a word or an expression; their substitutions run, their value is not known. */
const WORD_PARTS = new Set([
	'word',
	'raw_string',
	'number',
	'string',
	'string_content',
	'concatenation',
	'ansi_c_string',
	'translated_string',
	'simple_expansion',
	'expansion',
	'arithmetic_expansion',
	'command_substitution',
	'process_substitution',
	'brace_expression',
	'variable_name',
	'special_variable_name',
	'subscript',
	'array',
	'extglob_pattern',
	'regex',
	'test_operator',
	'binary_expression',
	'unary_expression',
	'ternary_expression',
	'postfix_expression',
	'parenthesized_expression',
	'heredoc_content',
]);

/**
 * Lines longer than this, or whose tree has more nodes, are not read (the classifier counts
 * them as running something): reading happens on the extension host's thread, and a line of
 * 100,000 characters of commands takes about half a second. A file written through a heredoc
 * is mostly one node, so such lines stay readable far longer.
 */
const MAX_LINE_CHARS = 100_000;
const MAX_NODES = 20_000;
/** How many `$((` a line may have re-read as `$( (`. */
const MAX_REREADS = 8;

/** The line read into simple commands, or undefined when the parser is not loaded. */
export function readShell(line: string): ParsedLine | undefined {
	const parser = bashParser();
	if (!parser) return undefined;
	if (line.length > MAX_LINE_CHARS) return { commands: [], understood: false };
	let text = line;
	for (let reread = 0; ; reread++) {
		const tree = parser.parse(text);
		if (!tree) return { commands: [], understood: false };
		try {
			if (tree.rootNode.descendantCount > MAX_NODES) return { commands: [], understood: false };
			const failed = tree.rootNode.hasError && hasRealError(tree.rootNode);
			if (reread < MAX_REREADS) {
				// bash reads a `$((…))` that is not arithmetic as `$( (…) )`, a subshell in a substitution; the grammar does not.
				const at = failed ? notArithmetic(tree.rootNode, text) : -1;
				if (at !== -1) {
					text = `${text.slice(0, at + 2)} ${text.slice(at + 2)}`;
					continue;
				}
				// The grammar reads `! for …`, `! { …; }` and `! ! …` as commands named for, {, !: the `!` only
				// inverts the exit status, so it is left out and the rest read again.
				const bang = misreadNegation(tree.rootNode);
				if (bang !== -1) {
					text = `${text.slice(0, bang)} ${text.slice(bang + 1)}`;
					continue;
				}
				// After `v=$(…) 2>&1` with no command the grammar loses its way; `v=$(…) : 2>&1` has the same
				// assignment, substitution and redirection, and it reads that.
				const redirect = failed ? redirectAfterAssignment(tree.rootNode) : -1;
				if (redirect !== -1) {
					text = `${text.slice(0, redirect)}: ${text.slice(redirect)}`;
					continue;
				}
				// Inside backticks the grammar fails on some commands it reads inside $(…); without a
				// backslash in them, `…` and $(…) are the same substitution.
				const ticks = failed ? backticksAsDollar(text) : undefined;
				if (ticks !== undefined) {
					text = ticks;
					continue;
				}
			}
			const reader = new TreeReader();
			const commands = reader.statement(tree.rootNode, 0);
			return { commands, understood: reader.understood && !failed };
		} finally {
			tree.delete();
		}
	}
}

/** Reserved words the grammar takes for a command name after `!`. */
const RESERVED_AFTER_BANG = new Set(['!', '{', 'for', 'select', 'while', 'until', 'if', 'case', 'function', '[[', '((']);

/** Where the `!` of the first negation whose command the grammar misread starts, or -1. */
function misreadNegation(root: Node): number {
	for (const negation of root.descendantsOfType('negated_command')) {
		const inner = negation?.namedChildren[0];
		const name = inner?.type === 'command' ? inner.childForFieldName('name')?.text : undefined;
		if (negation && name !== undefined && RESERVED_AFTER_BANG.has(name.split(/\s/)[0])) return negation.startIndex;
	}
	return -1;
}

/** Where the first redirection that follows a command's assignments, with no command name before it, starts, or -1. */
function redirectAfterAssignment(root: Node): number {
	for (const command of root.descendantsOfType('command')) {
		const parts = command ? namedChildren(command) : [];
		const first = parts.findIndex(p => p.type !== 'variable_assignment');
		if (first > 0 && parts[first].type.endsWith('_redirect')) return parts[first].startIndex;
	}
	return -1;
}

/** `text` with its first `…` (holding no backslash) written as $(…), or undefined. */
function backticksAsDollar(text: string): string | undefined {
	const open = text.indexOf('`');
	const close = open === -1 ? -1 : text.indexOf('`', open + 1);
	if (close === -1 || text.slice(open + 1, close).includes('\\')) return undefined;
	return `${text.slice(0, open)}$(${text.slice(open + 1, close)})${text.slice(close + 1)}`;
}

/** Where the first `$((` that the grammar did not read as sound arithmetic starts, or -1. */
function notArithmetic(root: Node, text: string): number {
	for (let at = text.indexOf('$(('); at !== -1; at = text.indexOf('$((', at + 3)) {
		const token = root.descendantForIndex(at);
		const arithmetic = token?.parent?.type === 'arithmetic_expansion' && token.parent.startIndex === at ? token.parent : undefined;
		if (!arithmetic || arithmetic.hasError) return at;
	}
	return -1;
}

/**
 * An error node, or a node the parser had to make up, anywhere in the tree. One is tolerated:
 * the grammar wants a command name after `v=$(…) > file` (valid bash: an assignment with a
 * redirection) and inserts an empty one, which the reader skips.
 */
function hasRealError(node: Node): boolean {
	if (node.isError) return true;
	if (node.isMissing) return !isMadeUpCommandName(node);
	if (!node.hasError) return false;
	return children(node).some(hasRealError);
}

function isMadeUpCommandName(node: Node): boolean {
	const name = node.type === 'command_name' ? node : node.type === 'word' ? node.parent : null;
	return name?.type === 'command_name' && name.startIndex === name.endIndex && name.parent?.type === 'command';
}

interface WordValue {
	readonly text: string;
	readonly literal: boolean;
}

/** Collects what one command (or header) holds while its words are read. */
interface Collector {
	readonly substitutions: string[];
	readonly inner: SimpleCommand[];
}

/**
 * The named children of a node; a list or pipeline nests to the left for every `&&`, `||`, `;`
 * or `|` (a && b && c is list(list(a, b), c)), so those are unnested here, without recursion.
 */
function flattened(node: Node): Node[] {
	if (node.type !== 'list' && node.type !== 'pipeline') return namedChildren(node);
	const out: Node[] = [];
	const pending = [node];
	while (pending.length) {
		const next = pending.pop()!;
		if (next.type === node.type) pending.push(...namedChildren(next).reverse());
		else out.push(next);
	}
	return out;
}

function children(node: Node): Node[] {
	return node.children.filter((c): c is Node => c !== null);
}

function namedChildren(node: Node): Node[] {
	return node.namedChildren.filter((c): c is Node => c !== null);
}

/** `\x` → `x` and `\<newline>` → nothing, as outside quotes. */
function unescapeUnquoted(text: string): string {
	return text.replace(/\\(\n|[\s\S])/g, (_, c: string) => (c === '\n' ? '' : c));
}

/** Inside "…", a backslash escapes only $ ` " \ and a newline. */
function unescapeDoubleQuoted(text: string): string {
	return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

/** Unquoted text a shell would expand: a glob (* ? [) or a brace list ({a,b} or {1..3}), not escaped. */
function expandsUnquoted(raw: string): boolean {
	const plain = raw.replace(/\\[\s\S]/g, '_');
	return /[*?[]/.test(plain) || /\{[^{}]*(,|\.\.)[^{}]*\}/.test(plain);
}

class TreeReader {
	understood = true;
	/** Inside a `…` substitution, where an escaped backtick opens a nested one the grammar does not read. */
	private inBackticks = 0;

	/** The simple commands of a statement node. */
	statement(node: Node, depth: number): SimpleCommand[] {
		if (depth > MAX_DEPTH) return this.unknown();
		const type = node.type;
		if (type === 'comment' || !node.isNamed) return [];
		if (node.isError || node.isMissing) return this.unknown();
		if (type === 'command') return [this.command(node, depth)];
		if (type === 'declaration_command' || type === 'unset_command') return [this.declaration(node, depth)];
		if (type === 'variable_assignment' || type === 'variable_assignments') return [this.assignmentsOnly(node, depth)];
		if (type === 'redirected_statement') return this.redirected(node, depth);
		if (type === 'function_definition') {
			// Its body runs whenever the function is called, under a name that may shadow any program: read it as run.
			return namedChildren(node)
				.slice(1)
				.flatMap(child => this.statement(child, depth + 1));
		}
		if (type === 'for_statement') return this.forStatement(node, depth);
		if (type === 'test_command') return [this.test(node, depth)];
		if (CONTAINERS.has(type)) return this.container(node, depth);
		return this.unknown();
	}

	private unknown(): [] {
		this.understood = false;
		return [];
	}

	/** Statements in order; words among them (loop and case headers, patterns) are data whose substitutions run. */
	private container(node: Node, depth: number): SimpleCommand[] {
		const out: SimpleCommand[] = [];
		const header: Collector = { substitutions: [], inner: [] };
		for (const child of flattened(node)) {
			if (WORD_PARTS.has(child.type)) this.value(child, header, depth + 1);
			else out.push(...this.statement(child, depth + 1));
		}
		if (header.substitutions.length || header.inner.length) out.unshift(emptyCommand(header));
		return out;
	}

	/** `[ … ]`, `[[ … ]]`, `(( … ))` and the like: they only test, but their substitutions run. */
	private test(node: Node, depth: number): SimpleCommand {
		const collector: Collector = { substitutions: [], inner: [] };
		for (const child of namedChildren(node)) this.value(child, collector, depth + 1);
		// [[ a -eq 'x[$(cmd)]' ]] evaluates quoted text as arithmetic, which runs the substitution in it.
		if (/'[^']*(\$\(|`)[^']*'/.test(node.text)) this.understood = false;
		return emptyCommand(collector);
	}

	private forStatement(node: Node, depth: number): SimpleCommand[] {
		const collector: Collector = { substitutions: [], inner: [] };
		const assignments: string[] = [];
		const body: SimpleCommand[] = [];
		for (const child of namedChildren(node)) {
			if (child.type === 'variable_name') assignments.push(child.text);
			else if (child.type === 'do_group') body.push(...this.statement(child, depth + 1));
			else this.value(child, collector, depth + 1);
		}
		return [{ ...emptyCommand(collector), assignments }, ...body];
	}

	private redirected(node: Node, depth: number): SimpleCommand[] {
		const redirects: Redirect[] = [];
		const collector: Collector = { substitutions: [], inner: [] };
		const body: SimpleCommand[] = [];
		for (const child of namedChildren(node)) {
			if (child.type.endsWith('_redirect')) redirects.push(...this.redirect(child, collector, depth + 1));
			else body.push(...this.statement(child, depth + 1));
		}
		// The redirections of a simple command are its own; those of a compound statement get a command of their own.
		if (body.length === 1 && namedChildren(node)[0]?.type === 'command') {
			const only = body[0];
			return [
				{
					...only,
					redirects: [...only.redirects, ...redirects],
					substitutions: [...only.substitutions, ...collector.substitutions],
					inner: [...only.inner, ...collector.inner],
				},
			];
		}
		return [...body, { ...emptyCommand(collector), redirects }];
	}

	private command(node: Node, depth: number): SimpleCommand {
		const words: string[] = [];
		const literal: boolean[] = [];
		const redirects: Redirect[] = [];
		const assignments: string[] = [];
		const collector: Collector = { substitutions: [], inner: [] };
		for (const child of namedChildren(node)) {
			if (child.type === 'variable_assignment') {
				assignments.push(this.assignment(child, collector, depth + 1));
			} else if (child.type.endsWith('_redirect')) {
				redirects.push(...this.redirect(child, collector, depth + 1));
			} else if (child.type === 'command_name') {
				if (child.startIndex === child.endIndex) continue; // made up by the grammar (hasRealError)
				const name = namedChildren(child)[0];
				const value = name ? this.value(name, collector, depth + 1) : { text: '', literal: false };
				words.push(value.text);
				literal.push(value.literal);
			} else if (WORD_PARTS.has(child.type)) {
				const value = this.value(child, collector, depth + 1);
				words.push(value.text);
				literal.push(value.literal);
			} else this.understood = false;
		}
		return { words, literal, redirects, assignments, ...collector };
	}

	/** `export A=1 B`, `declare -x …`, `local …`, `readonly …`, `typeset …`, `unset …`: the keyword, its words and the names it assigns. */
	private declaration(node: Node, depth: number): SimpleCommand {
		const words = [children(node)[0]?.type ?? ''];
		const literal = [true];
		const assignments: string[] = [];
		const collector: Collector = { substitutions: [], inner: [] };
		for (const child of namedChildren(node)) {
			if (child.type === 'variable_assignment') assignments.push(this.assignment(child, collector, depth + 1));
			else if (child.type === 'variable_name') {
				words.push(child.text);
				literal.push(true);
				if (node.type === 'declaration_command') assignments.push(child.text);
			} else if (WORD_PARTS.has(child.type)) {
				const value = this.value(child, collector, depth + 1);
				words.push(value.text);
				literal.push(value.literal);
			} else this.understood = false;
		}
		return { words, literal, redirects: [], assignments, ...collector };
	}

	private assignmentsOnly(node: Node, depth: number): SimpleCommand {
		const collector: Collector = { substitutions: [], inner: [] };
		const list = node.type === 'variable_assignment' ? [node] : namedChildren(node);
		const assignments = list.map(a => this.assignment(a, collector, depth + 1));
		return { ...emptyCommand(collector), assignments };
	}

	/** The name an assignment sets (`NAME` of `NAME=…`, `NAME+=…`, `NAME[i]=…`); its value's substitutions run. */
	private assignment(node: Node, collector: Collector, depth: number): string {
		const parts = namedChildren(node);
		const target = parts[0];
		if (!target) {
			this.understood = false;
			return '';
		}
		if (target.type === 'subscript') this.value(target, collector, depth);
		for (const part of parts.slice(1)) this.value(part, collector, depth);
		return (target.type === 'subscript' ? (namedChildren(target)[0]?.text ?? '') : target.text).replace(/\+$/, '');
	}

	private redirect(node: Node, collector: Collector, depth: number): Redirect[] {
		const out: Redirect[] = [];
		const op = children(node).find(c => !c.isNamed)?.type ?? '';
		if (node.type === 'heredoc_redirect') {
			let delimiter = '';
			// Only the body of an unquoted delimiter holds substitutions (the grammar leaves a quoted one's body unread).
			for (const child of namedChildren(node)) {
				if (child.type === 'heredoc_start') delimiter = unescapeUnquoted(child.text.replace(/['"]/g, ''));
				else if (child.type.endsWith('_redirect')) out.push(...this.redirect(child, collector, depth + 1));
				else if (child.type !== 'heredoc_end') this.value(child, collector, depth);
			}
			return [{ op, target: delimiter }, ...out];
		}
		const targets = namedChildren(node).filter(c => c.type !== 'file_descriptor');
		let target = '';
		for (const t of targets) target += this.value(t, collector, depth).text;
		return [{ op, target }];
	}

	/** A word's value with quotes removed; its substitutions are read into `collector`. */
	value(node: Node, collector: Collector, depth: number): WordValue {
		if (depth > MAX_DEPTH || node.isError || node.isMissing) {
			this.understood = false;
			return { text: node.text, literal: false };
		}
		const type = node.type;
		switch (type) {
			case 'word':
				if (this.inBackticks && node.text.includes('`')) this.understood = false;
				return { text: unescapeUnquoted(node.text), literal: !expandsUnquoted(node.text) };
			case 'number':
				return { text: node.text, literal: true };
			case 'raw_string':
				return { text: node.text.slice(1, -1), literal: true };
			case 'string_content':
			case 'heredoc_content':
				return { text: unescapeDoubleQuoted(node.text), literal: true };
			case 'string':
			case 'translated_string':
			case 'heredoc_body':
			case 'concatenation':
				return this.joined(node, collector, depth, type === 'translated_string');
			case 'command_substitution':
			case 'process_substitution':
				this.substitution(node, collector, depth);
				return { text: node.text, literal: false };
		}
		if (!WORD_PARTS.has(type)) {
			this.understood = false;
			return { text: node.text, literal: false };
		}
		// ${x@P} expands x as a prompt, which runs the substitutions in its value; ${!x} expands the
		// variable x names, whose array subscript (a[$(…)]) runs too: neither can be read here.
		if (type === 'expansion' && /^\$\{!|@P\}$/.test(node.text)) this.understood = false;
		// Expansions, arithmetic, ANSI-C strings, brace lists, expressions: read for substitutions, value unknown.
		for (const child of namedChildren(node)) this.value(child, collector, depth + 1);
		return { text: node.text, literal: false };
	}

	/** A word made of parts: quoted text, unquoted text and expansions side by side. */
	private joined(node: Node, collector: Collector, depth: number, translated: boolean): WordValue {
		let text = '';
		let literal = !translated;
		let unquoted = '';
		let last = node.startIndex + (node.type === 'string' ? 1 : node.type === 'translated_string' ? 2 : 0);
		for (const child of children(node)) {
			if (!child.isNamed) continue;
			// Text between named children of a string is its content (the grammar leaves some of it unnamed).
			if (node.type !== 'concatenation' && child.startIndex > last) {
				text += unescapeDoubleQuoted(node.text.slice(last - node.startIndex, child.startIndex - node.startIndex));
			}
			const part = this.value(child, collector, depth + 1);
			text += part.text;
			literal &&= part.literal;
			if (child.type === 'word') unquoted += child.text;
			last = child.endIndex;
		}
		const end = node.endIndex - (node.type === 'string' || node.type === 'translated_string' ? 1 : 0);
		if (node.type !== 'concatenation' && end > last) text += unescapeDoubleQuoted(node.text.slice(last - node.startIndex, end - node.startIndex));
		if (node.type === 'concatenation' && expandsUnquoted(unquoted)) literal = false;
		return { text, literal };
	}

	private substitution(node: Node, collector: Collector, depth: number): void {
		const raw = node.text;
		const backticks = raw.startsWith('`');
		collector.substitutions.push(backticks ? raw.slice(1, -1) : raw.slice(2, -1));
		if (backticks) this.inBackticks++;
		for (const child of namedChildren(node)) collector.inner.push(...this.statement(child, depth + 1));
		if (backticks) this.inBackticks--;
	}
}

function emptyCommand(collector: Collector): SimpleCommand {
	return { words: [], literal: [], redirects: [], assignments: [], substitutions: collector.substitutions, inner: collector.inner };
}
