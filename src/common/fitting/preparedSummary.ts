// A summary made for a plan, before or after it is attached to the conversation. The agent's
// overflow pipeline, its background summarizer, /compact and the benchmark all produce this
// shape and attach it through attachSummary, the one place a summary joins the conversation.
import type { Conversation } from '../conversation/conversation';
import { summarizeNarrowing } from '../planning/narrowPlan';
import type { SummarizationPlan } from '../planning/plan';
import { applySummary } from '../summaries/applySummary';
import type { SummaryAttempt, SummaryFlowResult } from '../summaries/summarizationFlow';

export interface PreparedSummary {
	readonly plan: SummarizationPlan;
	readonly attempts: readonly SummaryAttempt[];
	/** Undefined when every attempt failed. */
	readonly summary?: string;
	/** The summarizer could not take every planned round, so only the oldest were summarized (narrowPlan.ts). */
	readonly narrowed: boolean;
	/** Rounds the plan asked for before narrowing. */
	readonly plannedRoundCount: number;
	readonly durationMs: number;
}

/** Produces the summary of one plan: Full then Simple through `summarize`, narrowed while the summarizer prompt cannot fit. */
export type Summarize = (conversation: Conversation, plan: SummarizationPlan) => Promise<SummaryFlowResult>;

/** The summary of `plan` (planned once by the caller), narrowed to its oldest rounds when the summarizer cannot take them all. */
export async function makeSummary(conversation: Conversation, plan: SummarizationPlan, summarize: Summarize): Promise<PreparedSummary> {
	const started = Date.now();
	const made = await summarizeNarrowing(conversation, plan, candidate => summarize(conversation, candidate));
	return {
		plan: made.plan,
		attempts: made.result.attempts,
		summary: made.result.summary,
		narrowed: made.plan !== plan,
		plannedRoundCount: plan.summarizeRoundIds.length,
		durationMs: Date.now() - started,
	};
}

/** The conversation with `summary` standing for the rounds `plan` summarizes. */
export function attachSummary(conversation: Conversation, plan: SummarizationPlan, summary: string): Conversation {
	return applySummary(conversation, plan.anchorRoundId, summary);
}
