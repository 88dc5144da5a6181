// Mocha entry point that VS Code loads inside the extension host (extensionTestsPath).
// Runs every out/test/integration/**/*.test.js. Environment knobs (set by the harness):
//   LONGHAUL_TEST_GREP     only tests whose full title matches this regular expression
//   LONGHAUL_TEST_RESULTS  file to write {"passed","failed","pending"} into
//   LONGHAUL_MOCHA_COLOR   '1' for coloured output
//   LONGHAUL_TEST_OUTPUT   file that receives mocha's report and everything the tests log
//                          (the harness shows it live; without it, output goes to the console)
//   LONGHAUL_TEST_REPORT   file to write every test's outcome into as JSON (TestReport below; read by
//                          test/harness/reliability-table.mjs). Rewritten after each test, so a run
//                          that dies half-way leaves what it did ("complete": false).
import * as fs from 'fs';
import * as path from 'path';
import * as util from 'util';
import Mocha = require('mocha');

function testFiles(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return testFiles(full);
		return entry.name.endsWith('.test.js') ? [full] : [];
	});
}

/** Sends mocha's reporter and console output to `file` while the tests run; returns an undo. */
function redirectOutput(file: string): () => void {
	const write = (...args: unknown[]) => fs.appendFileSync(file, util.format(...args) + '\n');
	const base = Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void };
	const saved = { consoleLog: base.consoleLog, log: console.log, info: console.info, warn: console.warn, error: console.error };
	base.consoleLog = write;
	console.log = console.info = console.warn = console.error = write;
	return () => {
		base.consoleLog = saved.consoleLog;
		Object.assign(console, { log: saved.log, info: saved.info, warn: saved.warn, error: saved.error });
	};
}

type TestState = 'passed' | 'failed' | 'pending' | 'not run';

interface TestOutcome {
	/** mocha's full title: the describe titles and the test title, joined by spaces. */
	readonly fullTitle: string;
	readonly title: string;
	/** The test's source file relative to the repository, e.g. test/integration/faults.test.ts. */
	readonly file?: string;
	/** 'not run': selected by the grep but never started (a hook before it failed). Hooks that fail appear as 'failed' entries with kind 'hook'. */
	readonly state: TestState;
	readonly kind: 'test' | 'hook';
	readonly durationMs?: number;
	/** First line of the error of a failed test or hook. */
	readonly error?: string;
}

interface TestReport {
	readonly startedAt: string;
	readonly finishedAt?: string;
	readonly complete: boolean;
	readonly grep?: string;
	readonly stats: { passed: number; failed: number; pending: number };
	readonly tests: TestOutcome[];
}

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

/** out/test/integration/x.test.js → test/integration/x.test.ts (the source the bundle came from). */
function sourceFile(file: string | undefined): string | undefined {
	if (!file) return undefined;
	const relative = path.relative(REPO_ROOT, file).split(path.sep).join('/');
	return relative.replace(/^out\//, '').replace(/\.js$/, '.ts');
}

/** Records the outcome of every test of `runner` into `file` (LONGHAUL_TEST_REPORT); returns the final write. */
function reportTests(runner: Mocha.Runner, root: Mocha.Suite, grep: RegExp | undefined, file: string): (stats: TestReport['stats']) => void {
	const startedAt = new Date().toISOString();
	const tests: TestOutcome[] = [];
	const seen = new Set<Mocha.Runnable>();
	const firstLine = (error: unknown) =>
		String((error as Error)?.message ?? error)
			.split('\n')[0]
			.slice(0, 300);
	const outcome = (runnable: Mocha.Runnable, state: TestState, kind: 'test' | 'hook', error?: unknown): TestOutcome => ({
		fullTitle: runnable.fullTitle(),
		title: runnable.title,
		file: sourceFile(runnable.file),
		state,
		kind,
		durationMs: runnable.duration,
		error: error === undefined ? undefined : firstLine(error),
	});
	const write = (report: TestReport) => {
		try {
			fs.mkdirSync(path.dirname(file), { recursive: true });
			fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
		} catch (error) {
			console.error(`could not write the test report ${file}: ${firstLine(error)}`);
		}
	};
	const counts = () => ({
		passed: tests.filter(t => t.kind === 'test' && t.state === 'passed').length,
		failed: tests.filter(t => t.state === 'failed').length,
		pending: tests.filter(t => t.state === 'pending').length,
	});
	const add = (entry: TestOutcome, runnable: Mocha.Runnable) => {
		seen.add(runnable);
		tests.push(entry);
		write({ startedAt, complete: false, grep: grep?.source, stats: counts(), tests });
	};
	runner.on('pass', test => add(outcome(test, 'passed', 'test'), test));
	runner.on('pending', test => add(outcome(test, 'pending', 'test'), test));
	runner.on('fail', (runnable, error) => add(outcome(runnable, 'failed', (runnable as { type?: string }).type === 'hook' ? 'hook' : 'test', error), runnable));
	return stats => {
		// Tests the grep selected that never started: a hook before them failed.
		const notRun: TestOutcome[] = [];
		root.eachTest(test => {
			if (!seen.has(test) && (!grep || grep.test(test.fullTitle()))) notRun.push(outcome(test, 'not run', 'test'));
		});
		write({ startedAt, finishedAt: new Date().toISOString(), complete: true, grep: grep?.source, stats, tests: [...tests, ...notRun] });
	};
}

export function run(): Promise<void> {
	const restoreOutput = process.env.LONGHAUL_TEST_OUTPUT ? redirectOutput(process.env.LONGHAUL_TEST_OUTPUT) : () => {};
	const mocha = new Mocha({
		ui: 'bdd',
		reporter: 'spec',
		color: process.env.LONGHAUL_MOCHA_COLOR === '1',
		timeout: 60_000,
		slow: 5_000,
		grep: process.env.LONGHAUL_TEST_GREP || undefined,
	});
	for (const file of testFiles(__dirname).sort()) {
		mocha.addFile(file);
	}
	const reportFile = process.env.LONGHAUL_TEST_REPORT;
	return new Promise((resolve, reject) => {
		try {
			let finishReport: ((stats: TestReport['stats']) => void) | undefined;
			const runner = mocha.run(failures => {
				const stats = runner.stats ?? { passes: 0, failures, pending: 0 };
				const results = { passed: stats.passes, failed: stats.failures, pending: stats.pending };
				finishReport?.(results);
				restoreOutput();
				if (process.env.LONGHAUL_TEST_RESULTS) {
					fs.writeFileSync(process.env.LONGHAUL_TEST_RESULTS, JSON.stringify(results));
				}
				if (failures > 0) {
					reject(new Error(`${failures} integration test(s) failed.`));
				} else if (results.passed === 0) {
					reject(new Error('No integration test ran (check LONGHAUL_TEST_GREP).'));
				} else {
					resolve();
				}
			});
			if (reportFile) finishReport = reportTests(runner, mocha.suite, mocha.options.grep instanceof RegExp ? mocha.options.grep : undefined, reportFile);
		} catch (error) {
			restoreOutput();
			reject(error);
		}
	});
}
