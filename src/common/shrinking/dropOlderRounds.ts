// A late step of deterministic truncation (after eliding results; only cutting the newest round
// and leaving out the ledger come after it): when no model summary can be had (the summarizer
// failed, or the loop breaker stopped it) and removing old tool results is not enough either
// (rounds with long texts), the older half of the rounds is dropped without a model. The drop is
// recorded as summary blocks made by Longhaul itself, one per turn it spans, like any summary
// (applySummaryBlocks): the first carries its turn's previous block word for word (docs/decisions.md decision 3: a
// summary is never silently lost), each says what was removed from its turn. Stored like any
// summary, so later requests do not bring the dropped rounds back.
import type { Conversation } from '../conversation/conversation';
import type { SummarizationPlan } from '../planning/plan';
import { planOrNothing, type PlanOptions } from '../planning/planners';
import { applySummaryBlocks, blockSegments } from '../summaries/applySummary';

export interface DroppedRounds {
	readonly conversation: Conversation;
	readonly plan: SummarizationPlan;
	/** The block texts, one per turn the plan spans, oldest turn first. */
	readonly texts: readonly string[];
}

/** The note that stands for dropped rounds. */
export function droppedRoundsNote(count: number): string {
	return `[${count} older round${count === 1 ? ' was' : 's were'} removed without a summary to fit the context window. The done-ledger, when present, lists what was done in them; read files again rather than relying on memory.]`;
}

/**
 * Drops the older half of the unsummarized rounds (the half-context rule, whatever the setting:
 * the legacy rule would drop everything but the last round, with nothing to stand for it but a
 * note; `options` are the half-context planner's: token-aware split, minRecentRounds). Undefined when there
 * is nothing to drop. Never mutates its input.
 */
export function dropOlderRounds(conversation: Conversation, options: PlanOptions = {}): DroppedRounds | undefined {
	const plan = planOrNothing(conversation, 'half-context', options);
	if (!plan) return undefined;
	const texts = blockSegments(conversation, plan).map(segment => {
		const note = droppedRoundsNote(segment.roundIds.length);
		return segment.absorbs ? `${segment.absorbs.text}\n\n${note}` : note;
	});
	return { conversation: applySummaryBlocks(conversation, plan, texts), plan, texts };
}
