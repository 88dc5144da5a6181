// The worker thread of longhaul_recall's searches (see recallInWorker.ts): runs the search it is
// given and posts its hits round by round. The extension host terminates it at the time limit or
// on cancel, so no pattern and no line can block the host.
import { parentPort, workerData } from 'node:worker_threads';
import { searchSteps, type SearchJob } from '../common/recall/recallSearch';
import type { RecallWorkerMessage } from './recallInWorker';

const post = (message: RecallWorkerMessage) => parentPort?.postMessage(message);

try {
	const steps = searchSteps(workerData as SearchJob, () => performance.now());
	let posted = 0;
	for (let step = steps.next(); ; step = steps.next()) {
		if (step.done) {
			post({ type: 'done', outcome: step.value });
			break;
		}
		post({ type: 'round', round: step.value.round, hits: step.value.hits.slice(posted) });
		posted = step.value.hits.length;
	}
} catch (error) {
	post({ type: 'error', message: `The search failed: ${(error as Error)?.message ?? error}` });
}
