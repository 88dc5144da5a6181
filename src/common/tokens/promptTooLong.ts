// Recognizes a provider's "the prompt is over my limit" error, whatever path it took to reach us
// (a vscode.LanguageModelError, a plain Error with the provider's JSON in its message, a `cause`).
// The shapes are the ones users have reported (shared/notes/provider-errors.md); anything else is
// not recognized, so ordinary errors keep their ordinary handling.

export type PromptTooLongShape = 'copilot' | 'anthropic' | 'openai' | 'gemini' | 'http-413' | 'generic';

export interface PromptTooLong {
	readonly shape: PromptTooLongShape;
	/** The provider's own count of the prompt, when the error says it. */
	readonly promptTokens?: number;
	/** The provider's limit, when the error says it. */
	readonly limit?: number;
	/** The text the recognition was made on, shortened, for the log. */
	readonly text: string;
}

const NUMBER = '(\\d[\\d,._]*)';

/** Patterns with numbers, most specific first. Each yields [promptTokens, limit] from its groups. */
const WITH_NUMBERS: readonly { shape: PromptTooLongShape; pattern: RegExp; tokens: (m: RegExpExecArray) => [string, string] }[] = [
	// Copilot (CAPI): "prompt token count of 138898 exceeds the limit of 64000"
	{ shape: 'copilot', pattern: new RegExp(`prompt token count of ${NUMBER} exceeds the limit of ${NUMBER}`, 'i'), tokens: m => [m[1], m[2]] },
	// Anthropic: "prompt is too long: 210194 tokens > 200000 maximum"
	{ shape: 'anthropic', pattern: new RegExp(`prompt is too long:?\\s*${NUMBER} tokens?\\s*>\\s*${NUMBER}`, 'i'), tokens: m => [m[1], m[2]] },
	// OpenAI: "This model's maximum context length is 16385 tokens. However, you requested about 17537 tokens"
	{
		shape: 'openai',
		pattern: new RegExp(
			`maximum context length is ${NUMBER} tokens?[\\s\\S]{0,80}?(?:requested|resulted in|messages resulted in)(?: about)? ${NUMBER} tokens?`,
			'i',
		),
		tokens: m => [m[2], m[1]],
	},
	// Gemini: "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)"
	{
		shape: 'gemini',
		pattern: new RegExp(`input token count \\(?${NUMBER}\\)? exceeds the maximum number of tokens allowed \\(?${NUMBER}\\)?`, 'i'),
		tokens: m => [m[1], m[2]],
	},
];

/** Shapes without numbers (or whose numbers the patterns above did not find). */
const WITHOUT_NUMBERS: readonly { shape: PromptTooLongShape; pattern: RegExp }[] = [
	{ shape: 'copilot', pattern: /model_max_prompt_tokens_exceeded|prompt token count of .* exceeds the limit/i },
	{ shape: 'anthropic', pattern: /prompt is too long/i },
	{ shape: 'openai', pattern: /context_length_exceeded|maximum context length is/i },
	{ shape: 'gemini', pattern: /input token count .* exceeds the maximum number of tokens/i },
	// VS Code's Copilot model seen from another participant (no numbers).
	{ shape: 'generic', pattern: /message exceeds token limit|exceeds the (?:model's )?context window/i },
	// A bare HTTP 413, as "Request Failed: 413 ..." or a status text.
	{
		shape: 'http-413',
		pattern:
			/(?:request failed|status(?: code)?|http(?:\/\d(?:\.\d)?)?|error)\s*:?\s*413\b|\b413\b[^\n]{0,40}(?:payload|request entity|content) too large|(?:payload|request entity) too large/i,
	},
];

function toNumber(text: string): number | undefined {
	const n = Number(text.replace(/[,._]/g, ''));
	return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** Every text an error carries: name, message, code, status, and the same for its `cause`, a few levels deep. */
function errorTexts(error: unknown, depth = 0): string[] {
	if (error === undefined || error === null || depth > 3) return [];
	if (typeof error === 'string') return [error];
	if (typeof error !== 'object') return [String(error)];
	const e = error as { name?: unknown; message?: unknown; code?: unknown; status?: unknown; statusCode?: unknown; cause?: unknown };
	const texts: string[] = [];
	for (const value of [e.message, e.code, e.name]) {
		if (typeof value === 'string' && value) texts.push(value);
	}
	for (const status of [e.status, e.statusCode]) {
		if (status === 413 || status === '413') texts.push('status 413');
	}
	texts.push(...errorTexts(e.cause, depth + 1));
	return texts;
}

/**
 * The "prompt too long" reading of `error`, or undefined for any other error. Numbers are
 * parsed where the provider gives them: `promptTokens` is its count of what was sent, `limit` its
 * maximum (their ratio to the local count of the same request is the correction the budget needs).
 */
export function recognizePromptTooLong(error: unknown): PromptTooLong | undefined {
	const text = errorTexts(error).join('\n');
	if (!text) return undefined;
	const short = text.length > 300 ? `${text.slice(0, 300)}…` : text;
	for (const { shape, pattern, tokens } of WITH_NUMBERS) {
		const m = pattern.exec(text);
		if (!m) continue;
		const [count, limit] = tokens(m);
		const promptTokens = toNumber(count);
		const max = toNumber(limit);
		return { shape, text: short, ...(promptTokens !== undefined ? { promptTokens } : {}), ...(max !== undefined ? { limit: max } : {}) };
	}
	for (const { shape, pattern } of WITHOUT_NUMBERS) {
		if (pattern.test(text)) return { shape, text: short };
	}
	return undefined;
}
