// One provider serves the agent and its background summaries. With `concurrency` 1 (the default, a
// user's one model endpoint), a background summary's calls queue behind the agent's: the job makes
// progress only while the provider is not serving the agent's own calls or a summary the user
// waits for (the clock's busy intervals), and jobs run one after the other. With 2 or more, a job
// runs beside the agent's calls from its start (the clock before this queue). A job's finish is
// known once the clock has passed it; at an overflow the agent waits, so the job at the head runs
// on undisturbed (drain).
import type { VirtualClock } from './clock';

interface QueuedJob {
	readonly startedAt: number;
	readonly workMs: number;
	readonly onFinish: (finishedAt: number) => void;
}

export class ProviderQueue {
	private jobs: QueuedJob[] = [];
	/** The last finish of a job (with one slot, the next starts no earlier). */
	private lastFinish = 0;
	/** An overflow is waiting for the head job: it is settled as soon as it is queued. */
	private headWanted = false;
	/** The session has ended: jobs are settled as they come. */
	private closing = false;
	constructor(
		private readonly clock: VirtualClock,
		readonly concurrency: number,
	) {}

	/** A background job started at `startedAt` whose calls take `workMs` of provider time. */
	add(startedAt: number, workMs: number, onFinish: (finishedAt: number) => void): void {
		this.jobs.push({ startedAt, workMs, onFinish });
		this.jobs.sort((a, b) => a.startedAt - b.startedAt);
		if (this.closing) return this.drainAll();
		this.settleWanted();
		this.settle();
	}

	private settleWanted(): void {
		if (!this.headWanted || !this.jobs.length) return;
		this.headWanted = false;
		this.settle(true);
	}

	/** When a job that begins at `begin` finishes, given the busy intervals known so far. */
	finishOf(begin: number, workMs: number): number {
		if (this.concurrency > 1) return begin + workMs;
		const busy = this.clock.busy;
		let lo = 0;
		let hi = busy.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (busy[mid][1] <= begin) lo = mid + 1;
			else hi = mid;
		}
		let t = begin;
		let left = workMs;
		for (let i = lo; i < busy.length; i++) {
			const [start, end] = busy[i];
			if (start >= t + left) break;
			if (start > t) left -= start - t;
			t = Math.max(t, end);
		}
		return t + left;
	}

	/** Settles the jobs the clock has passed the finish of; with `head`, the first one whatever its finish. */
	settle(head = false): void {
		while (this.jobs.length) {
			const job = this.jobs[0];
			const begin = this.concurrency > 1 ? job.startedAt : Math.max(job.startedAt, this.lastFinish);
			const finish = this.finishOf(begin, job.workMs);
			if (finish > this.clock.now && !head) return;
			head = false;
			this.jobs.shift();
			this.lastFinish = finish;
			job.onFinish(finish);
		}
	}

	/** While `wait` runs (an overflow taking the oldest job), that job is settled as soon as it is known. */
	async drainingHead<T>(wait: () => Promise<T>): Promise<T> {
		this.headWanted = true;
		this.settleWanted();
		try {
			return await wait();
		} finally {
			this.headWanted = false;
		}
	}

	/** The session ends: every job, queued now or later, is settled as it would finish with the provider idle. */
	drainAll(): void {
		this.closing = true;
		while (this.jobs.length) this.settle(true);
	}
}
