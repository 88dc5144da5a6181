// The summarization planners behind one entry point. The setting
// `longhaul.halfContextSummarization` picks the mode; see docs/planning.md for the rules.
import type { Conversation } from '../conversation/conversation';
import { planHalfContext } from './halfContextPlanner';
import { planLegacy } from './legacyPlanner';
import { NothingToSummarizeError, type SummarizationMode, type SummarizationPlan } from './plan';
import type { PlanOptions } from './planParts';

export type { PlanOptions } from './planParts';

/**
 * Decides which rounds the summarizer absorbs and which stay verbatim. Deterministic; never
 * mutates its input. Throws `NothingToSummarizeError` when no unsummarized round would be summarized.
 */
export function planSummarization(conversation: Conversation, mode: SummarizationMode, options?: PlanOptions): SummarizationPlan {
	return mode === 'half-context' ? planHalfContext(conversation, options) : planLegacy(conversation, options);
}

/**
 * The same decision with "nothing to summarize" (fallback level 3) as a value: undefined. The one
 * place the planners' NothingToSummarizeError is turned into data; everything that only needs to
 * know whether there is a plan calls this.
 */
export function planOrNothing(conversation: Conversation, mode: SummarizationMode, options?: PlanOptions): SummarizationPlan | undefined {
	try {
		return planSummarization(conversation, mode, options);
	} catch (error) {
		if (error instanceof NothingToSummarizeError) return undefined;
		throw error;
	}
}
