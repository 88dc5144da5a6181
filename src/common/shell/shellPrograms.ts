// What the inspection programs with writing or code-running options do, read from their
// arguments: sed (e, w, -i, -f), awk (system, pipes, redirections, -f and every option but -F/-v),
// sort (-o in any cluster, --compress-program), uniq (an output operand), tree (-o, -R), date
// (-s), file (-C), rg (--pre), ag (--pager), less/more/bat (+commands and options), printf (-v).
// git has its own module (shellGit.ts).
// A word whose value is unknown, where it could be an option or a script, counts as running.
import { readSedScript } from './sedScript';
import { type Arg, type Effects, inspecting, isOption, looksLikePath, running, writing } from './shellEffectsModel';
import { flags, parseOptions, type OptionSpec } from './shellOptions';

const SED: OptionSpec = {
	short: { ...flags('nErsuzb'), e: 'value', f: 'value', l: 'value', i: 'optional' },
	long: Object.fromEntries([
		...[
			'quiet',
			'silent',
			'regexp-extended',
			'null-data',
			'zero-terminated',
			'separate',
			'unbuffered',
			'posix',
			'debug',
			'sandbox',
			'follow-symlinks',
			'binary',
			'help',
			'version',
		].map(n => [n, 'flag' as const]),
		['expression', 'value'],
		['file', 'value'],
		['line-length', 'value'],
		['in-place', 'optional'],
	]),
};

export function sedEffects(args: readonly Arg[]): Effects {
	const parsed = parseOptions(args, SED);
	if (parsed.unknown) {
		// Not read with certainty (a word holding an expansion, say): it runs; with -i its file arguments are edited.
		const inPlace = args.some(a => a.literal && /^(-[a-zA-Z]*i|--in-place)/.test(a.text));
		return running(inPlace ? args.filter(looksLikePath).map(a => a.text) : []);
	}
	const scripts: Arg[] = [];
	let scriptFile = false;
	let inPlace = false;
	for (const o of parsed.options) {
		if (o.name === '-e' || o.name === '--expression') scripts.push(o.value!);
		else if (o.name === '-f' || o.name === '--file') scriptFile = true;
		else if (o.name === '-i' || o.name === '--in-place') inPlace = true;
	}
	const operands = [...parsed.operands];
	if (scripts.length === 0 && !scriptFile) {
		const script = operands.shift();
		if (script) scripts.push(script);
	}
	const files = operands.filter(looksLikePath).map(a => a.text);
	const edited = inPlace ? files : [];
	// A script from a file, or one holding an expansion, is not known here: it may run or write anything.
	if (scriptFile || scripts.length === 0 || scripts.some(s => !s.literal)) return running(edited);
	const read = scripts.map(s => readSedScript(s.text));
	const writes = [...edited, ...read.flatMap(r => r.writes)];
	if (read.some(r => r.runs)) return running(writes);
	if (writes.length) return inPlace ? writing(writes) : { ...inspecting(files), writes };
	return inspecting(files);
}

/** awk programs that can run commands or write files: system(), pipes, redirections, getline, gawk's @ directives and indirect calls. */
const AWK_ACTS = /\bsystem\s*\(|\||>|\bgetline\b|\bclose\s*\(|\bfflush\b|@/;

export function awkEffects(args: readonly Arg[]): Effects {
	// Only -F and -v are read; -f (a program file) and every gawk option (-e, -i, -l, -o, -p, -d, …) count as running.
	const parsed = parseOptions(args, { short: { F: 'value', v: 'value' }, long: {} });
	if (parsed.unknown) return running();
	const program = parsed.operands[0];
	if (!program?.literal || AWK_ACTS.test(program.text)) return running();
	return inspecting();
}

const SORT: OptionSpec = {
	short: { ...flags('bdfgiMhnRrVcCmsuz'), k: 'value', S: 'value', t: 'value', T: 'value', o: 'value' },
	long: Object.fromEntries([
		...[
			'ignore-leading-blanks',
			'dictionary-order',
			'ignore-case',
			'general-numeric-sort',
			'ignore-nonprinting',
			'month-sort',
			'human-numeric-sort',
			'numeric-sort',
			'random-sort',
			'reverse',
			'version-sort',
			'merge',
			'stable',
			'unique',
			'zero-terminated',
			'debug',
			'help',
			'version',
		].map(n => [n, 'flag' as const]),
		...[
			'key',
			'buffer-size',
			'field-separator',
			'temporary-directory',
			'output',
			'compress-program',
			'files0-from',
			'random-source',
			'batch-size',
			'parallel',
			'sort',
		].map(n => [n, 'value' as const]),
		['check', 'optional'],
	]),
};

export function sortEffects(args: readonly Arg[]): Effects {
	const parsed = parseOptions(args, SORT);
	if (parsed.unknown) return running();
	if (parsed.options.some(o => o.name === '--compress-program')) return running();
	const outputs = parsed.options.filter(o => o.name === '-o' || o.name === '--output').map(o => o.value!.text);
	return outputs.length ? running(outputs) : inspecting();
}

const UNIQ: OptionSpec = {
	short: { ...flags('cdDiuz'), f: 'value', s: 'value', w: 'value' },
	long: {
		count: 'flag',
		repeated: 'flag',
		'all-repeated': 'optional',
		'skip-fields': 'value',
		'ignore-case': 'flag',
		'skip-chars': 'value',
		unique: 'flag',
		'zero-terminated': 'flag',
		'check-chars': 'value',
		group: 'optional',
		help: 'flag',
		version: 'flag',
	},
};

export function uniqEffects(args: readonly Arg[]): Effects {
	const parsed = parseOptions(args, UNIQ);
	if (parsed.unknown) return running();
	return parsed.operands.length >= 2 ? running([parsed.operands[1].text]) : inspecting();
}

/** Every word known, and none of them an option `dangerous` matches. */
function checked(args: readonly Arg[], dangerous: (text: string) => boolean): Effects {
	return args.some(a => !a.literal || dangerous(a.text)) ? running() : inspecting();
}

export function treeEffects(args: readonly Arg[]): Effects {
	const o = args.findIndex(a => a.literal && (a.text === '-o' || /^-o./.test(a.text)));
	if (o !== -1) return running([args[o].text === '-o' ? (args[o + 1]?.text ?? '') : args[o].text.slice(2)]);
	// -R with -H writes a 00Tree.html into every folder.
	return checked(args, a => a === '-R');
}

export const dateEffects = (args: readonly Arg[]) => checked(args, a => a === '-s' || a.startsWith('--set') || /^-[a-zA-Z]*s/.test(a));
export const fileEffects = (args: readonly Arg[]) => checked(args, a => a === '-C' || a === '--compile');
export const rgEffects = (args: readonly Arg[]) => checked(args, a => a === '--pre' || a.startsWith('--pre='));
export const agEffects = (args: readonly Arg[]) => checked(args, a => a === '--pager' || a.startsWith('--pager='));

/** less, more and bat: `+cmd` runs a command at start, options set pagers and key files: only plain file names are reads. */
export function pagerEffects(args: readonly Arg[]): Effects {
	if (args.some(a => !a.literal || isOption(a.text) || a.text.startsWith('+'))) return running();
	return inspecting(args.filter(looksLikePath).map(a => a.text));
}

/** printf -v NAME assigns a variable, which `assigns` judges. */
export function printfEffects(args: readonly Arg[], assigns: (name: string) => Effects): Effects {
	const first = args[0];
	if (first && !first.literal) return running();
	if (first?.text === '-v') return args[1]?.literal ? assigns(args[1].text) : running();
	if (first?.text.startsWith('-v')) return assigns(first.text.slice(2));
	return inspecting();
}
