// The search behind longhaul_recall: the lines of the summarized rounds that match a text (case-
// insensitive) or a regular expression, with the call and line each is in. Regular expressions
// run on RE2 (the re2js package, as longhaul_searchText does): matching takes time linear in the
// text, and lookaround and backreferences, which need backtracking, are refused with a clear
// message. Linear is still long for a large pattern over a long line (`[\s\S]{1000}x` over
// 100,000 characters is seconds in one call), so in the extension the search runs in a worker
// thread that is stopped at the time limit (src/tools/recallWorker.ts); here it is a generator
// that yields between rounds, so whoever drives it can pause, cancel, or report progress.
import { standsFor } from '../ledger/standInCalls';
import { RE2JS } from 're2js';
import type { Round } from '../conversation/conversation';
import { DEFAULT_RESULTS, type RecallInput } from './recallInput';
import type { SummarizedRound } from './summarizedRounds';

/** Everything one search needs, plain data (it is posted to a worker). */
export interface SearchJob {
	readonly rounds: readonly SummarizedRound[];
	readonly input: RecallInput;
	/** Characters the search may look at in all. */
	readonly stepLimit: number;
	readonly timeLimitMs: number;
}

export interface SearchOutcome {
	/** One line per hit: `#N (request R) <where>, line L: <snippet>` or, without a query, a call or round. */
	readonly hits: readonly string[];
	/** More hits were found than asked for. */
	readonly more: boolean;
	/** Why the search ended before the last round, when it did. */
	readonly stopped?: string;
	/** The query cannot be used (a message for the model); nothing was searched. */
	readonly error?: string;
}

/** Where a search is: the round it is about to search, and the hits so far (a live view). */
export interface SearchProgress {
	readonly round: number;
	readonly hits: readonly string[];
}

/** Characters of a matching line shown around the match. */
const SNIPPET_CHARS = 160;

interface Matcher {
	/** Where the first match in a line is, undefined when none. */
	find(line: string): { start: number; end: number } | undefined;
}

/** How the query is named in the answer: `/re/` or `"text"`. */
export function describeQuery(input: RecallInput): string | undefined {
	if (input.query === undefined) return undefined;
	return input.isRegexp ? `/${input.query}/` : JSON.stringify(input.query);
}

/** What RE2 cannot do, said plainly, or undefined. */
function unsupported(pattern: string): string | undefined {
	const plain = pattern.replace(/\\\\/g, '');
	const why = 'recall matches with RE2, in time linear in the text';
	if (/\\[1-9]|\\k</.test(plain)) return `backreferences (\\1, \\k<name>) are not supported: ${why}`;
	if (/\(\?<?[=!]/.test(plain)) return `lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported: ${why}`;
	return undefined;
}

/** The query as a line matcher, an error for the model, or undefined without a query. */
export function compileQuery(input: RecallInput): Matcher | { error: string } | undefined {
	if (input.query === undefined) return undefined;
	if (!input.isRegexp) {
		const needle = input.query.toLowerCase();
		return {
			find: line => {
				const at = line.toLowerCase().indexOf(needle);
				return at === -1 ? undefined : { start: at, end: at + needle.length };
			},
		};
	}
	const refused = unsupported(input.query);
	if (refused) return { error: `Cannot use the regular expression ${JSON.stringify(input.query)}: ${refused}.` };
	try {
		// JavaScript's \uHHHH is RE2's \x{HHHH}.
		const re = RE2JS.compile(input.query.replace(/(^|[^\\])((?:\\\\)*)\\u([0-9a-fA-F]{4})/g, '$1$2\\x{$3}'), RE2JS.CASE_INSENSITIVE);
		return {
			find: line => {
				const m = re.matcher(line);
				return m.find() ? { start: m.start(), end: m.end() } : undefined;
			},
		};
	} catch (error) {
		return { error: `Cannot use the regular expression ${JSON.stringify(input.query)}: ${(error as Error).message}.` };
	}
}

function oneLine(text: string, max: number): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

/** The parts of a round a search looks at, each with a label. */
function searchableParts(round: Round, input: RecallInput): { label: string; text: string }[] {
	const parts: { label: string; text: string }[] = [];
	const filtered = input.tool !== undefined || input.path !== undefined;
	if (!filtered) parts.push({ label: "agent's text", text: round.response });
	round.toolCalls.map(standsFor).forEach((call, i) => {
		if (input.tool !== undefined && !call.name.toLowerCase().includes(input.tool.toLowerCase())) return;
		if (input.path !== undefined && !call.arguments.toLowerCase().includes(input.path.toLowerCase().replace(/^\.\//, ''))) return;
		const name = `call ${i + 1} ${call.name} ${oneLine(call.arguments, 120)}`;
		parts.push({ label: `${name} · arguments`, text: call.arguments });
		parts.push({ label: `${name} · result`, text: call.result ?? '' });
	});
	return parts;
}

function snippet(line: string, match: { start: number; end: number }): string {
	if (line.length <= SNIPPET_CHARS) return line.trim();
	const from = Math.max(0, Math.min(match.start - 60, line.length - SNIPPET_CHARS));
	const to = Math.min(line.length, from + SNIPPET_CHARS);
	return `${from > 0 ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`;
}

/** A round's calls in one line (a hit of a search without a query). */
function roundOverview(entry: SummarizedRound): string {
	const calls = entry.round.toolCalls.map(standsFor).map(c => `${c.name} ${oneLine(c.arguments, 60)}`);
	return calls.length ? calls.join('; ') : `agent's text: ${oneLine(entry.round.response, 100)}`;
}

/**
 * The search, one round at a time: yields before each round (the driver may pause, stop or
 * report progress there), returns the outcome. `now` is a clock in ms; the time limit is
 * checked between rounds (inside one, the worker is stopped from outside), the work limit
 * (characters looked at) between lines.
 */
export function* searchSteps(job: SearchJob, now: () => number): Generator<SearchProgress, SearchOutcome, void> {
	const matcher = compileQuery(job.input);
	if (matcher && 'error' in matcher) return { hits: [], more: false, error: matcher.error };
	const filtered = job.input.tool !== undefined || job.input.path !== undefined;
	const maxResults = job.input.maxResults ?? DEFAULT_RESULTS;
	const hits: string[] = [];
	let budget = job.stepLimit;
	const started = now();
	const outcome = (stopped?: string, more = false): SearchOutcome => ({ hits, more, ...(stopped ? { stopped } : {}) });
	for (const entry of job.rounds) {
		yield { round: entry.number, hits };
		if (now() - started > job.timeLimitMs) return outcome(`the time limit (${job.timeLimitMs} ms) was reached at round #${entry.number}`);
		if (budget <= 0) return outcome(`the work limit was reached at round #${entry.number}`);
		for (const part of searchableParts(entry.round, job.input)) {
			if (!matcher) {
				// No query: one hit per matching call (its arguments part), or per round when unfiltered.
				if (filtered ? !part.label.endsWith('· arguments') : part.label !== "agent's text") continue;
				if (hits.length >= maxResults) return outcome(undefined, true);
				hits.push(`#${entry.number} (request ${entry.request}) ${filtered ? part.label.replace(/ · arguments$/, '') : roundOverview(entry)}`);
				continue;
			}
			const lines = part.text.split('\n');
			for (let n = 0; n < lines.length; n++) {
				if (budget <= 0) return outcome(`the work limit was reached in round #${entry.number}`);
				budget -= lines[n].length + 1;
				const match = matcher.find(lines[n]);
				if (!match) continue;
				if (hits.length >= maxResults) return outcome(undefined, true);
				hits.push(`#${entry.number} (request ${entry.request}) ${part.label}, line ${n + 1}: ${snippet(lines[n], match)}`);
			}
		}
	}
	return outcome();
}
