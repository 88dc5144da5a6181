// What the overflow pipeline's callers (the agent loop, the replay benchmark) share about a prompt
// the provider refused as too long, and about how a fit ended.
import type { FitEvent } from './fitPrompt';
import type { PromptTooLong } from '../tokens/promptTooLong';

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

/** How one model call is sent again after the provider refused its prompt as too long. */
export interface RefusalRetry<P, R> {
	/** Sends `prompt`; `streamed()` is called before the first text reaches the user. */
	send(prompt: P, streamed: () => void): Promise<R>;
	/** The refusal an error stands for, or undefined for any other error (then it is thrown as it was). */
	recognize(error: unknown): PromptTooLong | undefined;
	isCancelled(): boolean;
	/** Learns from the refusal of `prompt` (the token ratio tightens) and returns the new ratio. */
	rejected(refusal: PromptTooLong, prompt: P): number;
	/** The prompt made to fit again at the tightened count, after the user has been told (`ratio`). */
	refit(prompt: P, refusal: PromptTooLong, ratio: number): Promise<P>;
	/** The error that ends the request after the second refusal. */
	giveUp(refusal: PromptTooLong, ratio: number): Error;
}

/**
 * Sends a prompt; on a refusal as too long (providers count with their own tokenizer, and some
 * accept less than they advertise), learns from it, refits and sends once more; a second refusal
 * ends with `giveUp`. Nothing the model streamed is sent twice: a failure after the first streamed
 * text is not retried, nor one after cancellation. Every other error is thrown as it was.
 */
export async function sendWithOneRefit<P, R>(prompt: P, steps: RefusalRetry<P, R>): Promise<R> {
	let sent = prompt;
	for (let attempt = 0; ; attempt++) {
		let streamed = false;
		try {
			return await steps.send(sent, () => (streamed = true));
		} catch (error) {
			const refusal = streamed || steps.isCancelled() ? undefined : steps.recognize(error);
			if (!refusal) throw error;
			const ratio = steps.rejected(refusal, sent);
			if (attempt > 0) throw steps.giveUp(refusal, ratio);
			sent = await steps.refit(sent, refusal, ratio);
		}
	}
}
