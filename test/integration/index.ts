// Mocha entry point that VS Code loads inside the extension host (extensionTestsPath).
// Runs every out/test/integration/**/*.test.js. Environment knobs (set by the harness):
//   LONGHAUL_TEST_GREP     only tests whose full title matches this regular expression
//   LONGHAUL_TEST_RESULTS  file to write {"passed","failed","pending"} into
//   LONGHAUL_MOCHA_COLOR   '1' for coloured output
//   LONGHAUL_TEST_OUTPUT   file that receives mocha's report and everything the tests log
//                          (the harness shows it live; without it, output goes to the console)
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
	return new Promise((resolve, reject) => {
		try {
			const runner = mocha.run(failures => {
				const stats = runner.stats ?? { passes: 0, failures, pending: 0 };
				const results = { passed: stats.passes, failed: stats.failures, pending: stats.pending };
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
		} catch (error) {
			restoreOutput();
			reject(error);
		}
	});
}
