// The bash grammar VS Code itself parses terminal commands with: tree-sitter-bash, run on
// web-tree-sitter, both from @vscode/tree-sitter-wasm (WebAssembly, no native code). Loading it
// is asynchronous, so it is loaded once, before the first command line is read: at activation
// and at the start of each chat request (src/agent), by the benchmark, and by the unit tests'
// setup. Until it is loaded (or if it cannot load) the shell classifier reads every command
// line as one that ran something (shellCommand.ts), never as inspect-only.
//
// Where the .wasm files are: next to the bundle (esbuild.mjs copies them into dist/, and the
// VSIX ships them), else in the package in node_modules (tests, the benchmark, the CLI).
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Language, Parser } from '@vscode/tree-sitter-wasm';

export const BASH_WASM_FILES = ['tree-sitter.wasm', 'tree-sitter-bash.wasm'] as const;

let parser: Parser | undefined;
let loading: Promise<boolean> | undefined;
let failure: string | undefined;

async function readWasm(name: string): Promise<Uint8Array> {
	const places = [path.join(__dirname, name)];
	try {
		places.push(path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm')), name));
	} catch {
		// Not installed as a package (the bundled extension): the copy next to the bundle is the one.
	}
	let lastError: unknown;
	for (const place of places) {
		try {
			return await readFile(place);
		} catch (error) {
			lastError = error;
		}
	}
	throw lastError instanceof Error ? lastError : new Error(`${name} not found`);
}

async function load(): Promise<boolean> {
	try {
		const [runtime, grammar] = await Promise.all(BASH_WASM_FILES.map(readWasm));
		// The runtime's own .wasm is handed over as bytes, so it is never looked for on disk or fetched.
		const options = { locateFile: (file: string) => file, wasmBinary: runtime };
		await Parser.init(options);
		const bash = await Language.load(grammar);
		const ready = new Parser();
		ready.setLanguage(bash);
		parser = ready;
		return true;
	} catch (error) {
		failure = error instanceof Error ? error.message : String(error);
		return false;
	}
}

/** Loads the bash parser once; true when it is ready. Never throws. */
export function loadBashParser(): Promise<boolean> {
	loading ??= load();
	return loading;
}

/** The loaded parser, or undefined before {@link loadBashParser} has finished (or when it failed). */
export function bashParser(): Parser | undefined {
	return parser;
}

/** Why the parser could not load, if it could not. */
export function bashParserFailure(): string | undefined {
	return failure;
}
