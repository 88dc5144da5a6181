// Plans that summarize only the oldest part of another plan. When the summarizer cannot take every
// round a plan absorbs, even in Simple mode (the rounds before the overflow filled a window, and the
// summarizer's instructions and transcript framing come on top), the oldest part is summarized now
// and the rest stays verbatim until the next overflow, instead of giving up and truncating. Found by
// the replay benchmark with masking on: the legacy rule's "everything but the last round" then no
// longer fits one summarizer prompt. With per-turn blocks (summarizeBlocks.ts) the same happens
// when a later turn's block cannot be made: the turns done so far are kept.
import type { Conversation } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../conversation/flatten';
import type { SummarizationPlan } from '../planning/plan';
import { buildPlan, type PlanOptions } from '../planning/planParts';
import type { SummaryAttempt } from './summarizationFlow';

/**
 * The same plan, summarizing exactly its oldest `count` rounds (1 ≤ count < the plan's count);
 * undefined otherwise. Unlike the planners it may anchor on the round where an interrupted turn
 * stopped: the blocks were already written for exactly these rounds.
 */
export function planPrefix(conversation: Conversation, plan: SummarizationPlan, count: number, options: PlanOptions = {}): SummarizationPlan | undefined {
	if (count < 1 || count >= plan.summarizeRoundIds.length) return undefined;
	const flat = flattenRounds(conversation);
	const start = newestSummaryIndex(flat) + 1;
	return buildPlan({ flat, start, split: start + count, mode: plan.mode, requestedMode: plan.requestedMode, fallbackReason: plan.fallbackReason }, options);
}

/** True when every attempt failed because the summarizer prompt did not fit. */
export function onlyPromptTooLarge(attempts: readonly SummaryAttempt[]): boolean {
	return attempts.length > 0 && attempts.every(a => a.outcome === 'prompt-too-large');
}
