// The replay's Compactor (src/common/compaction/compactor.ts): the same object the agent builds per
// request (src/agent/requestCompactor.ts), built once per replayed session of a product strategy
// around the stand-in summarizer (replaySummarizer.ts). With a virtual clock it also runs the
// product's background summaries: a job's summary is written at once, but it is ready only when its
// calls have had their time on the provider (providerQueue.ts: behind the agent's own calls with one
// slot) and the clock has passed that; an overflow before that waits for the rest. Work still
// pending when the recording ends is counted as discarded (the agent would carry it over, but no
// later request of this session uses it).
import { observeSummary } from '../../src/common/background/latency';
import { Compactor, type BackgroundParts, type CompactorSettings } from '../../src/common/compaction/compactor';
import type { Conversation } from '../../src/common/conversation/conversation';
import type { PreparedSummary } from '../../src/common/fitting/preparedSummary';
import { summarizerEntries } from '../../src/common/summaries/summarizerInput';
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

/** The Compactor of a product-mode replay: the stand-in summarizer, the learned speed and, with a clock, background summaries (one chain for the whole session: a job carries over to the next request, as in the agent). */
export function replayCompactor(r: ReplayState, settings: CompactorSettings): Compactor {
	return new Compactor({
		settings,
		budget: () => budgetNow(r),
		countTokens: text => r.tok.countTokens(text),
		summarizer: {
			summarize: (c, part) => summarizeInReplay(r, summarizerEntries(c, part, r.request), part.previousSummary?.text),
			condense: (block, target) => condenseInReplay(r, block, target),
		},
		speed: () => r.speed,
		...(r.clock && r.options.background !== false ? { background: backgroundJobs(r) } : {}),
	});
}

/** Background jobs on the virtual clock: their model calls take clock time of their own, not the user's. */
function backgroundJobs(r: ReplayState): BackgroundParts {
	const clock = r.clock!;
	return {
		start: ahead => {
			const startedAt = clock.now;
			let finishedMs = 0;
			let durationMs = 0;
			let summaryMs = 0;
			let condensed = 0;
			const current = r.request;
			// The job's model calls take clock time of their own, not the user's: moved out of callMs into the job's duration.
			const onJobClock = <T>(call: () => Promise<T>) =>
				inCompaction(r, async () => {
					const before = r.timing.callMs;
					const made = await call();
					durationMs += r.timing.callMs - before;
					r.timing.callMs = before;
					return made;
				});
			const done = ahead({
				summarize: (c, part) => onJobClock(() => summarizeInReplay(r, summarizerEntries(c, part, current), part.previousSummary?.text, 'background')),
				condense: (block, target) => {
					summaryMs ||= durationMs;
					const before = r.counters.summarizerInputTokens + r.counters.summarizerOutputTokens;
					return onJobClock(() => condenseInReplay(r, block, target)).finally(() => {
						condensed += r.counters.summarizerInputTokens + r.counters.summarizerOutputTokens - before;
					});
				},
			}).then(prepared => {
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
	};
}

/** fitPrompt's takePrepared step: the prepared summary if it applies; the user waits for the rest of a job under way. */
export async function takePrepared(r: ReplayState, compactor: Compactor, conversation: Conversation, wait: boolean): Promise<PreparedSummary | undefined> {
	if (!compactor.background || !r.clock) return undefined;
	const state = compactor.background.state();
	const taken = wait ? await queueOf(r).queue.drainingHead(() => compactor.takePrepared(conversation)) : await takeIfReady(r, compactor, conversation);
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

/** Without waiting (the bridge): jobs whose provider time is over are settled, then the head is taken only if it is done. */
async function takeIfReady(r: ReplayState, compactor: Compactor, conversation: Conversation) {
	queueOf(r).queue.settle();
	await new Promise(resolve => setImmediate(resolve)); // the settled jobs record their end
	return compactor.takePrepared(conversation, false);
}

/** The recording ends: jobs still pending would go to the next request in the agent; no later request uses them, so they are discarded (and counted apart too). */
export async function endBackground(r: ReplayState): Promise<void> {
	const background = r.compactor?.background;
	if (!background) return;
	const { queue, pending } = queueOf(r);
	queue.drainAll();
	await Promise.all(pending);
	const carried = background.handOver();
	for (const job of carried?.jobs ?? []) {
		if (!job.result) continue;
		r.timing.pendingAtEndTokens += summaryTokens(job.result);
		r.timing.discardedTokens += summaryTokens(job.result);
	}
}
