// The replay's Compactor (src/common/compaction/compactor.ts): the same object the agent builds per
// request (src/agent/requestCompactor.ts), built once per replayed session of a product strategy
// around the stand-in summarizer (replaySummarizer.ts). With a virtual clock it also runs the
// product's background summaries: a job enters the provider's queue at its virtual start
// (providerQueue.ts: cloud or single-slot), its summary and its calls' durations are computed at
// once (computeBackground, awaited before the clock moves again), and it is ready only when its calls
// have had their time on the provider and the clock has passed that; an overflow before that waits
// for the rest. So where a job lands depends on virtual time alone, not on promise timing. Work
// still pending when the recording ends is counted as discarded (the agent would carry it over, but
// no later request of this session uses it); its tokens are in the summarizer tokens all the same.
import { observeSummary } from '../../src/common/background/latency';
import { Compactor, type BackgroundParts, type CompactorSettings } from '../../src/common/compaction/compactor';
import type { Conversation } from '../../src/common/conversation/conversation';
import type { PreparedSummary } from '../../src/common/fitting/preparedSummary';
import { summarizerEntries } from '../../src/common/summaries/summarizerInput';
import { condenseInReplay, summarizeInReplay, type CallMeter } from './replaySummarizer';
import { budgetNow, inCompaction, type ReplayState } from './replayState';
import { ProviderQueue } from './providerQueue';

/** The provider's queue of a replay's background jobs (one per replay state), the jobs still being computed, and the jobs' promises. */
interface Background {
	readonly queue: ProviderQueue;
	/** Jobs started and not computed yet, oldest first. */
	readonly toCompute: (() => Promise<void>)[];
	readonly pending: Promise<unknown>[];
	jobs: number;
}
const queues = new WeakMap<ReplayState, Background>();

function queueOf(r: ReplayState): Background {
	let entry = queues.get(r);
	if (!entry) {
		entry = { queue: new ProviderQueue(r.clock!, r.options.provider ?? 'cloud'), toCompute: [], pending: [], jobs: 0 };
		queues.set(r, entry);
	}
	return entry;
}

/**
 * Every background job started so far gets its summary and its calls' durations, one after the
 * other (awaited after each fit and before the clock moves): no job's work overlaps the fit's or
 * another job's, whatever the promise timing.
 */
export async function computeBackground(r: ReplayState): Promise<void> {
	const entry = queues.get(r);
	for (let job = entry?.toCompute.shift(); job; job = entry?.toCompute.shift()) await job();
}

/** The clock moved: background jobs whose provider time is over are settled, and the settled jobs record their end. */
export async function settleBackground(r: ReplayState): Promise<void> {
	const entry = queues.get(r);
	if (!entry) return;
	await computeBackground(r);
	entry.queue.settle();
	await new Promise(resolve => setImmediate(resolve));
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

/** Background jobs on the virtual clock: their model calls take provider time of their own (the job's meter), not the user's. */
function backgroundJobs(r: ReplayState): BackgroundParts {
	const clock = r.clock!;
	return {
		start: ahead => {
			const entry = queueOf(r);
			const startedAt = clock.now;
			const meter: CallMeter = { calls: [], stream: `background ${++entry.jobs}` };
			let summaryCalls: number | undefined;
			let condensed = 0;
			let finishedMs = 0;
			let prepared: PreparedSummary | undefined;
			let finish!: (made: PreparedSummary | undefined) => void;
			const done = new Promise<PreparedSummary | undefined>(resolve => (finish = resolve));
			// The job is in the queue from its virtual start; its calls are known once computed.
			const queued = entry.queue.add(startedAt, finishedAt => {
				finishedMs = finishedAt - startedAt;
				finish(prepared);
			});
			const current = r.request;
			const compute = () =>
				ahead({
					summarize: (c, part) =>
						inCompaction(r, () => summarizeInReplay(r, summarizerEntries(c, part, current), part.previousSummary?.text, 'background', meter)),
					condense: (block, target) => {
						summaryCalls ??= meter.calls.length;
						const before = r.counters.summarizerInputTokens + r.counters.summarizerOutputTokens;
						return inCompaction(r, () => condenseInReplay(r, block, target, meter)).finally(() => {
							condensed += r.counters.summarizerInputTokens + r.counters.summarizerOutputTokens - before;
						});
					},
				})
					.then(made => {
						// The speed learned is the summary's alone: condensing older blocks is not part of it.
						const summaryMs = meter.calls.slice(0, summaryCalls ?? meter.calls.length).reduce((a, b) => a + b, 0);
						if (made.blocks) r.speed = observeSummary(r.speed, made.attempts, summaryMs);
						if (condensed) condenseTokens.set(made, condensed);
						prepared = made;
					})
					.catch(() => undefined)
					.finally(() => queued.setCalls(meter.calls));
			entry.toCompute.push(compute);
			entry.pending.push(done);
			return { done, durationMs: () => finishedMs, cancel: () => {} };
		},
		now: () => clock.now,
		onUnused: prepared => (r.timing.discardedTokens += summaryTokens(prepared)),
		// The single-slot provider as the product knows it once told or once it learned it (providerSlots.ts).
		oneAtATime: () => r.options.provider === 'single-slot',
	};
}

/** fitPrompt's takePrepared step: the prepared summary if it applies; the user waits for the rest of a job under way. */
export async function takePrepared(r: ReplayState, compactor: Compactor, conversation: Conversation, wait: boolean): Promise<PreparedSummary | undefined> {
	if (!compactor.background || !r.clock) return undefined;
	const state = compactor.background.state();
	await computeBackground(r);
	const taken = wait ? await takeWaiting(r, compactor, conversation) : await takeIfReady(r, compactor, conversation);
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
	await settleBackground(r);
	return compactor.takePrepared(conversation, false);
}

/** Waiting (an overflow): the settled jobs record their end; if the head is still under way the user waits for it, so it runs on to its end (settled at once). */
async function takeWaiting(r: ReplayState, compactor: Compactor, conversation: Conversation) {
	await settleBackground(r);
	let taken = false;
	const taking = compactor.takePrepared(conversation).finally(() => (taken = true));
	await new Promise(resolve => setImmediate(resolve));
	if (!taken) queueOf(r).queue.settle(true);
	return taking;
}

/** The recording ends: jobs still pending would go to the next request in the agent; no later request uses them, so they are discarded (and counted apart too). */
export async function endBackground(r: ReplayState): Promise<void> {
	const background = r.compactor?.background;
	if (!background) return;
	await computeBackground(r);
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
