// One way to read the command line of Longhaul's command-line tools (`longhaul-plan` and the replay
// benchmark), so that whoever scripts one can script the other: `--name value` and `--name=value`
// alike, `--help` (or `-h`), no positional arguments, and the same exit codes. Built on node:util
// parseArgs; the checks are done here on its tokens so that every mistake gets a short message
// that names the option, whatever the Node version's own wording.
import { parseArgs } from 'node:util';

/** The tool did what was asked. */
export const EXIT_OK = 0;
/** The arguments were fine but the work failed (unreadable or invalid input, an unexpected error). */
export const EXIT_FAILURE = 1;
/** The arguments were wrong: the message on stderr says how. */
export const EXIT_USAGE = 2;

/** A mistake in the arguments. The message names the option and what it needs. */
export class UsageError extends Error {
	override readonly name = 'UsageError';
}

/** The options a tool takes, by long name (without the dashes): does each take a value? */
export type OptionKinds = Readonly<Record<string, 'string' | 'boolean'>>;

/** The options given: a string for each value option, `true` for each flag; absent when not given (the last one given wins). */
export type OptionValues<T extends OptionKinds> = { readonly [K in keyof T]?: T[K] extends 'string' ? string : true };

/**
 * Reads `argv` (without node and the script) against `kinds`, or returns 'help' when `--help` or
 * `-h` is given. Throws {@link UsageError} for an unknown option, an option without its value, a
 * value given to a flag, and any argument that is not an option.
 */
export function readCommandLine<T extends OptionKinds>(argv: readonly string[], kinds: T): OptionValues<T> | 'help' {
	if ('help' in kinds) throw new Error('readCommandLine: "help" is reserved for --help');
	const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
	for (const [name, type] of Object.entries(kinds)) options[name] = { type };
	// Not strict: the tokens are checked below, each mistake with its own message.
	const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
	const values: Record<string, string | true> = {};
	let help = false;
	for (const token of tokens) {
		if (token.kind === 'positional') {
			throw new UsageError(`unexpected argument ${JSON.stringify(token.value)}: every argument is an option such as --name value`);
		}
		if (token.kind === 'option-terminator') continue;
		const kind = token.name === 'help' ? 'boolean' : kinds[token.name];
		if (kind === undefined) throw new UsageError(`unknown option ${token.rawName}`);
		if (kind === 'boolean') {
			if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value (got ${JSON.stringify(token.value)})`);
			if (token.name === 'help') help = true;
			else values[token.name] = true;
			continue;
		}
		// A value option followed by another option: the value is missing (a value starting with a
		// dash can still be given as --name=-value).
		if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
			throw new UsageError(`${token.rawName} needs a value`);
		}
		values[token.name] = token.value;
	}
	return help ? 'help' : (values as OptionValues<T>);
}

/**
 * A window or token count as written on the command line: `16000`, `16k` or `12.5k`, at least
 * 1000. `option` names the option in the message.
 */
export function parseTokenCount(option: string, text: string): number {
	const m = /^(\d+(?:\.\d+)?)(k)?$/i.exec(text.trim());
	const n = m ? Math.round(Number(m[1]) * (m[2] ? 1000 : 1)) : NaN;
	if (!(n >= 1000)) throw new UsageError(`${option} must be a number of tokens of at least 1000, such as 16000 or 16k; got ${JSON.stringify(text)}`);
	return n;
}

/**
 * What a tool prints on stderr and exits with when it stops on `error`: a usage mistake (2), with
 * the command that lists the options, or a failure (1).
 */
export function stopMessage(program: string, error: unknown, helpCommand = `${program} --help`): { readonly stderr: string; readonly exitCode: number } {
	if (error instanceof UsageError) return { stderr: `${program}: ${error.message}\nRun ${helpCommand} for the options.\n`, exitCode: EXIT_USAGE };
	const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
	return { stderr: `${program}: ${text}\n`, exitCode: EXIT_FAILURE };
}
