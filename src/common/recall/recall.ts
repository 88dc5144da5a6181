// Recall: what the agent can get back from the rounds a summary replaced. Searching them (text or
// a regular expression, by tool name, by file path) and reading one round's calls and results
// word for word, from the stored conversation only, within a token cap. A search stops at a time
// limit and a work limit and says where it stopped; a regular expression runs on a linear-time
// engine (linearRegex.ts), and the search pauses regularly so the extension host stays responsive.
import type { Conversation, Round } from '../conversation/conversation';
import { standsFor } from '../ledger/standInCalls';
import { compileLinear, PatternError, type StepBudget } from './linearRegex';
import { DEFAULT_RESULTS, RECALL_TOOL_NAME, type RecallInput } from './recallInput';
import { recallableRounds, type RecallableRounds, type SummarizedRound } from './summarizedRounds';

export interface RecallOptions {
	/** The answer's cap in tokens. */
	readonly maxTokens: number;
	readonly countTokens: (text: string) => number;
	/** The request in progress (its rounds are the active ones). */
	readonly currentRequest?: string;
	/** Clock in ms, and how long a search may take. */
	readonly now: () => number;
	readonly timeLimitMs: number;
	/** Regular-expression work allowed per search (states advanced over characters). */
	readonly stepLimit?: number;
	/** Called every {@link PAUSE_EVERY_MS} of searching; resolve on the next turn of the event loop. */
	readonly pause?: () => Promise<void>;
	readonly isCancelled?: () => boolean;
}

export const DEFAULT_STEP_LIMIT = 50_000_000;
export const PAUSE_EVERY_MS = 10;
/** Characters of a matching line shown around the match. */
const SNIPPET_CHARS = 160;

export async function recall(conversation: Conversation, input: RecallInput, options: RecallOptions): Promise<string> {
	const rounds = recallableRounds(conversation, options.currentRequest);
	if (!rounds.summarized.length) {
		return 'Nothing in this conversation has been summarized yet: every round is still in the conversation above, word for word.';
	}
	return input.round !== undefined ? readRound(rounds, input.round, input.offset ?? 0, options) : search(rounds, input, options);
}

// ---- reading one round ----

/** A round as recall shows it: the agent's text, then each call with its arguments and its result, word for word. */
export function roundRecord(round: Round): string {
	const parts = [`Agent's text: ${round.response.trim() === '' ? '(none)' : round.response}`];
	round.toolCalls.map(standsFor).forEach((call, i) => {
		parts.push(`--- call ${i + 1} of ${round.toolCalls.length}: ${call.name} ${call.arguments}`);
		parts.push(call.result === undefined ? '(no result: the call was interrupted before it finished)' : call.result);
	});
	return parts.join('\n');
}

function readRound(rounds: RecallableRounds, number: number, offset: number, options: RecallOptions): string {
	const found = rounds.summarized.find(r => r.number === number);
	const last = rounds.summarized[rounds.summarized.length - 1].number;
	if (!found) {
		return number <= rounds.total
			? `Round #${number} is not summarized: it is in the conversation above, word for word. Summarized rounds: #1–#${last}.`
			: `There is no round #${number}. Summarized rounds: #1–#${last}.`;
	}
	const record = roundRecord(found.round);
	if (offset >= record.length) return `Round #${number} has ${record.length} characters; offset ${offset} is past its end.`;
	const head = `Round #${number} (request ${found.request}${requestPreview(rounds, found.request)}), summarized; word for word from the stored conversation${offset ? `, from character ${offset}` : ''}:\n`;
	const body = record.slice(offset);
	const room = options.maxTokens - options.countTokens(head) - 40;
	const fits = longestFitting(body, Math.max(0, room), options.countTokens);
	if (fits === body.length) return head + body;
	const next = offset + fits;
	return `${head}${body.slice(0, fits)}\n[... ${record.length - next} more characters of round #${number}; read on with ${JSON.stringify({ round: number, offset: next })}]`;
}

function requestPreview(rounds: RecallableRounds, request: number): string {
	const text = rounds.requests[request - 1];
	if (text === undefined) return '';
	const flat = text.replace(/\s+/g, ' ').trim();
	return `: "${flat.length > 60 ? flat.slice(0, 59) + '…' : flat}"`;
}

/** The longest prefix of `text` (in characters) within `maxTokens`, by binary search on the length. */
function longestFitting(text: string, maxTokens: number, countTokens: (t: string) => number): number {
	if (countTokens(text) <= maxTokens) return text.length;
	let lo = 0;
	let hi = text.length;
	while (lo < hi) {
		const mid = Math.ceil((lo + hi) / 2);
		if (countTokens(text.slice(0, mid)) <= maxTokens) lo = mid;
		else hi = mid - 1;
	}
	return lo;
}

// ---- searching ----

interface Matcher {
	readonly describe: string;
	/** Where the first match in a line is, undefined when none. */
	find(line: string): { start: number; end: number } | undefined;
}

function matcherFor(input: RecallInput, budget: StepBudget): Matcher | { error: string } | undefined {
	if (input.query === undefined) return undefined;
	if (input.isRegexp) {
		try {
			const regex = compileLinear(input.query);
			return { describe: `/${input.query}/`, find: line => regex.find(line, budget) };
		} catch (error) {
			if (error instanceof PatternError) return { error: `Cannot use the regular expression ${JSON.stringify(input.query)}: ${error.message}.` };
			throw error;
		}
	}
	const needle = input.query.toLowerCase();
	return {
		describe: JSON.stringify(input.query),
		find: line => {
			budget.remaining -= line.length;
			const at = line.toLowerCase().indexOf(needle);
			return at === -1 ? undefined : { start: at, end: at + needle.length };
		},
	};
}

/** The parts of a round a search looks at, each as lines with a label. */
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

function oneLine(text: string, max: number): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

function snippet(line: string, match: { start: number; end: number }): string {
	if (line.length <= SNIPPET_CHARS) return line.trim();
	const from = Math.max(0, Math.min(match.start - 60, line.length - SNIPPET_CHARS));
	const to = Math.min(line.length, from + SNIPPET_CHARS);
	return `${from > 0 ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`;
}

async function search(rounds: RecallableRounds, input: RecallInput, options: RecallOptions): Promise<string> {
	const budget: StepBudget = { remaining: options.stepLimit ?? DEFAULT_STEP_LIMIT };
	const matcher = matcherFor(input, budget);
	if (matcher && 'error' in matcher) return matcher.error;
	const maxResults = input.maxResults ?? DEFAULT_RESULTS;
	const filters = [input.tool !== undefined ? `tool ${JSON.stringify(input.tool)}` : '', input.path !== undefined ? `path ${JSON.stringify(input.path)}` : '']
		.filter(Boolean)
		.join(', ');
	const first = rounds.summarized[0].number;
	const last = rounds.summarized[rounds.summarized.length - 1].number;
	const hits: string[] = [];
	let more = false;
	let stopped: string | undefined;
	const started = options.now();
	let lastPause = started;

	search: for (const entry of rounds.summarized) {
		if (options.isCancelled?.()) return 'The search was cancelled.';
		const now = options.now();
		if (now - started > options.timeLimitMs) {
			stopped = `the time limit (${options.timeLimitMs} ms) was reached at round #${entry.number}`;
			break;
		}
		if (budget.remaining <= 0) {
			stopped = `the work limit was reached at round #${entry.number}`;
			break;
		}
		if (options.pause && now - lastPause >= PAUSE_EVERY_MS) {
			await options.pause();
			lastPause = options.now();
		}
		for (const part of searchableParts(entry.round, input)) {
			if (!matcher) {
				// No query: one hit per matching call (its arguments part), or per round when unfiltered.
				if (filters ? part.label.endsWith('· arguments') : part.label === "agent's text") {
					if (hits.length >= maxResults) {
						more = true;
						break search;
					}
					hits.push(`#${entry.number} (request ${entry.request}) ${filters ? part.label.replace(/ · arguments$/, '') : roundOverview(entry)}`);
				}
				continue;
			}
			const lines = part.text.split('\n');
			for (let n = 0; n < lines.length; n++) {
				const match = matcher.find(lines[n]);
				if (budget.remaining <= 0 && !match) {
					stopped = `the work limit was reached in round #${entry.number}`;
					break search;
				}
				if (!match) continue;
				if (hits.length >= maxResults) {
					more = true;
					break search;
				}
				hits.push(`#${entry.number} (request ${entry.request}) ${part.label}, line ${n + 1}: ${snippet(lines[n], match)}`);
			}
		}
	}

	const what = matcher
		? `matches for ${matcher.describe}${filters ? ` in calls with ${filters}` : ''}`
		: filters
			? `calls with ${filters}`
			: 'summarized rounds';
	const header = `Searched summarized rounds #${first}–#${last} (of ${rounds.total}). ${hits.length ? `${hits.length}${more ? '+' : ''} ${what}:` : `No ${what}.`}`;
	const footer = [
		more ? `[more ${what} left out: narrow the search or raise maxResults]` : '',
		stopped ? `[the search stopped early: ${stopped}; narrow it with "tool", "path" or a simpler pattern]` : '',
		hits.length ? `Read a round word for word with ${RECALL_TOOL_NAME} {"round": N}.` : '',
	].filter(Boolean);
	return capLines(header, hits, footer, options);
}

function roundOverview(entry: SummarizedRound): string {
	const calls = entry.round.toolCalls.map(standsFor).map(c => `${c.name} ${oneLine(c.arguments, 60)}`);
	return calls.length ? calls.join('; ') : `agent's text: ${oneLine(entry.round.response, 100)}`;
}

/** Header, as many lines as fit within the cap, footer. */
function capLines(header: string, lines: readonly string[], footer: readonly string[], options: RecallOptions): string {
	let used = options.countTokens(header) + footer.reduce((s, f) => s + options.countTokens(f) + 1, 0) + 30;
	const kept: string[] = [];
	for (const line of lines) {
		const cost = options.countTokens(line) + 1;
		if (used + cost > options.maxTokens) break;
		used += cost;
		kept.push(line);
	}
	const cut = lines.length - kept.length;
	return [header, ...kept, ...(cut ? [`[${cut} more hits left out to stay within ${options.maxTokens} tokens: narrow the search]`] : []), ...footer].join('\n');
}
