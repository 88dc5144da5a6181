// Recall: what the agent can get back from the rounds a summary replaced. Searching them (text or
// a regular expression, by tool name, by file path) and reading one round's calls and results
// word for word, from the stored conversation only, within a token cap. A search stops at a time
// limit and a work limit and says where it stopped; a regular expression runs on RE2
// (recallSearch.ts). The extension runs the search in a worker thread it stops at the time limit
// (`runSearch`); without one it runs here, pausing between rounds.
import { standsFor } from '../ledger/standInCalls';
import type { Conversation, Round } from '../conversation/conversation';
import { RECALL_TOOL_NAME, type RecallInput } from './recallInput';
import { describeQuery, searchSteps, type SearchJob, type SearchOutcome } from './recallSearch';
import { recallableRounds, type RecallableRounds } from './summarizedRounds';

export interface RecallOptions {
	/** The answer's cap in tokens. */
	readonly maxTokens: number;
	readonly countTokens: (text: string) => number;
	/** The request in progress (its rounds are the active ones). */
	readonly currentRequest?: string;
	/** The request's rounds as recorded, by id, before masking or elision changed them in the conversation. */
	readonly recorded?: ReadonlyMap<string, Round>;
	/** Clock in ms, and how long a search may take. */
	readonly now: () => number;
	readonly timeLimitMs: number;
	/** Regular-expression work allowed per search (states advanced over characters). */
	readonly stepLimit?: number;
	/** Called every {@link PAUSE_EVERY_MS} of searching; resolve on the next turn of the event loop. */
	readonly pause?: () => Promise<void>;
	readonly isCancelled?: () => boolean;
	/**
	 * Runs a search somewhere else (the extension: a worker thread stopped at the time limit);
	 * undefined when it was cancelled. Without it the search runs on this thread.
	 */
	readonly runSearch?: (job: SearchJob) => Promise<SearchOutcome | undefined>;
}

export const DEFAULT_STEP_LIMIT = 50_000_000;
/** The share of the message budget a recall answer may take. */
export const RECALL_SHARE = 0.15;

/** The answer's cap in tokens for a prompt of `messageBudget` tokens (longhaul_recall in the agent, and the benchmark's details probe). */
export function recallAnswerTokens(messageBudget: number): number {
	return Math.max(400, Math.floor(messageBudget * RECALL_SHARE));
}
export const PAUSE_EVERY_MS = 10;

export async function recall(conversation: Conversation, input: RecallInput, options: RecallOptions): Promise<string> {
	const rounds = recallableRounds(conversation, options.currentRequest, options.recorded);
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

/** The search on this thread: pauses every {@link PAUSE_EVERY_MS} between rounds; undefined when cancelled. */
export async function searchHere(job: SearchJob, options: Pick<RecallOptions, 'now' | 'pause' | 'isCancelled'>): Promise<SearchOutcome | undefined> {
	const steps = searchSteps(job, options.now);
	let lastPause = options.now();
	for (let step = steps.next(); ; step = steps.next()) {
		if (step.done) return step.value;
		if (options.isCancelled?.()) return undefined;
		if (options.pause && options.now() - lastPause >= PAUSE_EVERY_MS) {
			await options.pause();
			lastPause = options.now();
		}
	}
}

async function search(rounds: RecallableRounds, input: RecallInput, options: RecallOptions): Promise<string> {
	const job: SearchJob = { rounds: rounds.summarized, input, stepLimit: options.stepLimit ?? DEFAULT_STEP_LIMIT, timeLimitMs: options.timeLimitMs };
	const result = options.runSearch ? await options.runSearch(job) : await searchHere(job, options);
	if (!result || options.isCancelled?.()) return 'The search was cancelled.';
	if (result.error) return result.error;
	const filters = [input.tool !== undefined ? `tool ${JSON.stringify(input.tool)}` : '', input.path !== undefined ? `path ${JSON.stringify(input.path)}` : '']
		.filter(Boolean)
		.join(', ');
	const first = rounds.summarized[0].number;
	const last = rounds.summarized[rounds.summarized.length - 1].number;
	const { hits, more, stopped } = result;
	const query = describeQuery(input);
	const what = query ? `matches for ${query}${filters ? ` in calls with ${filters}` : ''}` : filters ? `calls with ${filters}` : 'summarized rounds';
	const header = `Searched summarized rounds #${first}–#${last} (of ${rounds.total}). ${hits.length ? `${hits.length}${more ? '+' : ''} ${what}:` : `No ${what}.`}`;
	const footer = [
		more ? `[more ${what} left out: narrow the search or raise maxResults]` : '',
		stopped ? `[the search stopped early: ${stopped}; narrow it with "tool", "path" or a simpler pattern]` : '',
		hits.length ? `Read a round word for word with ${RECALL_TOOL_NAME} {"round": N}.` : '',
	].filter(Boolean);
	return capLines(header, hits, footer, options);
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
