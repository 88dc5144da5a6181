// Whether a summary planned earlier (in the background) may still be attached to the
// conversation as it is now. Rounds are only ever appended, but in the meantime another
// summary may have been made or the anchor may be gone (a new request rebuilt the history).
import type { Conversation } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../conversation/flatten';
import type { SummarizationPlan } from './plan';

export type Applicability = { readonly ok: true } | { readonly ok: false; readonly reason: 'anchor-gone' | 'anchor-summarized' | 'summaries-changed' };

/**
 * Blocks made for `plan` cover the rounds after the summary that was newest then
 * (`plan.newestSummaryRoundId`) up to the anchor, and the first one absorbed its turn's block
 * (`plan.previousSummary`). They are still right for `conversation` when that summary is still the
 * newest one and the anchor is still an unsummarized round, and when the block they absorbed still
 * reads as it did (the user may have edited it since: a summary written from the old text would
 * silently undo the edit); otherwise attaching them would drop or duplicate what another summary
 * says (docs/decisions.md decision 3), so they are discarded.
 */
export function summaryPlanApplicability(
	conversation: Conversation,
	plan: Pick<SummarizationPlan, 'anchorRoundId' | 'newestSummaryRoundId' | 'previousSummary'>,
): Applicability {
	const flat = flattenRounds(conversation);
	const anchorIndex = flat.findIndex(f => f.round.id === plan.anchorRoundId);
	if (anchorIndex < 0) {
		return { ok: false, reason: 'anchor-gone' };
	}
	const newest = newestSummaryIndex(flat);
	const newestId = newest >= 0 ? flat[newest].round.id : undefined;
	if (newestId !== plan.newestSummaryRoundId) {
		return { ok: false, reason: newest >= anchorIndex ? 'anchor-summarized' : 'summaries-changed' };
	}
	const absorbed = plan.previousSummary;
	if (absorbed && flat.find(f => f.round.id === absorbed.roundId)?.round.summary !== absorbed.text) {
		return { ok: false, reason: 'summaries-changed' };
	}
	return anchorIndex > newest ? { ok: true } : { ok: false, reason: 'anchor-summarized' };
}
