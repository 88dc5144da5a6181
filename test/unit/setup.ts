// Mocha root hooks for the unit tests.
// - The bash parser (WebAssembly) is loaded once before any test runs, as the extension does at
//   activation, so the shell classifier reads command lines.
// - Every test's outcome is written to test-results/unit-tests.json (the same shape as the
//   integration report, test/integration/index.ts), which test/harness/reliability-table.mjs
//   reads for the catalogue rows whose checks are unit tests. A run of some files only writes a
//   report of those: the other rows then say "not run in the last report".
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bashParserFailure, loadBashParser } from '../../src/common/shell/bashParser';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const REPORT = path.join(REPO_ROOT, 'test-results', 'unit-tests.json');

interface Outcome {
	readonly fullTitle: string;
	readonly title: string;
	readonly file?: string;
	readonly state: 'passed' | 'failed' | 'pending';
	readonly kind: 'test';
	readonly durationMs?: number;
	readonly error?: string;
}

const startedAt = new Date().toISOString();
const outcomes: Outcome[] = [];

/** out/test/unit/x.test.js → test/unit/x.test.ts */
function sourceFile(file: string | undefined): string | undefined {
	if (!file) return undefined;
	return path
		.relative(REPO_ROOT, file)
		.split(path.sep)
		.join('/')
		.replace(/^out\//, '')
		.replace(/\.js$/, '.ts');
}

function writeReport(): void {
	const count = (state: Outcome['state']) => outcomes.filter(o => o.state === state).length;
	const report = {
		startedAt,
		finishedAt: new Date().toISOString(),
		complete: true,
		stats: { passed: count('passed'), failed: count('failed'), pending: count('pending') },
		tests: outcomes,
	};
	try {
		fs.mkdirSync(path.dirname(REPORT), { recursive: true });
		fs.writeFileSync(REPORT, JSON.stringify(report, null, 2) + '\n');
	} catch (error) {
		console.error(`could not write ${REPORT}: ${(error as Error).message}`);
	}
}

export const mochaHooks = {
	async beforeAll(): Promise<void> {
		if (!(await loadBashParser())) throw new Error(`The bash parser did not load: ${bashParserFailure()}`);
	},
	afterEach(this: Mocha.Context): void {
		const test = this.currentTest;
		if (!test) return;
		const state = test.isPending() ? 'pending' : test.state === 'failed' ? 'failed' : 'passed';
		const error = test.err ? String(test.err.message).split('\n')[0].slice(0, 300) : undefined;
		outcomes.push({ fullTitle: test.fullTitle(), title: test.title, file: sourceFile(test.file), state, kind: 'test', durationMs: test.duration, error });
	},
	afterAll(): void {
		writeReport();
	},
};
