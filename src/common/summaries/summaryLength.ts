// How long the summarizer is asked to make a summary. The cap (budget.ts summaryBudget) is what
// Longhaul accepts; the prompt asks for less, because models do not count their own tokens:
// asked for N, they write anywhere from about 0.75 N to 1.25 N. Asking for 75% of the cap keeps even
// a quarter too long a summary under it; a longer one gets one condense pass (summarizationFlow.ts).

/** Share of the cap the summarizer is asked for. */
export const TARGET_SHARE = 0.75;
/** Words per token of a summary (English prose with paths and identifiers), for the prompt's word count. */
export const WORDS_PER_TOKEN = 0.7;

export interface SummaryLength {
	/** What Longhaul accepts (the summary budget). */
	readonly maxTokens: number;
	/** What the prompt asks for. */
	readonly targetTokens: number;
	/** The same, in words (models follow a word count better than a token count). */
	readonly targetWords: number;
}

export function summaryLength(maxSummaryTokens: number): SummaryLength {
	const maxTokens = Math.max(1, Math.floor(maxSummaryTokens));
	const targetTokens = Math.max(1, Math.floor(maxTokens * TARGET_SHARE));
	return { maxTokens, targetTokens, targetWords: wordsFor(targetTokens) };
}

/** A token count stated in words, rounded down to a round number as a person would state it. */
export function wordsFor(tokens: number): number {
	const step = tokens >= 1000 ? 50 : 10;
	return Math.max(step, Math.floor((tokens * WORDS_PER_TOKEN) / step) * step);
}
