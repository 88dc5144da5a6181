// How each strategy makes a request's prompt fit in the replay. The product modes run the product's
// own Compactor and pipeline (Compactor.fit → fitPrompt), as the agent does; the two reference
// strategies are other agents' rules: truncate-half (Cline) drops the oldest half of the visible
// rounds until the prompt fits; keep-head-tail (OpenHands) keeps the first rounds and the newest up
// to half the budget and summarizes the middle. When the stand-in model refuses a reference's prompt
// (--model-token-ratio), it re-fits once as its agent does on a context-window error: truncate-half
// drops three quarters of the visible rounds (Cline keeps a quarter), keep-head-tail summarizes once
// more with a tail of a quarter of the budget (OpenHands' condensation request); replay.ts
// fitReference counts the refusal and what follows. Every strategy pays the same tool charge
// (toolCharge.ts) and counts the rounds it drops (droppedRounds).
import type { Conversation } from '../../src/common/conversation/conversation';
import { flattenRounds } from '../../src/common/conversation/flatten';
import { layoutPrompt, type PromptEntry } from '../../src/common/conversation/promptLayout';
import type { FitEvent } from '../../src/common/fitting/fitPrompt';
import { tallyFit } from '../../src/common/fitting/fitTally';
import type { SummarizationPlan } from '../../src/common/planning/plan';
import { summarizerEntries } from '../../src/common/summaries/summarizerInput';
import type { Compactor } from '../../src/common/compaction/compactor';
import { agentPromptSteps } from '../../src/prompts/agentPromptSteps';
import { PromptBudgetExceededError, isBudgetExceededError, measureAgentPrompt, renderAgentPrompt } from '../../src/prompts/render';
import { renderEntriesPrompt } from './headTailPrompt';
import { countReferenceCondensePasses, summarizeInReplay } from './replaySummarizer';
import { takePrepared } from './replayCompactor';
import { observeSummary } from '../../src/common/background/latency';
import { compactionGain } from '../../src/common/summaries/compactionGain';
import {
	referenceExtras,
	WORKSPACE,
	agentProps,
	budgetNow,
	inCompaction,
	layoutOptions,
	roundTokens,
	timedRender,
	verbatimFromLayout,
	type Fitted,
	type ReplayState,
} from './replayState';

/** keep-head-tail: summaries one render may make before the prompt counts as an overflow. */
export const HEAD_TAIL_SUMMARIES_PER_RENDER = 2;
/** keep-head-tail: rounds at the start of the session that always stay verbatim. */
export const HEAD_ROUNDS = 2;

/** legacy / half-context (with or without masking): the product's overflow pipeline, as the agent calls it, through the replay's Compactor. */
export async function fitProduct(r: ReplayState, compactor: Compactor, request: string, messageBudget?: number): Promise<Fitted> {
	const { tok } = r;
	r.timing.fitWaitMs = 0;
	r.timing.tookReady = false;
	const props = (c: Conversation) => agentProps(r, c, request);
	// The size of the first render: the prompt this request needs before any compaction (noteCompactionGain).
	let needed: number | undefined;
	const result = await compactor.fit(r.conversation, r.fit, {
		prompt: agentPromptSteps({
			props,
			showsLedger: c => r.continuity.ledgerText(c) !== undefined,
			tokenizer: tok,
			timeRender: render => timedRender(r, () => firstSize(render, size => (needed ??= size))),
		}),
		budget: budgetNow(r),
		messageBudget,
		...(compactor.background ? { takePrepared: (c: Conversation, wait: boolean) => takePrepared(r, compactor, c, wait) } : {}),
		around: {
			summarize: summarize => async (c, part) => {
				const made = await inCompaction(r, () => summarize(c, part));
				const waited = userWaits(r);
				if (made.summary !== undefined && r.clock) r.speed = observeSummary(r.speed, made.attempts, waited);
				return made;
			},
			condense: condense => async (block, target) => {
				const text = await inCompaction(r, () => condense(block, target));
				userWaits(r);
				return text;
			},
		},
		timePlan: plan => timedPlan(r, plan),
	});
	r.conversation = result.conversation;
	await debugFit(r, result.events, props);
	tallyFit(r.tally, result.events);
	noteCompactionWait(
		r,
		result.events.some(e => e.kind === 'summarized'),
		result.events.some(e => e.kind === 'summarized' && e.source === 'model'),
	);
	for (const event of result.events) {
		if (event.kind === 'summarized') {
			r.counters.summarizationsThisRequest++;
			r.counters.compactionsThisRequest++;
		} else if (event.kind === 'dropped') {
			r.counters.compactionsThisRequest++;
		} else if (event.kind === 'condensed') {
			r.blocks.noteCondensed(event.blocks.length);
		}
	}
	const prompt = result.kind === 'fits' ? result.prompt : await measureAgentPrompt(props(r.conversation), tok);
	if (needed !== undefined && result.events.some(e => e.kind === 'summarized' || e.kind === 'dropped')) noteCompactionGain(r, needed, prompt.tokenCount);
	r.blocks.recordRequest(r.conversation, request, prompt.messages);
	return { prompt, overflow: result.kind === 'refused', ...verbatimFromLayout(layoutPrompt(r.conversation, layoutOptions(r))) };
}

/** Runs a render and reports its size: the prompt's tokens, or those of the prompt that did not fit. */
async function firstSize<T>(render: () => Promise<T>, report: (tokens: number) => void): Promise<T> {
	try {
		const rendered = await render();
		report((rendered as { tokenCount: number }).tokenCount);
		return rendered;
	} catch (error) {
		if (error instanceof PromptBudgetExceededError) report(error.tokenCount);
		throw error;
	}
}

/**
 * Whether this request's compactions made its prompt smaller than what it needed before them (the
 * first render; src/common/summaries/compactionGain.ts; the target: always).
 */
function noteCompactionGain(r: ReplayState, needed: number, sent: number): void {
	r.counters.compactedRequestsMeasured++;
	if (!compactionGain(needed, sent).apply) r.counters.compactionsNotSmaller++;
}

/** The summarizer time just spent is the user's: the clock moves on by it. Returns it. */
function userWaits(r: ReplayState): number {
	const ms = r.timing.callMs;
	r.timing.callMs = 0;
	r.clock?.busyFor(ms);
	r.timing.fitWaitMs += ms;
	return ms;
}

/** A fit that attached a summary is a compaction the user may have waited for; served when a ready background summary did it all. */
function noteCompactionWait(r: ReplayState, summarized: boolean, byModel: boolean): void {
	if (!r.clock || !summarized) return;
	r.timing.waits.push(r.timing.fitWaitMs);
	if (r.timing.tookReady && !byModel) r.timing.served++;
}

/** Times a plan and counts its tokenizing (planMs, tokenizedInPlanner). */
function timedPlan<T>(r: ReplayState, plan: () => T): T {
	const start = performance.now();
	const tokenizedBefore = r.tok.stats().tokenizedTokens;
	try {
		return plan();
	} finally {
		r.counters.planMs.push(performance.now() - start);
		const planned = r.tok.stats().tokenizedTokens - tokenizedBefore;
		r.counters.tokenizedInPlanner += planned;
		r.counters.tokenizedInCompaction += planned;
	}
}

/** LONGHAUL_BENCH_DEBUG: each fit's events; =prompt also the prompt's messages when the loop breaker fires. */
async function debugFit(r: ReplayState, events: readonly FitEvent[], props: (c: Conversation) => ReturnType<typeof agentProps>): Promise<void> {
	if (!process.env.LONGHAUL_BENCH_DEBUG || events.length === 0) return;
	process.stderr.write(`fit: ${events.map(describeEvent).join(', ')}\n`);
	if (process.env.LONGHAUL_BENCH_DEBUG !== 'prompt' || !events.some(e => e.kind === 'loop-breaker')) return;
	const shown = await measureAgentPrompt(props(r.conversation), r.tok);
	for (const m of shown.messages) process.stderr.write(`  ${m.role} ${r.mt.countMessageTokens(m)} ${JSON.stringify(m.content).slice(0, 70)}\n`);
}

function withoutDropped(r: ReplayState): Conversation {
	return {
		turns: r.conversation.turns.map(t => ({ ...t, rounds: t.rounds.filter(round => !r.dropped.has(round.id)) })),
		activeRounds: r.conversation.activeRounds.filter(round => !r.dropped.has(round.id)),
	};
}

/** truncate-half: rounds dropped at once when the model refused the prompt (Cline keeps a quarter of the conversation after a context-window error). */
export const REFUSAL_DROP_SHARE = 3 / 4;

/** Drops the oldest `share` of the visible rounds; the number dropped. */
function dropOldest(r: ReplayState, visible: Conversation, share: number): number {
	const start = performance.now();
	const rounds = flattenRounds(visible);
	const drop = Math.floor(rounds.length * share);
	rounds.slice(0, drop).forEach(at => r.dropped.add(at.round.id));
	r.counters.planMs.push(performance.now() - start);
	r.counters.referenceDroppedRounds += drop;
	if (drop > 0) r.counters.compactionsThisRequest++;
	return drop;
}

/**
 * truncate-half (Cline): drop the oldest half of the visible rounds, no summary, until it fits.
 * `afterRefusal`: the model refused the last prompt, so first drop REFUSAL_DROP_SHARE of them.
 */
export async function fitTruncateHalf(r: ReplayState, request: string, afterRefusal = false): Promise<Fitted> {
	if (afterRefusal) dropOldest(r, withoutDropped(r), REFUSAL_DROP_SHARE);
	for (;;) {
		const visible = withoutDropped(r);
		try {
			const prompt = await timedRender(r, () => renderAgentPrompt(agentProps(r, visible, request), { tokenizer: r.tok, budget: r.budget.messages }));
			return { prompt, overflow: false, ...verbatimFromLayout(layoutPrompt(visible)) };
		} catch (error) {
			if (!isBudgetExceededError(error)) throw error;
		}
		if (dropOldest(r, visible, 1 / 2) === 0) {
			const measured = await measureAgentPrompt(agentProps(r, visible, request), r.tok);
			return { prompt: measured, overflow: true, ...verbatimFromLayout(layoutPrompt(visible)) };
		}
	}
}

type LayoutItem = { kind: 'user'; entry: PromptEntry } | { kind: 'round'; flat: ReturnType<typeof flattenRounds>[number] };

/** Every round in order, with each past turn's user message (and the request slot) ahead of its rounds. */
function flattenRoundsWithUsers(conversation: Conversation): LayoutItem[] {
	const flat = flattenRounds(conversation);
	const items: LayoutItem[] = [];
	let i = 0;
	conversation.turns.forEach((turn, turnIndex) => {
		items.push({ kind: 'user', entry: { kind: 'user', turnIndex, text: turn.user } });
		for (let k = 0; k < turn.rounds.length; k++) items.push({ kind: 'round', flat: flat[i++] });
	});
	items.push({ kind: 'user', entry: { kind: 'request' } });
	for (let k = 0; k < conversation.activeRounds.length; k++) items.push({ kind: 'round', flat: flat[i++] });
	return items;
}

/** keep-head-tail layout: users verbatim, head rounds, the summary where the summarized middle ends, the rest verbatim. */
function headTailEntries(r: ReplayState): PromptEntry[] {
	const entries: PromptEntry[] = [];
	for (const at of flattenRoundsWithUsers(r.conversation)) {
		if (at.kind === 'user') {
			entries.push(at.entry);
			continue;
		}
		const { round } = at.flat;
		const location = { source: at.flat.source, turnIndex: at.flat.turnIndex, roundIndex: at.flat.roundIndex };
		if (r.summarized.has(round.id)) {
			if (r.headTailSummary && round.id === r.headTailSummary.roundId) {
				entries.push({ kind: 'summary', roundId: round.id, text: r.headTailSummary.text, location });
			}
			continue;
		}
		entries.push({ kind: 'round', round, location, interrupted: round.toolCalls.some(c => c.result === undefined) });
	}
	return entries;
}

/** keep-head-tail's middle: the rounds after the head and before the newest that fit in `tailShare` of the budget. */
function headTailMiddle(r: ReplayState, tailShare: number): string[] {
	const start = performance.now();
	const candidates = flattenRounds(r.conversation).filter(at => !r.headIds.has(at.round.id) && !r.summarized.has(at.round.id));
	let tailTokens = 0;
	let tailStart = candidates.length;
	while (tailStart > 0) {
		const cost = roundTokens(r, candidates[tailStart - 1].round);
		if (tailStart < candidates.length && tailTokens + cost > r.budget.messages * tailShare) break;
		tailTokens += cost;
		tailStart--;
	}
	r.counters.planMs.push(performance.now() - start);
	return candidates.slice(0, tailStart).map(at => at.round.id);
}

/** keep-head-tail: the tail's share of the budget, and after the model refused a prompt (OpenHands then asks its condenser for a condensation, which keeps half as much). */
export const HEAD_TAIL_SHARE = 1 / 2;
export const HEAD_TAIL_SHARE_AFTER_REFUSAL = 1 / 4;

/**
 * keep-head-tail (OpenHands): keep the first rounds and the newest up to half the budget; summarize
 * the middle. `afterRefusal`: the model refused the last prompt, so summarize once more at once,
 * keeping a tail of HEAD_TAIL_SHARE_AFTER_REFUSAL.
 */
export async function fitHeadTail(r: ReplayState, request: string, afterRefusal = false): Promise<Fitted> {
	for (let compactions = 0; ; compactions++) {
		const tailShare = afterRefusal ? HEAD_TAIL_SHARE_AFTER_REFUSAL : HEAD_TAIL_SHARE;
		const entries = headTailEntries(r);
		const prompt = await timedRender(r, () =>
			renderEntriesPrompt({ entries, request, ...referenceExtras(r), workspace: WORKSPACE, maxToolResultTokens: r.maxToolResultTokens }, r.tok),
		);
		const forced = afterRefusal && compactions === 0;
		if (prompt.tokenCount <= r.budget.messages && !forced) return { prompt, overflow: false, ...verbatimFromLayout(entries) };
		if (compactions >= HEAD_TAIL_SUMMARIES_PER_RENDER) return { prompt, overflow: true, ...verbatimFromLayout(entries) };
		const middle = headTailMiddle(r, tailShare);
		if (middle.length === 0) return { prompt, overflow: !forced, ...verbatimFromLayout(entries) };
		const plan = { summarizeRoundIds: middle } as unknown as SummarizationPlan;
		const made = await inCompaction(r, () => summarizeInReplay(r, summarizerEntries(r.conversation, plan, request), r.headTailSummary?.text, 'reference'));
		userWaits(r);
		countReferenceCondensePasses(r, made);
		if (made.summary === undefined) return { prompt, overflow: prompt.tokenCount > r.budget.messages, ...verbatimFromLayout(entries) };
		middle.forEach(id => r.summarized.add(id));
		r.headTailSummary = { text: made.summary, roundId: middle[middle.length - 1] };
		r.counters.referenceSummarizations++;
		r.counters.summarizationsThisRequest++;
		r.counters.compactionsThisRequest++;
	}
}

/** One fit event in a few words, for LONGHAUL_BENCH_DEBUG traces. */
function describeEvent(event: FitEvent): string {
	switch (event.kind) {
		case 'summarized':
			return `summarized(${event.source}, ${event.prepared.plan.summarizeRoundIds.length} rounds, kept ${event.prepared.plan.stats.tokens?.kept ?? '?'} tokens)`;
		case 'loop-breaker':
			return `loop-breaker(${event.scope}: ${event.why})`;
		case 'elided':
		case 'cut-newest':
			return `${event.kind}(${event.calls} calls, need ${event.neededTokens})`;
		case 'dropped':
			return `dropped(${event.plan.summarizeRoundIds.length} rounds, need ${event.neededTokens})`;
		default:
			return event.kind;
	}
}
