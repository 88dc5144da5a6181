// What the overflow pipeline (fitPrompt.ts) remembers for the length of one chat request: the loop
// breaker's watch on repeated calls, whether it has stopped model summaries, whether the
// done-ledger was left out, what is shown tight, and whether the user was told automatic summaries
// are off. A new request starts with a new one.
import { newRepeatTracker, noteCall, REPEATS_AFTER_SUMMARY, type RepeatTracker } from './loopBreaker';

export interface FitMemory {
	readonly repeats: RepeatTracker;
	/** Set when the loop breaker stopped summarizing with the model for this request: why. */
	modelSummariesStopped?: string;
	/** The done-ledger is left out until the next summary of the request: nothing else was left to remove. */
	ledgerSuspended: boolean;
	/**
	 * Parts of the prompt that are not rounds, shown tight when summaries alone could not make room
	 * (fitPrompt.ts): `requests`, every past request whose work is summarized shortened to its first
	 * lines, for the rest of the request; `ledger`, the done-ledger within its base size too, until
	 * the next summary or until model summaries stop.
	 */
	tight: 'none' | 'requests' | 'ledger';
	/** The user has been told that automatic summaries are off (longhaul.autoSummarize), once per request. */
	toldSummariesOff?: boolean;
}

export function newFitMemory(): FitMemory {
	return { repeats: newRepeatTracker(), ledgerSuspended: false, tight: 'none' };
}

/**
 * Records a finished tool call; when it is the third identical call with an identical result right
 * after a summary, stops model summaries for the request and returns why (once).
 */
export function noteToolCall(memory: FitMemory, name: string, args: string, result: string | undefined): string | undefined {
	if (!noteCall(memory.repeats, name, args, result) || memory.modelSummariesStopped) return undefined;
	memory.modelSummariesStopped = `right after a summary the agent called ${name} with the same arguments and got the same result ${REPEATS_AFTER_SUMMARY} times`;
	return memory.modelSummariesStopped;
}
