// A summary made for a plan, before or after it is attached to the conversation: one block per turn
// the plan spans (summaryBlocks.ts). The agent's overflow pipeline, its background summarizer,
// /compact and the benchmark all produce this shape and attach it through applySummaryBlocks (applySummary.ts), the one
// place a summary joins the conversation.
import type { Conversation } from '../conversation/conversation';
import type { SummarizationPlan } from '../planning/plan';
import { applySummaryBlocks } from '../summaries/applySummary';
import {
	prepareCondensations,
	rememberCondensations,
	usingPreparedCondensations,
	type CondensedAhead,
	type CondenseBlock,
	type PreparedCondensations,
} from '../summaries/condenseBlocks';
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
	/** Made in the background with the summary: the older blocks attaching it condenses, already shortened. */
	readonly condensations?: PreparedCondensations;
}

/** The blocks of `plan` (planned once by the caller), one request per turn, narrowed when the summarizer cannot take them all. */
export async function makeSummary(conversation: Conversation, plan: SummarizationPlan, summarize: SummarizeBlock): Promise<PreparedSummary> {
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

/** How a summary prepared ahead bounds the blocks once attached (the overflow pipeline's summary budget and condense step). */
export interface BlockBound {
	readonly budgetTokens: number;
	readonly countTokens: (text: string) => number;
	readonly condense: CondenseBlock;
	/**
	 * What earlier jobs of the chain condensed ahead: taken instead of asking again, and extended
	 * with this job's condensations once it is done (rememberCondensations).
	 */
	readonly memory?: Map<string, CondensedAhead>;
}

/**
 * A summary prepared ahead of the overflow (the background job of the agent and of the benchmark):
 * the summary, then the condensations of older blocks that attaching it will need, so the user
 * waits at the overflow for neither.
 */
export async function makeSummaryAhead(
	conversation: Conversation,
	plan: SummarizationPlan,
	summarize: SummarizeBlock,
	bound: BlockBound,
): Promise<PreparedSummary> {
	const prepared = await makeSummary(conversation, plan, summarize);
	if (!prepared.blocks) return prepared;
	const attached = applySummaryBlocks(conversation, prepared.plan, prepared.blocks);
	const condense = usingPreparedCondensations(bound.memory, bound.condense) ?? bound.condense;
	const condensations = await prepareCondensations(attached, bound.budgetTokens, bound.countTokens, condense);
	if (bound.memory) rememberCondensations(bound.memory, condensations);
	return condensations.size ? { ...prepared, condensations } : prepared;
}
