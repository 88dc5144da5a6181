// Reads a program's options the way GNU getopt_long does, so that what the program will take as
// an option is what the classifier takes as one: short options clustered (`-mo FILE` is -m and
// -o FILE), a value attached or in the next word, long options abbreviated to any unambiguous
// prefix (`--out=F` is --output=F), options after operands (permutation), `--` ending them.
// Anything it cannot place (an option the program does not have, an ambiguous abbreviation, a
// word whose value is unknown where an option could stand) is reported, never guessed.
import type { Arg } from './shellEffectsModel';

/** `flag`: no value; `value`: a value attached or in the next word; `optional`: a value only when attached. */
export type OptionKind = 'flag' | 'value' | 'optional';

export interface OptionSpec {
	readonly short: Readonly<Record<string, OptionKind>>;
	readonly long: Readonly<Record<string, OptionKind>>;
}

export interface ParsedOption {
	/** `-o` for a short option, the full `--output` for a long one. */
	readonly name: string;
	readonly value?: Arg;
}

export interface ParsedArgs {
	readonly options: readonly ParsedOption[];
	readonly operands: readonly Arg[];
	/** Why the words could not be read with certainty; the caller treats the command as running something. */
	readonly unknown?: string;
}

function longOption(spec: OptionSpec, name: string): string | undefined {
	if (spec.long[name] !== undefined) return name;
	const matches = Object.keys(spec.long).filter(l => l.startsWith(name));
	return matches.length === 1 ? matches[0] : undefined;
}

/** The options and operands of `args` (the words after the program name). */
export function parseOptions(args: readonly Arg[], spec: OptionSpec): ParsedArgs {
	const options: ParsedOption[] = [];
	const operands: Arg[] = [];
	const fail = (unknown: string): ParsedArgs => ({ options, operands, unknown });
	for (let i = 0; i < args.length; i++) {
		const arg = args[i];
		const text = arg.text;
		if (!arg.literal) return fail(`a word whose value is not known: ${text}`);
		if (text === '--') {
			operands.push(...args.slice(i + 1));
			break;
		}
		if (!text.startsWith('-') || text === '-') {
			operands.push(arg);
			continue;
		}
		if (text.startsWith('--')) {
			const eq = text.indexOf('=');
			const written = eq === -1 ? text.slice(2) : text.slice(2, eq);
			const name = longOption(spec, written);
			if (name === undefined) return fail(`unknown or ambiguous option --${written}`);
			const kind = spec.long[name];
			if (eq !== -1) {
				if (kind === 'flag') return fail(`--${name} takes no value`);
				options.push({ name: `--${name}`, value: { text: text.slice(eq + 1), literal: true } });
			} else if (kind === 'value') {
				if (i + 1 >= args.length) return fail(`--${name} without its value`);
				options.push({ name: `--${name}`, value: args[++i] });
			} else options.push({ name: `--${name}` });
			continue;
		}
		for (let k = 1; k < text.length; k++) {
			const c = text[k];
			const kind = spec.short[c];
			if (kind === undefined) return fail(`unknown option -${c}`);
			if (kind === 'flag') {
				options.push({ name: `-${c}` });
				continue;
			}
			const attached = text.slice(k + 1);
			if (attached !== '' || kind === 'optional') options.push({ name: `-${c}`, ...(attached !== '' ? { value: { text: attached, literal: true } } : {}) });
			else if (i + 1 >= args.length) return fail(`-${c} without its value`);
			else options.push({ name: `-${c}`, value: args[++i] });
			break;
		}
	}
	return { options, operands };
}

/** Flags named by the letters of `letters`, each without a value. */
export function flags(letters: string): Record<string, OptionKind> {
	return Object.fromEntries([...letters].map(c => [c, 'flag' as const]));
}
