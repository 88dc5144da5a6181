// The provider that serves the agent and its background summaries, in one of two models that exist:
//   cloud        a hosted API: calls run concurrently, so a background summary runs beside the
//                agent's calls from its start; they share one account's rate-limit budget, so a
//                rate-limit pause the agent's call meets holds the background calls for as long.
//   single-slot  a local model server: one request at a time, first come first served, and a
//                request once started runs to its end. A background summary's calls take the slot
//                when they arrive and it is free; an agent call (or a summary the user waits for)
//                that arrives while one runs waits behind it, and that wait is the user's.
// A job enters the queue at its virtual start (add), before its calls are known; its calls'
// durations are given once the replay has computed them (setCalls). The replay computes every
// started job before the clock moves again (replayCompactor.ts), so where a job's calls land
// depends only on virtual time, never on when its promise chain resolved.
import type { VirtualClock } from './clock';

export const PROVIDERS = ['cloud', 'single-slot'] as const;
export type ProviderModel = (typeof PROVIDERS)[number];

interface QueuedJob {
	readonly startedAt: number;
	/** The durations of the job's model calls, in order; undefined until computed. */
	calls?: readonly number[];
	/** single-slot: calls placed on the slot so far, and when the next one arrives (the previous one's end). */
	placed: number;
	nextArrival: number;
	finishedAt?: number;
	readonly onFinish: (finishedAt: number) => void;
}

export class ProviderQueue {
	private jobs: QueuedJob[] = [];
	/** single-slot: when the slot is next free (the end of the last request placed on it). */
	private slotFree = 0;
	/** single-slot: the background requests placed on the slot, [start, end), in order. */
	readonly placed: [number, number][] = [];
	constructor(
		private readonly clock: VirtualClock,
		readonly model: ProviderModel,
	) {
		if (model === 'single-slot') {
			clock.gate = at => this.admit(at);
			clock.onBusyEnd = end => this.occupied(end);
		}
	}

	/** A background job started now; its calls are given by setCalls. Returns its handle. */
	add(startedAt: number, onFinish: (finishedAt: number) => void): { setCalls(calls: readonly number[]): void } {
		const job: QueuedJob = { startedAt, placed: 0, nextArrival: startedAt, onFinish };
		this.jobs.push(job);
		return { setCalls: calls => (job.calls = calls) };
	}

	/** Jobs whose calls are not known yet (the replay computes them before the clock moves). */
	get uncomputed(): number {
		return this.jobs.filter(j => j.calls === undefined).length;
	}

	/**
	 * single-slot: a call the session waits for arrives at `at`: the background requests that
	 * arrived before it are placed first (each runs to its end); returns when the slot is free for it.
	 */
	private admit(at: number): number {
		this.placeArrivedBefore(at);
		return Math.max(at, this.slotFree);
	}

	/** single-slot: the clock's call ran on the slot until `end`. */
	private occupied(end: number): void {
		this.slotFree = Math.max(this.slotFree, end);
	}

	/** single-slot: places, in order of arrival, every known background request that arrives before `at`. */
	private placeArrivedBefore(at: number, until?: QueuedJob): void {
		for (;;) {
			let next: QueuedJob | undefined;
			for (const job of this.jobs) {
				if (job.calls === undefined) break; // a later job cannot overtake one not computed
				if (job.placed < job.calls.length && (next === undefined || job.nextArrival < next.nextArrival)) next = job;
			}
			if (!next || (until === undefined && next.nextArrival >= at)) return;
			if (until !== undefined && until.calls !== undefined && until.placed >= until.calls.length) return;
			const start = Math.max(next.nextArrival, this.slotFree);
			const end = start + next.calls![next.placed];
			this.placed.push([start, end]);
			this.slotFree = end;
			next.placed++;
			next.nextArrival = end;
			if (next.placed === next.calls!.length) next.finishedAt = end;
		}
	}

	/** cloud: when a job finishes, its calls back to back from its start, held by the agent's rate-limit pauses known so far. */
	private cloudFinish(job: QueuedJob): number {
		let t = job.startedAt;
		let left = job.calls!.reduce((a, b) => a + b, 0);
		for (const [start, end] of this.clock.ratePauses) {
			if (end <= t) continue;
			if (start >= t + left) break;
			if (start > t) left -= start - t;
			t = Math.max(t, end);
		}
		return t + left;
	}

	/** The finish of a computed job as far as the clock knows now (single-slot: its requests arrived by now placed). */
	private finishOf(job: QueuedJob): number | undefined {
		if (job.calls === undefined) return undefined;
		if (this.model === 'cloud') return this.cloudFinish(job);
		return job.finishedAt;
	}

	/** Settles the jobs the clock has passed the finish of, oldest first; with `head`, the oldest whatever its finish (the user waits for it). */
	settle(head = false): void {
		if (this.model === 'single-slot') this.placeArrivedBefore(this.clock.now);
		while (this.jobs.length) {
			const job = this.jobs[0];
			if (head && this.model === 'single-slot') this.placeArrivedBefore(Infinity, job);
			const finish = this.finishOf(job);
			if (finish === undefined) return;
			if (finish > this.clock.now && !head) {
				// A later job may finish first on a cloud provider: settle it out of order.
				if (this.model === 'cloud') this.settleLaterCloudJobs();
				return;
			}
			head = false;
			this.jobs.shift();
			job.onFinish(finish);
		}
	}

	private settleLaterCloudJobs(): void {
		for (const job of [...this.jobs]) {
			const finish = this.finishOf(job);
			if (finish === undefined || finish > this.clock.now) continue;
			this.jobs.splice(this.jobs.indexOf(job), 1);
			job.onFinish(finish);
		}
	}

	/** The session ends: every job is settled as it would finish with no more agent calls. */
	drainAll(): void {
		while (this.jobs.length) {
			if (this.jobs[0].calls === undefined) throw new Error('a background job was not computed before the session ended');
			this.settle(true);
		}
	}
}
