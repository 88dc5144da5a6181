// What the overflow pipeline's callers (the agent loop, the replay benchmark) share about a prompt
// the provider refused as too long, and about how a fit ended.
import type { FitEvent } from './fitPrompt';

/**
 * The message budget of the one retry after a refusal: the refused prompt scaled by how much the
 * token ratio tightened, or the new budget if that is smaller. Without numbers in the error the new
 * budget alone may still hold the refused prompt, and the same prompt must not be sent again.
 */
export function retryMessageBudget(refusedTokens: number, ratioBefore: number, ratioAfter: number, budgetMessages: number): number {
	return Math.max(0, Math.min(budgetMessages, Math.floor((refusedTokens * ratioBefore) / ratioAfter)));
}

/** True when the model's summary failed in this fit and old tool results or rounds were removed instead. */
export function truncatedAfterFailedSummary(events: readonly FitEvent[]): boolean {
	const failedAt = events.findIndex(e => e.kind === 'summary-failed');
	return failedAt >= 0 && events.slice(failedAt).some(isTruncation);
}

/** A step that removed or cut conversation content without a summary standing for it. */
export function isTruncation(event: FitEvent): boolean {
	return event.kind === 'elided' || event.kind === 'dropped' || event.kind === 'cut-newest';
}
