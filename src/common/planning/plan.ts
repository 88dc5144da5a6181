// What a summarization planner decides: which rounds the summarizer absorbs,
// which stay verbatim, and where the new summary is anchored.
import type { RoundLocation } from '../conversation/conversation';

/** Which planner produced the plan. */
export type SummarizationMode = 'half-context' | 'legacy';

/** Why the half-context planner handed over to the legacy rule. */
export type FallbackReason = 'not-enough-rounds' | 'interrupted-turn';

/**
 * Fallback levels of the design (docs/decisions.md decision 2):
 * 0 half-context split, 1 legacy because too few rounds or an interrupted turn,
 * 3 nothing to summarize (raised as {@link NothingToSummarizeError}).
 * Level 2 ("an existing summary in the way") cannot happen with round-level
 * anchoring: planning simply starts after the newest summary. See docs/planning.md.
 */
export type FallbackLevel = 0 | 1;

export interface PlanTokenStats {
	readonly summarized: number;
	readonly kept: number;
	readonly previousSummary: number;
}

/** What half-context's token-aware rule did (present when the planner had a message budget). */
export interface TokenAwareSplit {
	/** What the round rule, max(minRecentRounds, ceil(N/2)), would have kept. */
	readonly roundRuleKeptCount: number;
	/** Half the message budget: the most the kept rounds may hold. */
	readonly limitTokens: number;
	/** The kept rounds held more than the limit, so fewer were kept. */
	readonly moved: boolean;
}

export interface PlanStats {
	/** Unsummarized rounds the planner looked at (summarized + kept). */
	readonly totalRoundCount: number;
	readonly summarizedRoundCount: number;
	readonly keptRoundCount: number;
	/** Present when the planner was given a token counter; `tokens.kept` is the kept rounds' size. */
	readonly tokens?: PlanTokenStats;
	readonly tokenAware?: TokenAwareSplit;
}

export interface SummarizationPlan {
	/** The planner that produced the split (`legacy` also when half-context fell back). */
	readonly mode: SummarizationMode;
	/** The planner that was asked for (the setting at planning time). */
	readonly requestedMode: SummarizationMode;
	readonly fallbackLevel: FallbackLevel;
	readonly fallbackReason?: FallbackReason;
	/** Unsummarized rounds the summarizer absorbs, oldest first. Never empty. */
	readonly summarizeRoundIds: readonly string[];
	/** Unsummarized rounds that stay verbatim, oldest first: always a suffix of the flattened rounds. */
	readonly keepRoundIds: readonly string[];
	/** The last summarized round; the new summary is attached to it. */
	readonly anchorRoundId: string;
	readonly anchor: RoundLocation;
	/**
	 * The new summary ends in a past turn (the anchor is a history round), so the request in
	 * progress follows it as a continuation with all its own rounds verbatim. For the legacy
	 * rule this is exactly Copilot's "history" branch.
	 */
	readonly isContinuation: boolean;
	/**
	 * When the split falls inside a past turn (its last summarized and first kept round belong to
	 * it), that turn's index: its user message must reach the prompt verbatim ahead of its kept
	 * rounds. Absent when the split is at a turn boundary or inside the request in progress
	 * (whose message always precedes its rounds).
	 */
	readonly splitInsideTurnIndex?: number;
	/**
	 * Rounds of the plan (summarized or kept) with calls that never got a result. Whoever renders
	 * them closes each such call with `INTERRUPTED_RESULT` (conversation.ts).
	 */
	readonly interruptedRoundIds: readonly string[];
	/**
	 * The block the new summary absorbs: the summary of the turn the summarized rounds start in,
	 * when that turn already has one (they continue it). Blocks of other turns are never absorbed
	 * and stay in the prompt (docs/decisions.md decision 3).
	 */
	readonly previousSummary?: { readonly roundId: string; readonly text: string };
	/** The anchor of the newest summary when the plan was made (absent when there was none). */
	readonly newestSummaryRoundId?: string;
	readonly stats: PlanStats;
}

/** Level 3: there is no unsummarized round to summarize. Never send an empty summarization request. */
export class NothingToSummarizeError extends Error {
	readonly code = 'nothing-to-summarize';
	readonly fallbackLevel = 3;
	constructor(message = 'Nothing to summarize: every round is already covered by a summary or must stay verbatim.') {
		super(message);
		this.name = 'NothingToSummarizeError';
	}
}
