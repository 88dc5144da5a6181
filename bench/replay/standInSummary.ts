// The summarizer's stand-in, shared by the benchmark and the test model's replay mode
// (test/fixtures/scripted-model/src/replayMode.ts). It writes the way a real model does, not the
// way Longhaul would like: the length follows what the prompt asks for, never the cap Longhaul
// checks afterwards (it is not told the cap, and neither is a real model).
//
// Length rule (one rule for every strategy and mode):
//  - the prompt states a target ("must stay under N tokens", src/prompts/summarizerInstructions.ts):
//    the summary is N × f tokens (o200k_base), with f between 0.75 and 1.25 drawn from a hash of
//    what it summarizes, so a quarter of the summaries overshoot the target by 12.5–25 %;
//  - the prompt states none: DEFAULT_LENGTH_TOKENS × f (about 3,500 tokens), like a model asked for
//    eight detailed sections with key code;
//  - a condense request (the summary alone, with a target): the same rule applied to that summary,
//    never longer than it was.
// Content: the previous summary (absorbed whole), then per absorbed entry `user: <first line>` or
// `- <first line of the response>` and `  <tool>: <first line of the arguments>`, with more
// detail (result lines, more response lines) until the length is reached. When even the most
// detailed text is shorter, recap lines repeat the plain ones (a model asked for more words than
// there is to say pads); when longer, the first 30 % and last 70 % of the tokens stay around a
// marker, so the newest work keeps the most room.
import type { SummarizerEntry } from '../../src/common/summaries/summarizerInput';
import type { TextTokenizer } from '../../src/common/tokens/tokenizer';

export const LINE_MAX_CHARS = 160;
/** The summary's length when the prompt asks for none. */
export const DEFAULT_LENGTH_TOKENS = 3_500;
/** f ∈ [1 − LENGTH_SPREAD, 1 + LENGTH_SPREAD]. */
export const LENGTH_SPREAD = 0.25;
const HEAD_SHARE = 0.3;
/** Result lines per call at each detail level (level 0 shows none). */
const RESULT_LINES = [0, 1, 8, Number.POSITIVE_INFINITY];
const RESPONSE_LINES = [1, 3, 10, Number.POSITIVE_INFINITY];

/** The target a prompt states ("must stay under N tokens"), or undefined when it states none. */
export function statedTarget(promptText: string): number | undefined {
	const m = /must stay under (\d[\d,]*) tokens/i.exec(promptText);
	if (!m) return undefined;
	const n = Number(m[1].replace(/,/g, ''));
	return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** FNV-1a, 32 bits: a stable hash for the length factor. */
function hash(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}

/** f for a text: uniform in [1 − LENGTH_SPREAD, 1 + LENGTH_SPREAD], the same for the same text. */
export function lengthFactor(seed: string): number {
	return 1 - LENGTH_SPREAD + (2 * LENGTH_SPREAD * hash(seed)) / 0x1_0000_0000;
}

/** Tokens the stand-in writes for a target (undefined: none stated) and a seed. */
export function standInLength(target: number | undefined, seed: string): number {
	return Math.max(1, Math.round((target ?? DEFAULT_LENGTH_TOKENS) * lengthFactor(seed)));
}

function lines(text: string, max: number): string[] {
	const all = text
		.split('\n')
		.map(l => l.trim())
		.filter(l => l !== '');
	return all.slice(0, max).map(l => (l.length > LINE_MAX_CHARS ? l.slice(0, LINE_MAX_CHARS - 1) + '…' : l));
}

/** The summary material at one level of detail. */
function material(entries: readonly SummarizerEntry[], previousSummary: string | undefined, level: number): string[] {
	const out: string[] = [];
	if (previousSummary?.trim()) out.push(previousSummary.trim());
	for (const entry of entries) {
		if (entry.kind === 'user') {
			out.push(`user: ${lines(entry.text, 1)[0] ?? ''}`);
			continue;
		}
		const [first, ...more] = lines(entry.round.response, RESPONSE_LINES[level]);
		out.push(`- ${first ?? '(no text)'}`, ...more.map(l => `  ${l}`));
		for (const call of entry.round.toolCalls) {
			out.push(`  ${call.name}: ${lines(call.arguments, 1)[0] ?? ''}`);
			if (RESULT_LINES[level] > 0 && call.result !== undefined) out.push(...lines(call.result, RESULT_LINES[level]).map(l => `    > ${l}`));
		}
	}
	return out;
}

/** The stand-in summary of `entries` absorbing `previousSummary`, `length` tokens long (standInLength). */
export function standInSummary(entries: readonly SummarizerEntry[], previousSummary: string | undefined, length: number, tokenizer: TextTokenizer): string {
	let text = '';
	for (let level = 0; level < RESULT_LINES.length; level++) {
		text = material(entries, previousSummary, level).join('\n');
		if (tokenizer.countTokens(text) >= length) return cutToLength(text, length, tokenizer);
	}
	const recap = material(entries, undefined, 0);
	const padded = [text];
	let tokens = tokenizer.countTokens(text);
	for (let i = 0; tokens < length && recap.length; i++) {
		const line = `recap: ${recap[i % recap.length].trim()}`;
		padded.push(line);
		tokens += tokenizer.countTokens(line) + 1;
	}
	return cutToLength(padded.join('\n'), length, tokenizer);
}

/** The stand-in's answer to a condense request: the summary at the length the request asks for, never longer than it was. */
export function standInCondense(summary: string, length: number, tokenizer: TextTokenizer): string {
	return cutToLength(summary, length, tokenizer);
}

/**
 * `text` at most `maxTokens` long: its first 30 % and last 70 % of tokens around a marker when it is
 * longer. The stand-in model's own way of writing shorter (token-exact, since its length is in
 * tokens); Longhaul's cutter is src/common/shrinking/cutText.ts.
 */
export function cutToLength(text: string, maxTokens: number, tokenizer: TextTokenizer): string {
	const tokens = tokenizer.encode(text);
	if (tokens.length <= maxTokens) {
		return text;
	}
	const marker = (n: number) => `\n[... ${n} tokens left out ...]\n`;
	const keep = Math.max(0, maxTokens - tokenizer.countTokens(marker(tokens.length - maxTokens)));
	const head = Math.floor(keep * HEAD_SHARE);
	const tail = keep - head;
	const headText = tokenizer.decode(tokens.slice(0, head)).replace(/\uFFFD+$/, '');
	const tailText = tokenizer.decode(tokens.slice(tokens.length - tail)).replace(/^\uFFFD+/, '');
	return `${headText}${marker(tokens.length - head - tail)}${tailText}`;
}

/** The transcript and previous summary of a summarizer prompt: what a summary's length factor is drawn from. */
export function summarySeed(promptText: string): string {
	const previous = /<previous-summary>[\s\S]*?<\/previous-summary>/.exec(promptText)?.[0] ?? '';
	const open = promptText.indexOf('<conversation-transcript>');
	const close = promptText.lastIndexOf('</conversation-transcript>');
	return previous + (open >= 0 && close > open ? promptText.slice(open, close) : promptText);
}
