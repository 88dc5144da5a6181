// What the user reads in the chat about each step of the overflow pipeline (fitPrompt.ts).
import type { SummarizationPlan } from '../planning/plan';
import type { FitEvent } from './fitPrompt';
import { describeAttemptsForUser } from '../summaries/summarizationFlow';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line that says what a summarization did. */
export function describePlan(plan: SummarizationPlan): string {
	const fallback = plan.fallbackReason ? `, fell back to legacy: ${plan.fallbackReason}` : '';
	const { summarizedRoundCount: s, keptRoundCount: k } = plan.stats;
	return `Summarized ${plural(s, 'older round')}, kept ${plural(k, 'recent round')} verbatim (${plan.mode}${fallback}).`;
}

export function loopBreakerNotice(why: string): string {
	return `Loop breaker: ${why}. Longhaul stops summarizing with the model for this request and removes the oldest tool results instead when the window fills.`;
}

/** The chat line for an event, without emphasis; undefined for events the user is not told about. */
export function fitNotice(event: FitEvent): string | undefined {
	switch (event.kind) {
		case 'masked':
			return `Replaced ${plural(event.maskedCalls, 'older tool result')} with short placeholders (about ${event.freedTokens} tokens) instead of summarizing; the agent can run those calls again if it needs them.`;
		case 'summarized':
			return (
				describePlan(event.prepared.plan) +
				(event.prepared.blocks.length > 1 ? ` One summary per request: ${event.prepared.blocks.length} blocks.` : '') +
				(event.source === 'prepared' ? ' Prepared in the background.' : '')
			);
		case 'condensed':
			return `Condensed ${plural(event.blocks.length, 'older summary block')} (of ${event.blocks.map(b => `request ${b.turnIndex + 1}`).join(', ')}) to keep every summary within the context window; none was removed.`;
		case 'summary-failed':
			return `The conversation could not be summarized (${describeAttemptsForUser(event.prepared.attempts)}); removing the oldest tool results instead.`;
		case 'loop-breaker':
			return event.scope === 'request'
				? loopBreakerNotice(event.why)
				: `Summaries could not make room this time (${event.why}); Longhaul makes room without a summary this time and summarizes again at the next overflow.`;
		case 'elided':
			return `Removed ${plural(event.calls, 'old tool result')} (about ${event.freedTokens} tokens) to fit the context window.`;
		case 'dropped':
			return `Removed ${plural(event.plan.summarizeRoundIds.length, 'older round')} without a summary to fit the context window; earlier summaries are kept.`;
		case 'cut-newest': {
			const what = [
				...(event.calls > 0 ? [event.calls === 1 ? 'the newest tool result' : `the newest ${event.calls} tool results`] : []),
				...(event.arguments > 0 ? [`the arguments of ${plural(event.arguments, 'call')} that already ran (what they wrote is unchanged)`] : []),
			].join(' and ');
			return `Cut ${what} further (about ${event.freedTokens} tokens; the beginning and the end are kept) to fit the context window: everything older is already summarized or removed.${event.calls > 0 ? ' Call the tool again with narrower arguments for the part that was cut.' : ''}`;
		}
		case 'tightened':
			return event.part === 'requests'
				? 'Summaries alone could not make room: for the rest of this request, earlier requests whose work is summarized are shown by their first lines.'
				: 'Summaries alone could not make room: for the rest of this request, the done-ledger is kept to its base size (older entries merged).';
		case 'summaries-off':
			return 'Automatic summarization is off (`longhaul.autoSummarize`): instead of asking the model for a summary, Longhaul replaces old tool results with placeholders and removes the oldest rounds to fit the context window. `/compact` still summarizes when you ask.';
		case 'mask-declined':
		case 'ledger-off':
			return undefined;
	}
}
