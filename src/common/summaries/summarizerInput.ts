// What the summarizer reads for a plan: the rounds it absorbs, each preceded by the user
// message of its turn where that turn starts (or resumes) inside the absorbed part.
import { hasUnansweredCalls, type Conversation, type Round } from '../conversation/conversation';
import { flattenRounds } from '../conversation/flatten';
import type { SummarizationPlan } from '../planning/plan';
import { withElidedRoundRestored } from '../conversation/toolResultPlaceholders';

/** One item the summarizer absorbs: a user message where a turn starts, or a round (interrupted: some call never got a result). */
export type SummarizerEntry =
	{ readonly kind: 'user'; readonly text: string } | { readonly kind: 'round'; readonly round: Round; readonly interrupted?: boolean };

/**
 * @param currentRequest the user's message of the request in progress, shown ahead of the
 * first absorbed active round.
 */
export function summarizerEntries(conversation: Conversation, plan: Pick<SummarizationPlan, 'summarizeRoundIds'>, currentRequest: string): SummarizerEntry[] {
	const absorb = new Set(plan.summarizeRoundIds);
	const entries: SummarizerEntry[] = [];
	let lastTurn: number | undefined;
	for (const at of flattenRounds(conversation)) {
		if (!absorb.has(at.round.id)) {
			continue;
		}
		if (at.turnIndex !== lastTurn) {
			entries.push({ kind: 'user', text: at.turn ? at.turn.user : currentRequest });
			lastTurn = at.turnIndex;
		}
		// Results elided only to fit the window (the bridge, truncation) are read as recorded, so the
		// summary still knows them (decision 43); masked ones stay masked: the user let old outputs go.
		entries.push({ kind: 'round', round: withElidedRoundRestored(at.round), interrupted: hasUnansweredCalls(at.round) });
	}
	return entries;
}
