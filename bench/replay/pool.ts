// The full run's replays spread over worker threads (`--workers N`, default the machine's cores).
// Each task is one replay of one session (or of a day-long chat) with its own options; a replay
// depends on nothing but its session and options (its noise is seeded by the session's name), so
// the figures are the same whatever the number of workers: results come back in task order, and
// the caller sorts before it sums. With one worker the replays run in this thread, one by one.
import { Worker } from 'node:worker_threads';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { concatSessions, loadSession, type Session } from './session';
import { replaySession, type ReplayOptions, type ReplayResult } from './replay';
import { sessionVariant, type VariantName } from './sessionVariants';
import { stressSession } from './stressSession';
import { conversationFromSessionJson } from '../../src/common/persistence/corpusFormat';
import type { ConstantOverrides } from './constantOverride';

export interface ReplayTask {
	/** Session files: one, or several replayed as one day-long chat named `chatName`. */
	readonly files: readonly string[];
	readonly chatName?: string;
	/** Instead of the file as recorded: one of its harder variants, or the synthetic stress session. */
	readonly variant?: VariantName;
	readonly stress?: boolean;
	readonly options: ReplayOptions;
	/** Keep the per-request records (the charts need them); otherwise only the metrics come back. */
	readonly perRequest?: boolean;
}

export type TaskResult = Pick<ReplayResult, 'metrics'> & Partial<Pick<ReplayResult, 'perRequest'>> & { readonly seconds: number };

/** The workers a run uses by default: every core. */
export const defaultWorkers = (): number => Math.max(1, cpus().length);

function sessionOf(task: ReplayTask): Session {
	if (task.stress) return { name: 'synthetic-stress', conversation: conversationFromSessionJson(JSON.parse(JSON.stringify(stressSession()))) };
	if (task.variant) return sessionVariant(loadSession(task.files[0]), task.variant);
	if (task.chatName === undefined) return loadSession(task.files[0]);
	return { ...concatSessions(task.files.map(loadSession)), name: task.chatName };
}

/** One task, in this thread. */
export async function runTask(task: ReplayTask): Promise<TaskResult> {
	const started = performance.now();
	const { metrics, perRequest } = await replaySession(sessionOf(task), task.options);
	return { metrics, ...(task.perRequest ? { perRequest } : {}), seconds: (performance.now() - started) / 1000 };
}

/**
 * Every task, on `workers` threads (tasks handed out in order, the longest expected first is the
 * caller's choice of order; with `overrides`, on fresh threads whose constants are moved); results in task order. `onDone` is told each as it finishes.
 */
export async function runTasks<T extends ReplayTask>(
	tasks: readonly T[],
	workers: number,
	onDone?: (task: T, result: TaskResult) => void,
	overrides: ConstantOverrides = {},
): Promise<TaskResult[]> {
	const results: TaskResult[] = new Array(tasks.length);
	// Overridden constants need modules loaded afresh: always on worker threads.
	if (workers <= 1 && Object.keys(overrides).length === 0) {
		for (const [i, task] of tasks.entries()) {
			results[i] = await runTask(task);
			onDone?.(task, results[i]);
		}
		return results;
	}
	let next = 0;
	const one = () =>
		new Promise<void>((resolve, reject) => {
			const worker = new Worker(join(__dirname, 'poolWorker.js'), { workerData: { overrides } });
			const give = () => {
				if (next >= tasks.length) {
					void worker.terminate().then(() => resolve());
					return;
				}
				const index = next++;
				worker.once('message', (result: TaskResult) => {
					results[index] = result;
					onDone?.(tasks[index], result);
					give();
				});
				worker.postMessage(tasks[index]);
			};
			worker.once('error', reject);
			give();
		});
	await Promise.all(Array.from({ length: Math.min(workers, tasks.length) }, one));
	return results;
}
