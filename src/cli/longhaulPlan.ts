// Entry point of the `longhaul-plan` bin (bundled to dist/cli/longhaul-plan.js).
import { readFileSync } from 'node:fs';
import { runPlanCommand } from './planCommand';

const result = runPlanCommand(process.argv.slice(2), path => readFileSync(path, 'utf8'));
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.exitCode;
