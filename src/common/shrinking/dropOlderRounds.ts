// The last step of deterministic truncation: when no model summary can be had (the summarizer
// failed, or the loop breaker stopped it) and removing old tool results is not enough either
// (rounds with long texts), the older half of the rounds is dropped without a model. The drop is recorded as a summary made by Longhaul itself: it carries the previous
// summary word for word (seed 004: a summary is never silently lost) and a note saying what was
// removed. Stored like any summary, so later requests do not bring the dropped rounds back.
import type { Conversation } from '../conversation/conversation';
import type { SummarizationPlan } from '../planning/plan';
import { applySummary, planOrNothing } from '../planning/planners';

export interface DroppedRounds {
	readonly conversation: Conversation;
	readonly plan: SummarizationPlan;
	/** The summary text attached to the plan's anchor. */
	readonly text: string;
}

/** The note that stands for dropped rounds. */
export function droppedRoundsNote(count: number): string {
	return `[${count} older round${count === 1 ? ' was' : 's were'} removed without a summary to fit the context window. The done-ledger, when present, lists what was done in them; read files again rather than relying on memory.]`;
}

/**
 * Drops the older half of the unsummarized rounds (the half-context rule, whatever the setting:
 * the legacy rule would drop everything but the last round, with nothing to stand for it but a
 * note). Undefined when there is nothing to drop. Never mutates its input.
 */
export function dropOlderRounds(conversation: Conversation): DroppedRounds | undefined {
	const plan = planOrNothing(conversation, 'half-context');
	if (!plan) return undefined;
	const note = droppedRoundsNote(plan.summarizeRoundIds.length);
	const text = plan.previousSummary ? `${plan.previousSummary.text}\n\n${note}` : note;
	return { conversation: applySummary(conversation, plan.anchorRoundId, text), plan, text };
}
