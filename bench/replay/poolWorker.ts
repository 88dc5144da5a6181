// One worker thread of the full run's pool (pool.ts): replays the tasks it is sent, one at a time.
// A sweep's constant overrides (constantOverride.ts) are installed before the replay is loaded, and
// checked once it is.
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { installOverrides, SWEEPABLE, type ConstantOverrides, type SweepableName } from './constantOverride';

const overrides = ((workerData as { overrides?: ConstantOverrides } | null)?.overrides ?? {}) as ConstantOverrides;
installOverrides(overrides);

/** Loaded only now, after the overrides are in (a static import would load the replay first). */
function start(): void {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { runTask } = require('./pool') as typeof import('./pool');
	for (const [key, value] of Object.entries(overrides) as [SweepableName, number][]) {
		const { module, name } = SWEEPABLE[key];
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const loaded = require(join(__dirname, '../..', module)) as Record<string, unknown>;
		if (loaded[name] !== value) throw new Error(`--sweep ${key}: ${name} is ${String(loaded[name])}, not ${value}`);
	}
	parentPort!.on('message', task => {
		runTask(task).then(
			result => parentPort!.postMessage(result),
			error => {
				throw error;
			},
		);
	});
}

start();
