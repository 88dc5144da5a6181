// Results of the issue-6 fault and security tests, written as the tests run, so that
// scripts/reliability-table.mjs can regenerate the tables of docs/reliability.md from a real run.
// One JSON file per run kind (trusted, untrusted) in test-results/; each entry is keyed by its id,
// so re-running one test replaces only its entry.
import * as fs from 'fs';
import * as path from 'path';

export interface FaultResult {
	/** The row id in docs/reliability.md, e.g. '4b' or 'S-untrusted'. */
	readonly id: string;
	/** What was injected or checked. */
	readonly fault: string;
	/** file › test name. */
	readonly test: string;
	/** The chat said what happened and the conversation went on (for checks: the check held). */
	readonly survived: boolean;
	/** User requests missing from any later prompt. */
	readonly requestsLost: number;
	/** Files written outside the workspace. */
	readonly writesOutside?: number;
	/** One line on what was observed, with measured numbers. */
	readonly detail: string;
}

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const FAULT_RESULTS_FILE = path.join(REPO_ROOT, 'test-results', 'fault-results.json');

/** Records a result (call it at the end of a passing test: a failing test never records). */
export function recordFaultResult(result: FaultResult): void {
	fs.mkdirSync(path.dirname(FAULT_RESULTS_FILE), { recursive: true });
	let all: Record<string, FaultResult & { at: string }> = {};
	try {
		all = JSON.parse(fs.readFileSync(FAULT_RESULTS_FILE, 'utf8'));
	} catch {
		// First result of the run, or an unreadable file: start over.
	}
	all[result.id] = { ...result, at: new Date().toISOString() };
	fs.writeFileSync(FAULT_RESULTS_FILE, JSON.stringify(all, null, 2) + '\n');
}
