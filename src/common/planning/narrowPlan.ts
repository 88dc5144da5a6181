// When the summarizer cannot take every round a plan absorbs, even in Simple mode (the rounds
// before the overflow filled a window, and the summarizer's instructions and transcript framing
// come on top), the oldest part is summarized now and the rest stays verbatim until the next
// overflow, instead of giving up and truncating. Found by the replay benchmark with masking on:
// the legacy rule's "everything but the last round" then no longer fits one summarizer prompt.
import type { Conversation } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../conversation/flatten';
import { isStopRound } from './halfContextPlanner';
import type { SummarizationPlan } from './plan';
import { buildPlan, type PlanOptions } from './planParts';
import type { SummaryAttempt } from '../summaries/summarizationFlow';

/**
 * The same plan, summarizing only its oldest `count` rounds. The anchor never lands on the
 * round where an interrupted turn was stopped (as in the planners); undefined when no shorter
 * plan exists.
 */
export function narrowPlan(conversation: Conversation, plan: SummarizationPlan, count: number, options: PlanOptions = {}): SummarizationPlan | undefined {
	const flat = flattenRounds(conversation);
	const start = newestSummaryIndex(flat) + 1;
	let split = start + Math.min(count, plan.summarizeRoundIds.length - 1);
	while (split > start && isStopRound(flat[split - 1])) split--;
	if (split <= start) return undefined;
	return buildPlan({ flat, start, split, mode: plan.mode, requestedMode: plan.requestedMode, fallbackReason: plan.fallbackReason }, options);
}

/** True when every attempt failed because the summarizer prompt did not fit. */
export function onlyPromptTooLarge(attempts: readonly SummaryAttempt[]): boolean {
	return attempts.length > 0 && attempts.every(a => a.outcome === 'prompt-too-large');
}

/**
 * Runs `attempt` for `plan`; while the summarizer prompt does not fit at all, tries again with
 * the oldest half of the rounds (then a quarter, …, down to one). Returns the plan that was used
 * last and its result.
 */
export async function summarizeNarrowing<R extends { readonly attempts: readonly SummaryAttempt[] }>(
	conversation: Conversation,
	plan: SummarizationPlan,
	attempt: (plan: SummarizationPlan) => Promise<R>,
	options: PlanOptions = {},
): Promise<{ plan: SummarizationPlan; result: R }> {
	let current = plan;
	let result = await attempt(current);
	while (onlyPromptTooLarge(result.attempts)) {
		const next = narrowPlan(conversation, current, Math.ceil(current.summarizeRoundIds.length / 2), options);
		if (!next) break;
		current = next;
		result = await attempt(current);
	}
	return { plan: current, result };
}
