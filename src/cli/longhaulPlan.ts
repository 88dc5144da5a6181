// Entry point of the `longhaul-plan` bin (bundled to dist/cli/longhaul-plan.js).
import { readFileSync } from 'node:fs';
import { stopMessage } from './commandLine';
import { runPlanCommand } from './planCommand';

try {
	const result = runPlanCommand(process.argv.slice(2), path => readFileSync(path, 'utf8'));
	process.stdout.write(result.stdout);
	process.stderr.write(result.stderr);
	process.exitCode = result.exitCode;
} catch (error) {
	// A bug, not the input: runPlanCommand answers every input problem itself.
	const stop = stopMessage('longhaul-plan', error);
	process.stderr.write(stop.stderr);
	process.exitCode = stop.exitCode;
}
