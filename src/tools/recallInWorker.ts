// Runs a longhaul_recall search in a worker thread (recallWorker.ts), as longhaul_searchText does
// its own: RE2 matching is linear, but a large pattern over a long line is still seconds in one
// call, which must not happen on the extension host's thread. The worker is terminated when the
// search runs past its time limit (plus a short grace for the worker's own check between rounds)
// or the request is cancelled; the hits found so far are kept. Where no worker can start, the
// search runs on this thread, pausing between rounds. No vscode import: unit-tested in Node.
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { searchHere } from '../common/recall/recall';
import type { SearchJob, SearchOutcome } from '../common/recall/recallSearch';

/** Messages from recallWorker.ts. */
export type RecallWorkerMessage =
	{ type: 'round'; round: number; hits: string[] } | { type: 'done'; outcome: SearchOutcome } | { type: 'error'; message: string };

/** How long past the time limit the worker may take to stop by itself (it checks between rounds). */
export const RECALL_GRACE_MS = 250;

// In the bundle, esbuild.mjs defines this as the bundled recallWorker.ts, run with `eval` (the
// VSIX holds one file); unbundled (tests) the compiled file next to this one.
declare const LONGHAUL_RECALL_WORKER_SOURCE: string | undefined;

function startWorker(job: SearchJob): Worker {
	if (typeof LONGHAUL_RECALL_WORKER_SOURCE === 'string') return new Worker(LONGHAUL_RECALL_WORKER_SOURCE, { eval: true, workerData: job });
	return new Worker(path.join(__dirname, 'recallWorker.js'), { workerData: job });
}

const onThisThread = (job: SearchJob, signal?: AbortSignal) =>
	searchHere(job, { now: () => performance.now(), pause: () => new Promise(resolve => setImmediate(resolve)), isCancelled: () => signal?.aborted === true });

/** The search's outcome, or undefined when `signal` cancelled it. */
export function searchRecallInWorker(job: SearchJob, signal?: AbortSignal): Promise<SearchOutcome | undefined> {
	if (signal?.aborted) return Promise.resolve(undefined);
	let worker: Worker;
	try {
		worker = startWorker(job);
	} catch {
		return onThisThread(job, signal);
	}
	return new Promise(resolve => {
		const hits: string[] = [];
		let round: number | undefined;
		let heard = false;
		let settled = false;
		const finish = (outcome: SearchOutcome | undefined) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			signal?.removeEventListener('abort', onAbort);
			void worker.terminate();
			resolve(outcome);
		};
		const onAbort = () => finish(undefined);
		const where = () => (round === undefined ? '' : ` in round #${round}`);
		const timer = setTimeout(
			() => finish({ hits, more: false, stopped: `the time limit (${job.timeLimitMs} ms) was reached${where()}` }),
			job.timeLimitMs + RECALL_GRACE_MS,
		);
		signal?.addEventListener('abort', onAbort);
		worker.on('message', (message: RecallWorkerMessage) => {
			heard = true;
			if (message.type === 'round') {
				hits.push(...message.hits);
				round = message.round;
			} else if (message.type === 'done') finish(message.outcome);
			else finish({ hits, more: false, stopped: message.message });
		});
		worker.on('error', error => {
			if (heard || settled) {
				finish({ hits, more: false, stopped: `the search failed: ${error.message}` });
				return;
			}
			// The worker could not run at all here: search on this thread instead.
			settled = true;
			clearTimeout(timer);
			signal?.removeEventListener('abort', onAbort);
			resolve(onThisThread(job, signal));
		});
		worker.on('exit', () => finish({ hits, more: false, stopped: `the search stopped unexpectedly${where()}` }));
	});
}
