// A summary made for a plan, before or after it is attached to the conversation: one block per turn
// the plan spans (summaryBlocks.ts). The agent's overflow pipeline, its background summarizer,
// /compact and the benchmark all produce this shape and attach it through attachSummary, the one
// place a summary joins the conversation.
import type { Conversation } from '../conversation/conversation';
import type { SummarizationPlan } from '../planning/plan';
import { applySummaryBlocks } from '../summaries/applySummary';
import { summarizeBlocks, type SummarizeBlock } from '../summaries/summarizeBlocks';
import type { SummaryAttempt } from '../summaries/summarizationFlow';

export interface PreparedSummary {
	readonly plan: SummarizationPlan;
	readonly attempts: readonly SummaryAttempt[];
	/** One text per turn the plan spans, oldest first; undefined when every attempt failed. */
	readonly blocks?: readonly string[];
	/** Not every planned round could be summarized, so only the oldest were (summarizeBlocks.ts). */
	readonly narrowed: boolean;
	/** Rounds the plan asked for before narrowing. */
	readonly plannedRoundCount: number;
	/** Summarizer requests sent (one per turn, more when a turn had to be narrowed). */
	readonly requests: number;
	readonly durationMs: number;
}

/** Produces the block of one request (one turn's rounds): Full then Simple. */
export type Summarize = SummarizeBlock;

/** The blocks of `plan` (planned once by the caller), one request per turn, narrowed when the summarizer cannot take them all. */
export async function makeSummary(conversation: Conversation, plan: SummarizationPlan, summarize: Summarize): Promise<PreparedSummary> {
	const started = Date.now();
	const made = await summarizeBlocks(conversation, plan, summarize);
	return {
		plan: made.plan,
		attempts: made.attempts,
		...(made.blocks ? { blocks: made.blocks } : {}),
		narrowed: made.plan !== plan,
		plannedRoundCount: plan.summarizeRoundIds.length,
		requests: made.requests,
		durationMs: Date.now() - started,
	};
}

/** The conversation with `blocks` standing for the rounds `plan` summarizes, one per turn. */
export function attachSummary(conversation: Conversation, plan: SummarizationPlan, blocks: readonly string[]): Conversation {
	return applySummaryBlocks(conversation, plan, blocks);
}
