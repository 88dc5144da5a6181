// The details probe's sample: concrete lines of a recorded session an agent may need again. Every
// DETAIL_EVERY-th round (the 4th, 8th, …) gives one detail, the kind taking turns: a line of a
// tool result, a line of the agent's text, a line of an error (a result line that says error,
// exception, traceback or failed). A round without a line of its kind gives one of the other
// kinds. A line qualifies when it is distinctive (in the session once, compared with whitespace
// runs as one space and without a leading line number, so a code line shown by two reads is not), 20 to
// 150 characters long (recall shows a matching line whole up to 160) and has a word of four
// letters or more; the middle one of a round's qualifying lines is taken. Deterministic: the same
// session gives the same sample.
//
// Each detail carries what a recall query could be made of (recallCheck.ts decides which of them
// the request's prompt shows): the file its call read or changed, the call's command (its first
// line), and the line's key terms (keyTerms, also what a summary must state to hold it). It also
// keeps the old rule's queries (`lineQueries`, reported beside the new rule for one release): the
// path, the command, and the line's rarest word or phrase in the session, which an agent that
// cannot see the line would not know.
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { callFacts, shellLine } from './factOracle';

export const DETAIL_EVERY = 4;
const MIN_CHARS = 20;
const MAX_CHARS = 150;
const KINDS = ['result', 'response', 'error'] as const;
export type DetailKind = (typeof KINDS)[number];

export interface Detail {
	readonly roundId: string;
	readonly kind: DetailKind;
	/** The line, trimmed. */
	readonly line: string;
	/** The old rule's recall queries (`query` text), in the order tried: path, command, the line's rarest word or phrase. */
	readonly lineQueries: readonly string[];
	/** The file the detail's call read or changed, and its command's first line (when the detail is a tool result's). */
	readonly path?: string;
	readonly command?: string;
	/** The line's key terms (keyTerms). */
	readonly terms: readonly string[];
}

const ERROR_LINE = /error|exception|traceback|failed/i;
const WORD = /[A-Za-z_][A-Za-z0-9_]{3,}/g;

/** Every text of the session, for counting lines and words. */
function sessionTexts(conversation: Conversation): string[] {
	const texts: string[] = [];
	for (const turn of conversation.turns) {
		texts.push(turn.user);
		for (const round of turn.rounds) texts.push(round.response, ...round.toolCalls.flatMap(c => [c.arguments, c.result ?? '']));
	}
	return texts;
}

function counts(texts: readonly string[], split: (text: string) => readonly string[]): Map<string, number> {
	const map = new Map<string, number>();
	for (const text of texts) for (const piece of split(text)) map.set(piece, (map.get(piece) ?? 0) + 1);
	return map;
}

/** A line as compared for distinctiveness: whitespace runs as one space, without a leading line number (`898:`, `898-`, `  898\t`). */
const lineKey = (line: string) =>
	line
		.replace(/^\s*\d+[:\t-]/, '')
		.replace(/\s+/g, ' ')
		.trim();
const lines = (text: string) => text.split('\n').map(lineKey);
const words = (text: string) => (text.toLowerCase().match(WORD) ?? []) as string[];

/** A line that could be a detail by its shape: 20 to 150 characters with a word of four letters. */
export function candidateLine(line: string): boolean {
	return line.length <= MAX_CHARS && line.trim().length >= MIN_CHARS && /[A-Za-z]{4}/.test(line);
}

const KEY_TERMS = 3;

/**
 * The terms that carry a line: its three longest distinct words of four characters or more
 * (lower case, the first among equals). A summary holds the line when one of its lines states them all.
 */
export function keyTerms(line: string): string[] {
	return [...new Set(words(line))]
		.map((w, i) => ({ w, i }))
		.sort((a, b) => b.w.length - a.w.length || a.i - b.i)
		.slice(0, KEY_TERMS)
		.map(x => x.w);
}

/** The candidate lines of one kind in a round (raw lines, so the length limit is the shown one). */
function candidates(round: Round, kind: DetailKind, lineCounts: ReadonlyMap<string, number>): { line: string; call?: number }[] {
	const raw: { line: string; call?: number }[] =
		kind === 'response'
			? round.response.split('\n').map(line => ({ line }))
			: round.toolCalls.flatMap((c, call) => (c.result ?? '').split('\n').map(line => ({ line, call })));
	return raw
		.filter(({ line }) => candidateLine(line))
		.filter(({ line }) => (kind === 'error') === ERROR_LINE.test(line) || kind === 'response')
		.filter(({ line }) => lineCounts.get(lineKey(line)) === 1)
		.map(({ line, call }) => ({ line: line.trim(), ...(call !== undefined ? { call } : {}) }));
}

/** The line's rarest word in the session (the longest among equals). */
function rarestWord(line: string, wordCounts: ReadonlyMap<string, number>): string | undefined {
	const ranked = [...new Set(words(line))].sort((a, b) => (wordCounts.get(a) ?? 0) - (wordCounts.get(b) ?? 0) || b.length - a.length);
	return ranked[0];
}

const MAX_PHRASE_WORDS = 6;

/** How often `needle` is in `text`, counted up to `cap`. */
function occurrences(text: string, needle: string, cap: number): number {
	let n = 0;
	for (let at = text.indexOf(needle); at !== -1 && n < cap; at = text.indexOf(needle, at + 1)) n++;
	return n;
}

/** The run of the line's words (two to six, eight characters or more) found least often in the session (`lower`: its text in lower case); the shortest and first among equals. */
function rarestPhrase(line: string, lower: string): { phrase: string; count: number } | undefined {
	const tokens = line.split(/\s+/).filter(Boolean);
	let best: { phrase: string; count: number } | undefined;
	for (let size = 2; size <= Math.min(MAX_PHRASE_WORDS, tokens.length); size++) {
		for (let at = 0; at + size <= tokens.length; at++) {
			const phrase = tokens.slice(at, at + size).join(' ');
			if (phrase.length < 8) continue;
			const count = occurrences(lower, phrase.toLowerCase(), best?.count ?? Number.MAX_SAFE_INTEGER);
			if (count > 0 && (!best || count < best.count)) best = { phrase, count };
		}
	}
	return best;
}

/** A word or phrase of the line an agent could remember: its rarest word when that is in the session once, else the rarer of its rarest phrase and that word. */
function rememberedText(line: string, wordCounts: ReadonlyMap<string, number>, lower: string): string | undefined {
	const word = rarestWord(line, wordCounts);
	const wordCount = word === undefined ? Number.MAX_SAFE_INTEGER : (wordCounts.get(word) ?? 0);
	if (wordCount === 1) return word;
	const phrase = rarestPhrase(line, lower);
	return phrase && phrase.count < wordCount ? phrase.phrase : word;
}

/** The path and command first line of the detail's call (a tool result's detail only). */
function callKeys(round: Round, call: number | undefined): { path?: string; command?: string } {
	if (call === undefined) return {};
	const facts = callFacts(round.toolCalls[call]);
	const path = facts.changes[0] ?? facts.reads[0];
	const command = shellLine(round.toolCalls[call])?.split('\n')[0].trim().slice(0, 1000);
	return { ...(path ? { path } : {}), ...(command ? { command } : {}) };
}

function lineQueries(keys: { path?: string; command?: string }, word: string | undefined): string[] {
	return [...new Set([keys.path, keys.command, word].filter((q): q is string => q !== undefined && q !== ''))];
}

export function sampleDetails(conversation: Conversation, every = DETAIL_EVERY): Detail[] {
	const texts = sessionTexts(conversation);
	const lineCounts = counts(texts, lines);
	const wordCounts = counts(texts, words);
	const lower = texts.join('\n').toLowerCase();
	const rounds = conversation.turns.flatMap(t => t.rounds);
	const details: Detail[] = [];
	for (let i = every - 1; i < rounds.length; i += every) {
		const first = Math.floor(i / every) % KINDS.length;
		const order = KINDS.map((_, k) => KINDS[(first + k) % KINDS.length]);
		for (const kind of order) {
			const found = candidates(rounds[i], kind, lineCounts);
			if (!found.length) continue;
			const pick = found[Math.floor(found.length / 2)];
			const keys = callKeys(rounds[i], pick.call);
			details.push({
				roundId: rounds[i].id,
				kind,
				line: pick.line,
				lineQueries: lineQueries(keys, rememberedText(pick.line, wordCounts, lower)),
				...keys,
				terms: keyTerms(pick.line),
			});
			break;
		}
	}
	return details;
}
