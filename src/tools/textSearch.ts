// The text search behind longhaul_searchText: no vscode import, unit-tested in Node.
//
// - Every file is read through the same guard as longhaul_readFile (safeFs.readInside): a link
//   that leads outside, a named pipe or a file with a second hard link is skipped and counted.
// - Regular expressions run on RE2 (the re2js package, a pure-JavaScript port bundled into the
//   extension): matching takes time linear in the text, so no pattern backtracks exponentially.
//   Lookaround and backreferences, which need backtracking, are refused with a clear message.
// - The whole search runs in a worker thread (searchWorker.ts) that is terminated when it runs over
//   its time limit or the user cancels: even linear matching of a large pattern over megabytes
//   never blocks the extension host, and a cancel takes effect at once.
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { readInside } from './safeFs';

export interface SearchRequest {
	readonly roots: readonly string[];
	/** Absolute paths of the candidate files, in the order to search them. */
	readonly files: readonly string[];
	readonly query: string;
	readonly isRegexp: boolean;
	/** Stop after this many matching lines (one more is looked for, to say there are more). */
	readonly maxHits: number;
	readonly maxFileBytes: number;
}

export interface SearchHit {
	/** The file as it was given in `files`. */
	readonly file: string;
	readonly line: number;
	readonly text: string;
}

export interface SearchResult {
	readonly hits: SearchHit[];
	readonly searched: number;
	/** Files the guard refused (outside through a link, not a regular file, hard links), by reason. */
	readonly refused: number;
	/** Files over maxFileBytes, not searched; `skippedNames` holds the first few of each kind. */
	readonly tooLarge: number;
	/** Files with a NUL byte (binary), not searched. */
	readonly binary: number;
	readonly skippedNames?: { readonly tooLarge: readonly string[]; readonly binary: readonly string[] };
	/** 'time' or 'cancel' when the search was stopped before the end; partial hits are kept. */
	readonly stopped?: 'time' | 'cancel';
	/** The query could not be used (bad syntax); nothing was searched. */
	readonly error?: string;
}

const MAX_LINE_CHARS = 300;
/** Skipped files named in a result, of each kind. */
const SKIPPED_NAMES = 5;

const EMPTY_RESULT: SearchResult = { hits: [], searched: 0, refused: 0, tooLarge: 0, binary: 0 };

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export type Matcher = { ok: true; test: (line: string) => boolean } | { ok: false; reason: string };

/** A line test for the query: RE2 for regular expressions, an escaped literal otherwise. */
export function compileQuery(query: unknown, isRegexp: boolean): Matcher {
	if (typeof query !== 'string' || query === '') return { ok: false, reason: 'query must be a non-empty string.' };
	if (!isRegexp) {
		// An escaped literal has nothing to backtrack over; V8 finds it in linear time.
		const literal = new RegExp(escapeRegExp(query), 'i');
		return { ok: true, test: line => literal.test(line) };
	}
	try {
		const re = RE2JS.compile(query, RE2JS.CASE_INSENSITIVE);
		return { ok: true, test: line => re.test(line) };
	} catch (error) {
		return {
			ok: false,
			reason: `Invalid regular expression ${JSON.stringify(query)}: ${(error as Error).message}. Longhaul matches with RE2 (linear time): no lookahead, lookbehind or backreferences.`,
		};
	}
}

/**
 * Searches `files` in order. `onHits` gets each file's matching lines as they are found;
 * `shouldStop` is asked between files.
 */
export async function searchFiles(
	request: SearchRequest,
	onHits?: (hits: SearchHit[]) => void,
	shouldStop?: () => 'time' | 'cancel' | undefined,
): Promise<SearchResult> {
	const matcher = compileQuery(request.query, request.isRegexp);
	if (!matcher.ok) return { ...EMPTY_RESULT, error: matcher.reason };
	const hits: SearchHit[] = [];
	let searched = 0;
	let refused = 0;
	const skipped = { tooLarge: [] as string[], binary: [] as string[] };
	const result = (stopped?: 'time' | 'cancel'): SearchResult => ({
		hits,
		searched,
		refused,
		tooLarge: skipped.tooLarge.length,
		binary: skipped.binary.length,
		skippedNames: { tooLarge: skipped.tooLarge.slice(0, SKIPPED_NAMES), binary: skipped.binary.slice(0, SKIPPED_NAMES) },
		...(stopped ? { stopped } : {}),
	});
	for (const file of request.files) {
		const stopped = shouldStop?.();
		if (stopped) return result(stopped);
		if (hits.length > request.maxHits) break;
		const read = await readInside(request.roots, file, request.maxFileBytes);
		if (!read.ok) {
			if (read.code === 'EFBIG') skipped.tooLarge.push(file);
			else if (read.code !== 'ENOENT') refused++;
			continue;
		}
		// Binary files are not searched: what matches in them is not a line of text.
		if (read.data.includes(0)) {
			skipped.binary.push(file);
			continue;
		}
		searched++;
		const lines = read.data.toString('utf8').split('\n');
		const found: SearchHit[] = [];
		for (let i = 0; i < lines.length && hits.length + found.length <= request.maxHits; i++) {
			if (matcher.test(lines[i])) found.push({ file, line: i + 1, text: lines[i].slice(0, MAX_LINE_CHARS) });
		}
		if (found.length > 0) {
			hits.push(...found);
			onHits?.(found);
		}
	}
	return result();
}

// The worker's code: in the bundle, esbuild.mjs defines this as the bundled searchWorker.ts, run
// with `eval` (the VSIX holds one file); unbundled (tests) the compiled file next to this one.
declare const LONGHAUL_SEARCH_WORKER_SOURCE: string | undefined;

function startWorker(request: SearchRequest): Worker {
	if (typeof LONGHAUL_SEARCH_WORKER_SOURCE === 'string') {
		return new Worker(LONGHAUL_SEARCH_WORKER_SOURCE, { eval: true, workerData: request });
	}
	return new Worker(path.join(__dirname, 'searchWorker.js'), { workerData: request });
}

export interface SearchLimits {
	readonly timeLimitMs: number;
	readonly signal?: AbortSignal;
}

/** Messages from searchWorker.ts. */
export type WorkerMessage = { type: 'hits'; hits: SearchHit[] } | { type: 'done'; result: SearchResult } | { type: 'error'; message: string };

/**
 * Runs `searchFiles` in a worker thread, terminated after `timeLimitMs` or on cancel (the hits
 * found so far are kept). Where no worker can start or run, searches on this thread, checking the
 * time and the cancel between files.
 */
export function searchInWorker(request: SearchRequest, limits: SearchLimits): Promise<SearchResult> {
	const started = Date.now();
	const stoppedBy = (): 'time' | 'cancel' | undefined => (limits.signal?.aborted ? 'cancel' : Date.now() - started > limits.timeLimitMs ? 'time' : undefined);
	let worker: Worker;
	try {
		worker = startWorker(request);
	} catch {
		return searchFiles(request, undefined, stoppedBy);
	}
	return new Promise(resolve => {
		const hits: SearchHit[] = [];
		let settled = false;
		const finish = (result: SearchResult) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			limits.signal?.removeEventListener('abort', onAbort);
			void worker.terminate();
			resolve(result);
		};
		const stop = (why: 'time' | 'cancel') => finish({ ...EMPTY_RESULT, hits, stopped: why });
		const onAbort = () => stop('cancel');
		const timer = setTimeout(() => stop('time'), limits.timeLimitMs);
		limits.signal?.addEventListener('abort', onAbort);
		if (limits.signal?.aborted) stop('cancel');
		let heard = false;
		worker.on('message', (message: WorkerMessage) => {
			heard = true;
			if (message.type === 'hits') hits.push(...message.hits);
			else if (message.type === 'done') finish(message.result);
			else finish({ ...EMPTY_RESULT, hits, error: message.message });
		});
		worker.on('error', error => {
			if (heard || settled) {
				finish({ ...EMPTY_RESULT, hits, error: `The search failed: ${error.message}` });
				return;
			}
			// The worker could not run at all here: search on this thread instead.
			settled = true;
			clearTimeout(timer);
			limits.signal?.removeEventListener('abort', onAbort);
			resolve(searchFiles(request, undefined, stoppedBy));
		});
		worker.on('exit', () => finish({ ...EMPTY_RESULT, hits, error: 'The search stopped unexpectedly.' }));
	});
}
