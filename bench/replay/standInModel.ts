// The model's side of a request in the benchmark and the test model: its own token count and its
// hard limit. A real provider counts with its own tokenizer and refuses a request over its limit
// with an error; Longhaul only sees the error text (shared/notes/provider-errors.md).
//
// The stand-in's own count (--model-token-ratio R): like the realistic profile of the test model
// (test/fixtures/scripted-model/src/realisticProfile.ts) it depends on content, line by line: a
// code-like line (isCodeLike) counts CODE_WEIGHT × R tokens per local token, a prose line
// PROSE_WEIGHT × R, so R is the mean of the two levels (R = 1.175 is that profile's 1.25 / 1.10).
// A text's ratio is the mean over its lines weighted by their characters (no second tokenizer
// pass), so the same prompt always gets the same count, and a prompt of logs and code counts
// more than one of prose at the same local size.

/** Code-like lines count this much more than R, prose lines PROSE_WEIGHT (the realistic profile's 1.25 and 1.10 over their mean). */
export const CODE_WEIGHT = 1.25 / 1.175;
export const PROSE_WEIGHT = 1.1 / 1.175;
const CODE_SYMBOLS = /[{}[\]()<>;=:/\\|&*#$@"'`]/g;

/** Indented (a tab or two spaces), ≥ 12 % code symbols, or one "word" over 24 characters (a path, a URL, a hash). */
export function isCodeLike(line: string): boolean {
	if (/^(\t| {2})/.test(line)) return true;
	const visible = line.replace(/\s/g, '');
	if (visible.length === 0) return false;
	if (!/\s/.test(line.trim()) && visible.length > 24) return true;
	const symbols = visible.match(CODE_SYMBOLS)?.length ?? 0;
	return symbols / visible.length >= 0.12;
}

/** The stand-in's tokens per local token for `text` at mean level `ratio`: its lines' levels, weighted by their characters. */
export function contentRatio(text: string, ratio: number): number {
	let code = 0;
	let prose = 0;
	for (const line of text.split('\n')) {
		if (isCodeLike(line)) code += line.length + 1;
		else prose += line.length + 1;
	}
	return (ratio * (code * CODE_WEIGHT + prose * PROSE_WEIGHT)) / (code + prose);
}

/** The stand-in's count of a request of `localTokens` local tokens whose text is `text`. */
export function standInCount(localTokens: number, text: string, ratio: number): number {
	return Math.ceil(localTokens * contentRatio(text, ratio));
}

/** The error text GitHub Copilot's API returns for a prompt over the model's limit (the newer CAPI shape). */
export function copilotPromptTooLongText(promptTokens: number, limit: number): string {
	return `Request Failed: 400 {"error":{"message":"prompt token count of ${promptTokens} exceeds the limit of ${limit}","code":"model_max_prompt_tokens_exceeded"}}`;
}

/** The error a provider throws for a prompt over its limit, Copilot-shaped. */
export function promptTooLongError(promptTokens: number, limit: number): Error {
	return new Error(copilotPromptTooLongText(promptTokens, limit));
}
