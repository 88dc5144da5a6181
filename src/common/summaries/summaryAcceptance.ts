// Whether a summarizer's reply is a summary (docs/decisions.md, "A reply is a summary only if it
// reads as one"). A reply replaces the rounds it summarizes for good, so a reply that is not a
// summary must never be attached: a model's echo of the prompt, a refusal or a one-liner would
// silently lose everything those rounds knew. Such a reply is a failed attempt, and the flow
// (summarizationFlow.ts) goes on Full → Simple → the caller's deterministic fallback.
import { summaryLength } from './summaryLength';

/** The model's reply as the summarizer flow reads it (src/prompts/extractSummary.ts summaryOfReply). */
export type SummaryReply =
	| {
			readonly kind: 'summary';
			readonly text: string;
			/** The reply put it inside `<summary>` tags, as the prompt asks. */
			readonly tagged: boolean;
	  }
	/** The reply stopped before its summary was complete (no closing tag): its end, the newest work, is missing. */
	| { readonly kind: 'cut-off'; readonly partial?: string }
	/** The reply repeats the summarizer prompt's own scaffolding (a tag of its structure, a line of its instructions). */
	| { readonly kind: 'echo'; readonly echoed: string }
	/** Nothing but whitespace. */
	| undefined;

/**
 * Share of the expected length an untagged reply must reach. The expected length is the smaller of
 * what the prompt asks for and the prompt itself (a short transcript gets a short summary): models
 * miss a stated length by a quarter at most (summaryLength.ts), so a tenth of it is far below any
 * summary, and far above an echo's first line, a refusal sentence or "Summary written." (10–30 tokens).
 */
export const UNTAGGED_MIN_SHARE = 0.1;

/**
 * The fewest tokens a reply without `<summary>` tags must have to count as a summary.
 * `promptTokens`: the summarizer prompt as sent, which holds what the summary replaces (its
 * transcript and previous summary, or the summary to shorten) and about 700 tokens of instructions.
 */
export function untaggedMinimum(promptTokens: number, maxSummaryTokens: number): number {
	const expected = Math.min(promptTokens, summaryLength(maxSummaryTokens).targetTokens);
	return Math.max(1, Math.ceil(expected * UNTAGGED_MIN_SHARE));
}

/** Why a reply with text is not a summary, or undefined when it is one (size caps are checked apart). */
export function notASummary(reply: SummaryReply, summaryTokens: number, promptTokens: number, maxSummaryTokens: number): string | undefined {
	if (reply?.kind === 'echo') return `the reply repeats the prompt (${reply.echoed})`;
	if (reply?.kind !== 'summary' || reply.tagged) return undefined;
	const minimum = untaggedMinimum(promptTokens, maxSummaryTokens);
	return summaryTokens < minimum ? `${summaryTokens} tokens without <summary> tags, under the ${minimum} a summary of this prompt has` : undefined;
}
