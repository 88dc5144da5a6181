// Local token counting with js-tiktoken (o200k_base), shaped as a prompt-tsx tokenizer.
// No `vscode` import: prompts render and are measured in plain Node (unit tests, CLI, bench).
//
// A session renders the same messages again and again (every round re-renders the whole
// history), so counts are cached per text: each text is tokenized once, later renders hit the
// cache. The cache is bounded (entries and characters) and evicts least recently used texts.
import type { ITokenizer, OutputMode, Raw } from '@vscode/prompt-tsx';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';

// prompt-tsx's enum values, spelled out so this file needs prompt-tsx only for types: its runtime
// pulls in a `require('vscode')` that breaks bundles without `vscode` external (the CLI).
const RAW_MODE = 1 as OutputMode.Raw;
const TEXT_PART = 1 as Raw.ChatCompletionContentPartKind.Text;
const OPAQUE_PART = 2 as Raw.ChatCompletionContentPartKind.Opaque;
const ASSISTANT_ROLE = 2 as Raw.ChatRole.Assistant;

/**
 * Framing tokens per message (role and separators), as in OpenAI's published rule for chat
 * models: every message costs 3 tokens beyond its content, plus 1 when it has a `name`
 * (https://cookbook.openai.com/examples/how_to_count_tokens_with_tiktoken; pinned in tokenizer.test.ts).
 */
export const MESSAGE_OVERHEAD_TOKENS = 3;
export const MESSAGE_NAME_TOKENS = 1;
/** Framing per tool call in an assistant message (id, type and the function wrapper). */
export const TOOL_CALL_OVERHEAD_TOKENS = 3;

export const DEFAULT_CACHE_MAX_ENTRIES = 200_000;
/** Texts longer than this are counted line by line (see countTokens). */
export const LINE_COUNTED_CHARS = 2_000;
/** Characters of cached texts kept alive by the cache (keys are usually shared with the conversation). */
export const DEFAULT_CACHE_MAX_CHARS = 32_000_000;

export interface TokenizerStats {
	/** Characters actually run through the BPE encoder (cache misses only). */
	readonly tokenizedChars: number;
	/** Tokens those characters produced. */
	readonly tokenizedTokens: number;
	readonly cacheHits: number;
	readonly cacheMisses: number;
}

/** Plain-text token operations: counting, and cutting text at token boundaries. */
export interface TextTokenizer {
	countTokens(text: string): number;
	encode(text: string): number[];
	decode(tokens: readonly number[]): string;
}

/** What the prompt renderers need: prompt-tsx's Raw-mode tokenizer plus the text operations. */
export type PromptTokenizer = ITokenizer<OutputMode.Raw> & TextTokenizer;

export interface TokenizerOptions {
	readonly maxEntries?: number;
	readonly maxChars?: number;
}

let encoder: Tiktoken | undefined;

/**
 * js-tiktoken merges the pairs of one pre-token in time that grows with the square of its length:
 * one minified line or base64 blob of 20,000 characters without a blank took 79 s, which would
 * freeze the extension host. Runs of non-blank characters longer than this are encoded in pieces of
 * this length; the count may differ by a token or two per piece from the exact one, only for such runs.
 */
export const MAX_RUN_CHARS = 256;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN_CHARS + 1},}`);

/** `text` cut so that no piece holds a run of more than MAX_RUN_CHARS non-blank characters (never inside a surrogate pair). */
export function boundedPieces(text: string): string[] {
	const pieces: string[] = [];
	let start = 0;
	for (const m of text.matchAll(new RegExp(`\\S{${MAX_RUN_CHARS + 1},}`, 'g'))) {
		const runEnd = m.index + m[0].length;
		let at = m.index;
		while (runEnd - at > MAX_RUN_CHARS) {
			let end = at + MAX_RUN_CHARS;
			const code = text.charCodeAt(end - 1);
			if (code >= 0xd800 && code <= 0xdbff) end--;
			pieces.push(text.slice(start, end));
			start = at = end;
		}
	}
	pieces.push(text.slice(start));
	return pieces;
}

/**
 * The o200k_base encoder, built on first use (building it takes about half a second) and
 * shared by every tokenizer. `require` because the rank file is only reachable through the
 * package's `exports` map, which the project's `moduleResolution: node` typecheck ignores.
 */
function sharedEncoder(): Tiktoken {
	if (!encoder) {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const loaded = require('js-tiktoken/ranks/o200k_base') as TiktokenBPE | { default: TiktokenBPE };
		encoder = new Tiktoken('default' in loaded ? loaded.default : loaded);
	}
	return encoder;
}

/**
 * Token counts for prompts (prompt-tsx `ITokenizer`, Raw mode) and for plain text.
 * Special-token strings such as `<|endoftext|>` in user text are counted as ordinary text.
 */
export class TiktokenTokenizer implements ITokenizer<OutputMode.Raw>, TextTokenizer {
	readonly mode = RAW_MODE;
	private readonly cache = new Map<string, number>();
	private cachedChars = 0;
	private tokenizedChars = 0;
	private tokenizedTokens = 0;
	private cacheHits = 0;
	private cacheMisses = 0;
	private readonly maxEntries: number;
	private readonly maxChars: number;

	constructor(options: TokenizerOptions = {}) {
		this.maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_CACHE_MAX_ENTRIES);
		this.maxChars = Math.max(0, options.maxChars ?? DEFAULT_CACHE_MAX_CHARS);
	}

	/**
	 * Tokens of `text` alone, without any message framing. A text longer than
	 * {@link LINE_COUNTED_CHARS} with line breaks is counted line by line (each line with its
	 * break, each cached): the same tool output then costs nothing more when it reappears inside
	 * a larger text, such as the summarizer's transcript or a merged message. o200k_base never
	 * merges tokens across a line break except runs of blank lines, so the sum is the exact count
	 * or, for such runs, a token or two more (safe for a budget).
	 */
	countTokens(text: string): number {
		if (text.length > LINE_COUNTED_CHARS && text.includes('\n')) {
			let total = 0;
			let start = 0;
			while (start < text.length) {
				const end = text.indexOf('\n', start);
				const stop = end === -1 ? text.length : end + 1;
				total += this.countCached(text.slice(start, stop));
				start = stop;
			}
			return total;
		}
		return this.countCached(text);
	}

	private countCached(text: string): number {
		if (text.length === 0) {
			return 0;
		}
		const cached = this.cache.get(text);
		if (cached !== undefined) {
			this.cacheHits++;
			// Re-insert so the Map's insertion order doubles as recency order.
			this.cache.delete(text);
			this.cache.set(text, cached);
			return cached;
		}
		this.cacheMisses++;
		const count = this.encode(text).length;
		this.tokenizedChars += text.length;
		this.tokenizedTokens += count;
		this.remember(text, count);
		return count;
	}

	/** The token ids of `text` (uncached; for cutting text at token boundaries). */
	encode(text: string): number[] {
		if (!LONG_RUN.test(text)) return sharedEncoder().encode(text, [], []);
		const ids: number[] = [];
		for (const piece of boundedPieces(text)) for (const id of sharedEncoder().encode(piece, [], [])) ids.push(id);
		return ids;
	}

	decode(tokens: readonly number[]): string {
		return sharedEncoder().decode(tokens as number[]);
	}

	tokenLength(part: Raw.ChatCompletionContentPart): number {
		switch (part.type) {
			case TEXT_PART:
				return this.countTokens(part.text);
			case OPAQUE_PART:
				return part.tokenUsage ?? 0;
			default:
				// Images, documents and cache breakpoints: Longhaul's prompts contain none.
				return 0;
		}
	}

	countMessageTokens(message: Raw.ChatMessage): number {
		let total = MESSAGE_OVERHEAD_TOKENS;
		if (message.name) {
			total += MESSAGE_NAME_TOKENS + this.countTokens(message.name);
		}
		for (const part of message.content) {
			total += this.tokenLength(part);
		}
		if (message.role === ASSISTANT_ROLE && message.toolCalls) {
			for (const call of message.toolCalls) {
				total += TOOL_CALL_OVERHEAD_TOKENS + this.countTokens(call.function.name) + this.countTokens(call.function.arguments);
			}
		}
		return total;
	}

	stats(): TokenizerStats {
		return { tokenizedChars: this.tokenizedChars, tokenizedTokens: this.tokenizedTokens, cacheHits: this.cacheHits, cacheMisses: this.cacheMisses };
	}

	/** Entries and characters currently cached. */
	cacheSize(): { entries: number; chars: number } {
		return { entries: this.cache.size, chars: this.cachedChars };
	}

	private remember(text: string, count: number): void {
		if (text.length > this.maxChars) {
			return; // larger than the whole cache: counting it again is cheaper than evicting everything
		}
		this.cache.set(text, count);
		this.cachedChars += text.length;
		while (this.cache.size > this.maxEntries || this.cachedChars > this.maxChars) {
			const oldest = this.cache.keys().next().value as string;
			this.cache.delete(oldest);
			this.cachedChars -= oldest.length;
		}
	}
}

let shared: TiktokenTokenizer | undefined;

/** One tokenizer for the whole extension host, so its cache lives as long as the sessions. */
export function sharedTokenizer(): TiktokenTokenizer {
	shared ??= new TiktokenTokenizer();
	return shared;
}

/** Tokens of `text` with the shared tokenizer. */
export function countTokens(text: string): number {
	return sharedTokenizer().countTokens(text);
}
