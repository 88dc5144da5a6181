// The real-host matrices (a recorded corpus session replayed in several modes and windows) take one
// to two minutes per configuration. `npm test` plays one configuration per behaviour; the full run
// (`npm run test:integration:full`, which sets LONGHAUL_TEST_FULL=1) plays every configuration.
import Mocha = require('mocha');

/** True in the full run: every configuration of every matrix is played. */
export const FULL_RUN = process.env.LONGHAUL_TEST_FULL === '1';

/**
 * `it` for a configuration the run plays; `it.skip` for one that only the full run plays, so it is
 * reported as pending (with its title) instead of vanishing from the report.
 */
export function matrixIt(inSample: boolean): Mocha.TestFunction | Mocha.PendingTestFunction {
	return inSample || FULL_RUN ? it : it.skip;
}

/** The line a matrix prints once: how many of its configurations this run plays. */
export function matrixNote(configs: readonly { readonly inSample: boolean }[]): string {
	const sampled = configs.filter(c => c.inSample).length;
	return FULL_RUN
		? `      full run: all ${configs.length} configurations`
		: `      ${sampled} of ${configs.length} configurations (one per behaviour); npm run test:integration:full plays all`;
}
