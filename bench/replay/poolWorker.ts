// One worker thread of the full run's pool (pool.ts): replays the tasks it is sent, one at a time.
import { parentPort } from 'node:worker_threads';
import { runTask, type ReplayTask } from './pool';

parentPort?.on('message', (task: ReplayTask) => {
	runTask(task).then(
		result => parentPort!.postMessage(result),
		error => {
			throw error;
		},
	);
});
