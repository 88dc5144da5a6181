// What a tool call's result looks like in a prompt: never empty, never missing, never larger
// than the cap. Every call the model made must be answered by exactly one tool message.
import { INTERRUPTED_RESULT, type ToolCall } from '../common/conversation/conversation';
import type { TextTokenizer } from '../common/tokens/tokenizer';
import { cutMiddle, HEAD_SHARE } from '../common/text/cutText';

/** Stands in for an empty result: prompt-tsx drops empty messages, which would leave the call unanswered. */
export const EMPTY_TOOL_RESULT = '(The tool returned no output.)';

/** Tokens held back for the marker line and the line breaks around it. */
const MARKER_TOKENS = 16;

export function truncationMarker(cutTokens: number): string {
	return `[... ${cutTokens} tokens of tool output truncated ...]`;
}

// Cutting needs a full encode of the text; the same large result is re-rendered on every round,
// so the cut text is remembered (per tokenizer and cap, a few hundred texts).
const MEMO_LIMIT = 256;
const memo = new WeakMap<TextTokenizer, Map<number, Map<string, string>>>();

/**
 * `text` when it has at most `maxTokens` tokens; otherwise its first and last tokens around a
 * marker that says how many tokens were cut. Deterministic; the result has at most `maxTokens`
 * tokens (give or take the merge of a token at either seam).
 */
export function cutToolResult(text: string, maxTokens: number, tokenizer: TextTokenizer): string {
	if (tokenizer.countTokens(text) <= maxTokens) {
		return text;
	}
	let byCap = memo.get(tokenizer);
	if (!byCap) {
		byCap = new Map();
		memo.set(tokenizer, byCap);
	}
	let byText = byCap.get(maxTokens);
	if (!byText) {
		byText = new Map();
		byCap.set(maxTokens, byText);
	}
	const known = byText.get(text);
	if (known !== undefined) {
		return known;
	}
	const cut = cutTokensMiddle(text, maxTokens, tokenizer);
	byText.set(text, cut);
	if (byText.size > MEMO_LIMIT) {
		byText.delete(byText.keys().next().value as string);
	}
	return cut;
}

function cutTokensMiddle(text: string, maxTokens: number, tokenizer: TextTokenizer): string {
	const tokens = tokenizer.encode(text);
	const keep = Math.max(0, Math.floor(maxTokens) - MARKER_TOKENS);
	const headCount = Math.ceil(keep * HEAD_SHARE);
	const tailCount = keep - headCount;
	// A cut inside a multi-byte character decodes to U+FFFD; drop those half characters.
	const head = tokenizer.decode(tokens.slice(0, headCount)).replace(/\uFFFD+$/, '');
	const tail = tailCount > 0 ? tokenizer.decode(tokens.slice(tokens.length - tailCount)).replace(/^\uFFFD+/, '') : '';
	const marker = truncationMarker(tokens.length - headCount - tailCount);
	return `${head}\n${marker}\n${tail}`;
}

/** The text a call's tool message carries in the agent prompt. */
export function toolResultForPrompt(call: ToolCall, maxTokens: number, tokenizer: TextTokenizer): string {
	if (call.result === undefined) {
		return INTERRUPTED_RESULT;
	}
	if (call.result.trim() === '') {
		return EMPTY_TOOL_RESULT;
	}
	return cutToolResult(call.result, maxTokens, tokenizer);
}

/** Keeps at most `maxChars` characters of `text`: head and tail around a marker (summarizer, Simple mode). */
export function cutToolResultChars(text: string, maxChars: number): string {
	return cutMiddle(text, maxChars, { marker: cut => `[... ${cut} characters of tool output truncated ...]` });
}
