// What each step of the overflow pipeline (fitPrompt.ts) says: what the user reads in the chat, as
// messages the agent translates (src/common/text/message.ts), and the Longhaul log's line.
import type { SummarizationPlan } from '../planning/plan';
import type { FitEvent } from './fitPrompt';
import { describeAttemptsForUser } from '../summaries/summarizationFlow';
import { message, plural, type Message } from '../text/message';

/** One line that says what a summarization did. */
export function describePlan(plan: SummarizationPlan): Message {
	const { summarizedRoundCount: s, keptRoundCount: k } = plan.stats;
	const summarized = plural(s, '{0} older round', '{0} older rounds');
	const kept = plural(k, '{0} recent round', '{0} recent rounds');
	return plan.fallbackReason
		? message('Summarized {0}, kept {1} verbatim ({2}, fell back to legacy: {3}).', summarized, kept, plan.mode, plan.fallbackReason)
		: message('Summarized {0}, kept {1} verbatim ({2}).', summarized, kept, plan.mode);
}

export function loopBreakerNotice(why: string): Message {
	return message(
		'Loop breaker: {0}. Longhaul stops summarizing with the model for this request and removes the oldest tool results instead when the window fills.',
		why,
	);
}

/** The chat line for an event, without emphasis, as sentences; undefined for events the user is not told about. */
export function fitNotice(event: FitEvent): Message[] | undefined {
	switch (event.kind) {
		case 'masked':
			return [
				message(
					'Replaced {0} with short placeholders (about {1} tokens) instead of summarizing; the agent can run those calls again if it needs them.',
					plural(event.maskedCalls, '{0} older tool result', '{0} older tool results'),
					event.freedTokens,
				),
			];
		case 'summarized':
			return [
				describePlan(event.prepared.plan),
				...(event.prepared.blocks.length > 1 ? [message('One summary per request: {0} blocks.', event.prepared.blocks.length)] : []),
				...(event.source === 'background' ? [message('Prepared in the background.')] : []),
			];
		case 'condensed':
			return [condensedNotice(event.blocks.map(b => b.turnIndex))];
		case 'summary-failed':
			return [
				message('The conversation could not be summarized ({0}); removing the oldest tool results instead.', describeAttemptsForUser(event.prepared.attempts)),
			];
		case 'loop-breaker':
			return [
				event.scope === 'request'
					? loopBreakerNotice(event.why)
					: message(
							'Summaries could not make room this time ({0}); Longhaul makes room without a summary this time and summarizes again at the next overflow.',
							event.why,
						),
			];
		case 'elided':
			return [
				message(
					'Removed {0} (about {1} tokens) to fit the context window.',
					plural(event.calls, '{0} old tool result', '{0} old tool results'),
					event.freedTokens,
				),
			];
		case 'dropped':
			return [
				message(
					'Removed {0} without a summary to fit the context window; earlier summaries are kept.',
					plural(event.plan.summarizeRoundIds.length, '{0} older round', '{0} older rounds'),
				),
			];
		case 'cut-newest':
			return cutNewestNotice(event.calls, event.arguments, event.freedTokens);
		case 'tightened':
			return [
				event.part === 'requests'
					? message(
							'Summaries alone could not make room: for the rest of this request, earlier requests whose work is summarized are shown by their first lines.',
						)
					: message('Summaries alone could not make room: for the rest of this request, the done-ledger is kept to its base size (older entries merged).'),
			];
		case 'summaries-off':
			return [
				message(
					'Automatic summarization is off (`longhaul.autoSummarize`): instead of asking the model for a summary, Longhaul replaces old tool results with placeholders and removes the oldest rounds to fit the context window. `/compact` still summarizes when you ask.',
				),
			];
		case 'bridged':
			return [setAsideNotice(event)];
		case 'mask-declined':
		case 'ledger-off':
			return undefined;
	}
}

/** The bridge (decision 43) made room without waiting for the summary under way: one line at that step. */
function setAsideNotice(event: Extract<FitEvent, { kind: 'bridged' }>): Message {
	return event.setAsideRounds > 0
		? message('{0} set aside while their summary is written; the agent did not wait.', plural(event.setAsideRounds, '{0} older round', '{0} older rounds'))
		: message(
				'Shortened {0} (about {1} tokens) while their summary is written; the agent did not wait, and they come back whole when it is ready.',
				plural(event.calls, '{0} older tool result', '{0} older tool results'),
				event.freedTokens,
			);
}

/** The oldest blocks were condensed (turn indexes, 0-based). */
export function condensedNotice(turnIndexes: readonly number[]): Message {
	return message(
		'Condensed {0} (of {1}) to keep every summary within the context window; none was removed.',
		plural(turnIndexes.length, '{0} older summary block', '{0} older summary blocks'),
		turnIndexes.map(t => `request ${t + 1}`).join(', '),
	);
}

function cutNewestNotice(calls: number, args: number, freedTokens: number): Message[] {
	const results = calls === 1 ? message('the newest tool result') : message('the newest {0} tool results', calls);
	const calledArgs = message('the arguments of {0} that already ran (what they wrote is unchanged)', plural(args, '{0} call', '{0} calls'));
	const what = calls > 0 && args > 0 ? message('{0} and {1}', results, calledArgs) : calls > 0 ? results : calledArgs;
	return [
		message(
			'Cut {0} further (about {1} tokens; the beginning and the end are kept) to fit the context window: everything older is already summarized or removed.',
			what,
			freedTokens,
		),
		...(calls > 0 ? [message('Call the tool again with narrower arguments for the part that was cut.')] : []),
	];
}

/** The Longhaul log's line for a step of the bridge: rounds set aside, or tool results elided. */
function bridgeLogLine(event: Extract<FitEvent, { kind: 'bridged' }>): string {
	return event.setAsideRounds > 0
		? `bridge: set aside the ${event.setAsideRounds} oldest rounds while their summary is prepared in the background`
		: `bridge: elided the ${event.calls} oldest tool results (${event.freedTokens} tokens) while a summary is prepared in the background`;
}

/** The Longhaul log's line for an event (never text of the conversation); undefined for events the log does not record here. */
export function fitLogLine(event: FitEvent): string | undefined {
	switch (event.kind) {
		case 'masked':
			return `masking: ${event.maskedCalls} older tool results (${event.duplicateCalls} duplicates), ${event.freedTokens} tokens freed, ${event.keptRoundCount} rounds kept intact`;
		case 'mask-declined':
			return `masking declined (${event.reason}): ${event.olderPartTokens} tokens in the older rounds`;
		case 'loop-breaker':
			return `loop breaker (${event.scope}): ${event.why}`;
		case 'elided':
			return `truncation: elided ${event.calls} tool results, ${event.freedTokens} tokens`;
		case 'bridged':
			return bridgeLogLine(event);
		case 'condensed':
			return `condensed ${event.blocks.length} older summary blocks (${event.ahead} prepared in the background): ${event.blocks.map(b => `turn ${b.turnIndex} ${b.fromTokens}->${b.toTokens} (${b.by})`).join(', ')}`;
		case 'dropped':
			return `truncation: dropped ${event.plan.summarizeRoundIds.length} rounds without a summary`;
		case 'cut-newest':
			return `truncation: cut ${event.calls} of the newest round's tool results and ${event.arguments} of its calls' arguments further, ${event.freedTokens} tokens`;
		case 'ledger-off':
			return 'truncation: done-ledger left out of this request';
		case 'tightened':
			return `truncation: ${event.part === 'requests' ? 'past requests shortened' : 'done-ledger within its base size'} for the rest of this request`;
		case 'summaries-off':
			return 'summarization: automatic summaries are off (longhaul.autoSummarize); masking and truncation only';
		default:
			return undefined;
	}
}

/** What a request did to make its prompts fit, for the one line at the end of its response. */
export interface CompactionFacts {
	readonly mode: 'half-context' | 'legacy';
	/** Summaries made (at overflows, in the background, by /compact). */
	readonly summaries: number;
	/** The recent rounds each summary kept verbatim. */
	readonly keptRounds: readonly number[];
	/** The rounds verbatim in the request's last prompt (said when no summary was made to say what it kept). */
	readonly verbatimRounds: number;
	/** Steps that set rounds aside while their summary was written, and the most rounds set aside at once. */
	readonly setAsideSteps: number;
	readonly mostSetAside: number;
	/** Old tool results replaced by placeholders, and tool results or rounds removed without a summary. */
	readonly masked: number;
	readonly removed: number;
	/** Each wait for a summary, ms. */
	readonly waitsMs: readonly number[];
}

/**
 * The one line at the end of a response that compacted (after the final answer, so never folded):
 * the mode, summaries made, recent rounds kept verbatim, rounds set aside, waits. Undefined when the
 * request did none of it.
 */
export function compactionLine(facts: CompactionFacts): Message | undefined {
	if (!facts.summaries && !facts.setAsideSteps && !facts.masked && !facts.removed) return undefined;
	const parts: Message[] = [plural(facts.summaries, '{0} summary made', '{0} summaries made')];
	if (facts.keptRounds.length) {
		const least = Math.min(...facts.keptRounds);
		const most = Math.max(...facts.keptRounds);
		parts.push(
			least === most
				? plural(least, '{0} recent round kept verbatim', '{0} recent rounds kept verbatim')
				: message('{0}–{1} recent rounds kept verbatim', least, most),
		);
	} else {
		parts.push(plural(facts.verbatimRounds, '{0} recent round kept verbatim', '{0} recent rounds kept verbatim'));
	}
	if (facts.setAsideSteps) {
		parts.push(
			message(
				'{0} set aside while their summary was written ({1})',
				plural(facts.mostSetAside, 'up to {0} round', 'up to {0} rounds'),
				plural(facts.setAsideSteps, '{0} time', '{0} times'),
			),
		);
	}
	if (facts.masked) parts.push(plural(facts.masked, '{0} old tool result replaced by a placeholder', '{0} old tool results replaced by placeholders'));
	if (facts.removed) parts.push(plural(facts.removed, '{0} old tool result or round removed', '{0} old tool results or rounds removed'));
	const waited = facts.waitsMs.reduce((n, ms) => n + ms, 0);
	parts.push(
		facts.waitsMs.length
			? message(
					'waited for a summary {0} ({1} s in all)',
					plural(facts.waitsMs.length, '{0} time', '{0} times'),
					waited < 100 ? '<0.1' : (waited / 1000).toFixed(1),
				)
			: message('no wait for a summary'),
	);
	const mode = facts.mode === 'half-context' ? message('Half-context mode') : message('Legacy mode');
	return parts.slice(1).reduce((line, part) => message('{0}, {1}', line, part), message('{0}: {1}', mode, parts[0]));
}
