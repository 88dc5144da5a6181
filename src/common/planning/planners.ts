// The summarization planners behind one entry point. The setting
// `longhaul.halfContextSummarization` picks the mode; see docs/planning.md for the rules.
import type { Conversation } from '../conversation/conversation';
import { planHalfContext } from './halfContextPlanner';
import { planLegacy } from './legacyPlanner';
import type { SummarizationMode, SummarizationPlan } from './plan';
import type { PlanOptions } from './planParts';

export { applySummary, UnknownRoundError } from '../summaries/applySummary';
export { halfContextKeepCount, planHalfContext } from './halfContextPlanner';
export { planLegacy } from './legacyPlanner';
export type { PlanOptions } from './planParts';

/**
 * Decides which rounds the summarizer absorbs and which stay verbatim. Deterministic; never
 * mutates its input. Throws `NothingToSummarizeError` when no unsummarized round would be summarized.
 */
export function planSummarization(conversation: Conversation, mode: SummarizationMode, options?: PlanOptions): SummarizationPlan {
	return mode === 'half-context' ? planHalfContext(conversation, options) : planLegacy(conversation, options);
}
