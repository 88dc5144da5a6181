// Background summaries in the replay, through the product's own rule (src/common/background): the
// same start rule, job life and applicability check as the agent, given the replay's virtual clock
// and the stand-in summarizer. A job's summary is written at once, but it is ready only when its
// calls have had their time on the provider (providerQueue.ts: behind the agent's own calls with one
// slot) and the clock has passed that; an overflow before that waits for the rest. Work still
// pending when the recording ends is counted as discarded (the agent would carry it over, but no
// later request of this session uses it).
import { BackgroundSummaries } from '../../src/common/background/backgroundJob';
import { observeSummary } from '../../src/common/background/latency';
import type { Conversation } from '../../src/common/conversation/conversation';
import { fitPlanOptions } from '../../src/common/fitting/fitPrompt';
import { makeSummaryAhead, type PreparedSummary } from '../../src/common/fitting/preparedSummary';
import { planOrNothing } from '../../src/common/planning/planners';
import { summarizerEntries } from '../../src/common/summaries/summarizerInput';
import { summaryLength } from '../../src/common/summaries/summaryLength';
import type { CondensedAhead } from '../../src/common/summaries/condenseBlocks';
import { summaryBudget } from '../../src/common/tokens/budget';
import { fitOptionsFor, type FitSettings } from '../../src/prompts/fitAgentPrompt';
import { condenseInReplay, summarizeInReplay } from './replaySummarizer';
import { budgetNow, inCompaction, type ReplayState } from './replayState';
import { ProviderQueue } from './providerQueue';

/** The provider's queue of a replay's background jobs (one per replay state). */
const queues = new WeakMap<ReplayState, { queue: ProviderQueue; pending: Promise<unknown>[] }>();

function queueOf(r: ReplayState) {
	let entry = queues.get(r);
	if (!entry) {
		entry = { queue: new ProviderQueue(r.clock!, r.options.providerConcurrency ?? 1), pending: [] };
		queues.set(r, entry);
	}
	return entry;
}

/** The clock moved: background jobs whose provider time is over are settled. */
export function settleBackground(r: ReplayState): void {
	queues.get(r)?.queue.settle();
}

/** The product's latest point to start (longhaul.backgroundSummarizationThreshold's default, 80 %). */
export const LATEST_SHARE = 0.8;

/** Tokens (in and out) of the calls that condensed older blocks ahead, by the prepared summary they came with. */
const condenseTokens = new WeakMap<PreparedSummary, number>();

/** Summarizer tokens (in and out) of a prepared summary's calls, its condensations ahead included. */
function summaryTokens(prepared: PreparedSummary): number {
	return prepared.attempts.reduce((n, a) => n + (a.promptTokens ?? 0) + (a.summaryTokens ?? 0), 0) + (condenseTokens.get(prepared) ?? 0);
}

/** The background summaries of a product-mode replay with a clock; one for the whole session (a job carries over to the next request, as in the agent). */
export function newReplayBackground(r: ReplayState, settings: FitSettings, request: () => string): BackgroundSummaries {
	const clock = r.clock!;
	/** Older blocks condensed ahead by earlier jobs, as the agent keeps them (a later job of the chain takes them instead of asking again). */
	const condensedAhead = new Map<string, CondensedAhead>();
	return new BackgroundSummaries({
		plan: c =>
			planOrNothing(
				c,
				settings.mode,
				fitPlanOptions(fitOptionsFor(settings, budgetNow(r)), text => r.tok.countTokens(text)),
			),
		summarize: (conversation, plan) => {
			const startedAt = clock.now;
			let finishedMs = 0;
			let durationMs = 0;
			let summaryMs = 0;
			let condensed = 0;
			const current = request();
			// The job's model calls take clock time of their own, not the user's: moved out of callMs into the job's duration.
			const onJobClock = <T>(call: () => Promise<T>) =>
				inCompaction(r, async () => {
					const before = r.timing.callMs;
					const made = await call();
					durationMs += r.timing.callMs - before;
					r.timing.callMs = before;
					return made;
				});
			const done = makeSummaryAhead(
				conversation,
				plan,
				(c, part) => onJobClock(() => summarizeInReplay(r, summarizerEntries(c, part, current), part.previousSummary?.text, 'background')),
				{
					budgetTokens: summaryBudget(budgetNow(r)),
					countTokens: text => r.tok.countTokens(text),
					condense: (block, target) => {
						summaryMs ||= durationMs;
						const before = r.counters.summarizerInputTokens + r.counters.summarizerOutputTokens;
						return onJobClock(() => condenseInReplay(r, block, target)).finally(() => {
							condensed += r.counters.summarizerInputTokens + r.counters.summarizerOutputTokens - before;
						});
					},
					memory: condensedAhead,
				},
			).then(prepared => {
				// The speed learned is the summary's alone: condensing older blocks is not part of it.
				if (prepared.blocks) r.speed = observeSummary(r.speed, prepared.attempts, summaryMs || durationMs);
				if (condensed) condenseTokens.set(prepared, condensed);
				return new Promise<PreparedSummary>(resolve =>
					queueOf(r).queue.add(startedAt, durationMs, finishedAt => {
						finishedMs = finishedAt - startedAt;
						resolve(prepared);
					}),
				);
			});
			queueOf(r).pending.push(done);
			return { done, durationMs: () => finishedMs, cancel: () => {} };
		},
		now: () => clock.now,
		onUnused: prepared => (r.timing.discardedTokens += summaryTokens(prepared)),
	});
}

/** After a fitted prompt: maybe start the next summary (the product's start rule). */
export function considerBackground(r: ReplayState, conversation: Conversation, promptTokens: number): void {
	if (!r.background || r.fit.modelSummariesStopped) return;
	const budget = budgetNow(r);
	r.background.consider(conversation, {
		promptTokens,
		messageBudget: budget.messages,
		latestShare: LATEST_SHARE,
		expectedSummaryTokens: summaryLength(summaryBudget(budget)).targetTokens,
		speed: r.speed,
	});
}

/** fitPrompt's takePrepared step: the prepared summary if it applies; the user waits for the rest of a job under way. */
export async function takePrepared(r: ReplayState, conversation: Conversation): Promise<PreparedSummary | undefined> {
	if (!r.background || !r.clock) return undefined;
	const state = r.background.state();
	const taken = await queueOf(r).queue.drainingHead(() => r.background!.takeAtOverflow(conversation));
	if (process.env.LONGHAUL_BENCH_DEBUG === 'clock') {
		process.stderr.write(
			`overflow at ${Math.round(r.clock.now / 1000)} s: ${state.kind}${state.kind === 'preparing' ? ` for ${Math.round(state.forMs / 1000)} s` : ''}, waited ${Math.round(taken.waitedMs / 1000)} s, ${taken.prepared ? 'used' : 'not used'}\n`,
		);
	}
	r.clock.advance(taken.waitedMs);
	r.timing.fitWaitMs += taken.waitedMs;
	if (taken.prepared && taken.wasReady) r.timing.tookReady = true;
	return taken.prepared;
}

/** The recording ends: jobs still pending would go to the next request in the agent; no later request uses them, so they are discarded (and counted apart too). */
export async function endBackground(r: ReplayState): Promise<void> {
	if (!r.background) return;
	const { queue, pending } = queueOf(r);
	queue.drainAll();
	await Promise.all(pending);
	const carried = r.background.handOver();
	for (const job of carried?.jobs ?? []) {
		if (!job.result) continue;
		r.timing.pendingAtEndTokens += summaryTokens(job.result);
		r.timing.discardedTokens += summaryTokens(job.result);
	}
}
