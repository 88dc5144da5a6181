// npm run test:integration
// Runs test/integration/*.test.ts with mocha inside a real VS Code 1.139 extension host (code-server),
// opened by headless Chromium. Longhaul is the development extension (extensionDevelopmentPath);
// the scripted-model fixture is installed from a VSIX, because the workbench payload honours only
// one extensionDevelopmentPath.
// Env: LONGHAUL_TEST_GREP (only matching tests), LONGHAUL_INTEGRATION_TIMEOUT_MS (default 45 min, a guard against a hang),
// LONGHAUL_VERBOSE=1 (also show the workbench's own log), LONGHAUL_KEEP_TMP=1 (keep the server's
// temp folder), LONGHAUL_TEST_CACHE (install cache).
// --untrusted (or LONGHAUL_UNTRUSTED=1) opens the workspace untrusted (restricted mode): workspace
// trust on, no trust prompt; it runs only the 'Untrusted' tests (test/integration/untrusted.test.ts)
// unless LONGHAUL_TEST_GREP says otherwise. `npm run test:untrusted`.
// --copilot-tools (or LONGHAUL_COPILOT_TOOLS=1) also installs test/fixtures/copilot-tools (tools under
// GitHub Copilot Chat's names); it runs only the 'Runner choice' tests unless LONGHAUL_TEST_GREP says
// otherwise. `npm run test:copilot-tools`.
// --full (or LONGHAUL_TEST_FULL=1) plays every configuration of the real-host matrices (corpus
// replays in several modes and windows, test/integration/fullRun.ts); without it they play one
// configuration per behaviour. `npm run test:integration:full`.
// Every test's outcome goes to test-results/integration-tests.json (integration-untrusted-tests.json
// for --untrusted), read by `npm run reliability-table`; each run replaces its own report.
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, screenshot } from './browser.mjs';
import { COPILOT_TOOLS_ID, buildExtensionAndTests, copilotToolsDir, packageFixture } from './build.mjs';
import { ensureTestHost } from './install.mjs';
import { runMain } from './processes.mjs';
import { UNTRUSTED_SETTINGS, installExtensions, makeServerDirs, startCodeServer } from './server.mjs';
import { followFile } from './tail.mjs';
import { exposeAutomation, workbenchUrl } from './workbench.mjs';
import { log, repoRoot, resultsDir } from './util.mjs';
import { copyWorkspace } from './workspace.mjs';

const timeoutMs = Number(process.env.LONGHAUL_INTEGRATION_TIMEOUT_MS) || 45 * 60 * 1000;
const workbenchLog = join(resultsDir, 'integration-workbench.log');

let page;
let server;
let results;
let output;

async function main() {
	const started = Date.now();
	mkdirSync(resultsDir, { recursive: true });
	writeFileSync(workbenchLog, '');
	const host = await ensureTestHost();
	await buildExtensionAndTests();
	const fixtureVsix = await packageFixture(join(repoRoot, 'out', 'fixtures'));

	const testsEntry = join(repoRoot, 'out', 'test', 'integration', 'index.js');
	if (!existsSync(testsEntry)) throw new Error(`${testsEntry} is missing after the build`);

	const untrusted = process.env.LONGHAUL_UNTRUSTED === '1' || process.argv.includes('--untrusted');
	const full = process.env.LONGHAUL_TEST_FULL === '1' || process.argv.includes('--full');
	if (full) log('full run: every configuration of the real-host matrices (LONGHAUL_TEST_FULL=1)');
	if (untrusted && !process.env.LONGHAUL_TEST_GREP) process.env.LONGHAUL_TEST_GREP = 'Untrusted';
	// Tools under Copilot's names, installed only in this run: VS Code lists a contributed tool whatever its `when`.
	const copilot = process.env.LONGHAUL_COPILOT_TOOLS === '1' || process.argv.includes('--copilot-tools');
	if (copilot && !process.env.LONGHAUL_TEST_GREP) process.env.LONGHAUL_TEST_GREP = 'Runner choice';
	if (copilot) log('with the Copilot-like tools fixture (test/fixtures/copilot-tools)');
	const extraVsix = copilot ? [await packageFixture(join(repoRoot, 'out', 'fixtures'), copilotToolsDir)] : [];
	if (untrusted) log('workspace trust is on and the workspace is not trusted (LONGHAUL_UNTRUSTED=1)');
	const dirs = makeServerDirs('integration', { settings: untrusted ? UNTRUSTED_SETTINGS : {} });
	await installExtensions(host, dirs, [fixtureVsix, ...extraVsix]);
	const workspace = copyWorkspace(dirs.root);
	const resultsFile = join(dirs.root, 'mocha-results.json');
	// The last run's per-test outcomes (test/integration/index.ts); an old report must not outlive a run that dies early.
	const reportFile = join(resultsDir, untrusted ? 'integration-untrusted-tests.json' : 'integration-tests.json');
	rmSync(reportFile, { force: true });
	const outputFile = join(dirs.root, 'mocha-output.log');
	server = await startCodeServer(host, {
		name: 'integration',
		dirs,
		workspace,
		smokeTestDriver: true,
		workspaceTrust: untrusted,
		proposedApi: copilot ? [COPILOT_TOOLS_ID] : [],
		env: {
			LONGHAUL_TEST_RESULTS: resultsFile,
			LONGHAUL_TEST_REPORT: reportFile,
			LONGHAUL_TEST_OUTPUT: outputFile,
			LONGHAUL_TEST_GREP: process.env.LONGHAUL_TEST_GREP ?? '',
			LONGHAUL_TEST_FULL: full ? '1' : '',
			LONGHAUL_MOCHA_COLOR: process.stdout.isTTY ? '1' : '0',
		},
	});

	({ page } = await launchBrowser());
	const exited = exposeAutomation(page, { onLog: recordWorkbenchLog });
	page.on('crash', () => log('the workbench page crashed'));
	output = followFile(outputFile);
	await page.goto(
		workbenchUrl(server, {
			folder: workspace,
			payload: [
				['extensionDevelopmentPath', repoRoot],
				['extensionTestsPath', testsEntry],
			],
		}),
		// Playwright's default of 30 s is not enough when several runs share 2 cores.
		{ timeout: 120_000 },
	);
	log('workbench opened; mocha runs inside the extension host');
	const code = await await exited;
	output.stop();
	if (existsSync(resultsFile)) results = JSON.parse(readFileSync(resultsFile, 'utf8'));
	log(`extension host exited with ${code} after ${((Date.now() - started) / 1000).toFixed(0)} s; test report: ${reportFile}`);
	if (!results) {
		log(`mocha reported no results: the test entry failed before or while loading the tests. Last workbench errors:\n${lastErrors()}`);
		return 1;
	}
	return code === 0 && results.failed === 0 && results.passed > 0 ? 0 : 1;
}

const errors = [];
/** The workbench's own log (noisy: offline marketplace, GitHub sign-in) goes to a file. */
function recordWorkbenchLog(type, text) {
	appendFileSync(workbenchLog, `[${type}] ${text}\n`);
	if (type === 'error') errors.push(text);
	if (process.env.LONGHAUL_VERBOSE) process.stderr.write(`[workbench ${type}] ${text}\n`);
}

function lastErrors() {
	return (
		errors
			.filter(e => !/ENOTFOUND|open-vsx|github/i.test(e))
			.slice(-5)
			.join('\n') || `(none; see ${workbenchLog})`
	);
}

function summary() {
	const r = results ?? { passed: 0, failed: 0 };
	console.log(`integration: ${r.passed} passed, ${r.failed} failed${r.pending ? `, ${r.pending} skipped` : ''}`);
}

runMain(
	'integration',
	async () => {
		const code = await main();
		summary();
		return code;
	},
	{
		timeoutMs,
		onFailure: async () => {
			output?.stop();
			if (!results) summary();
			await screenshot(page, 'integration-failure.png');
			const saved = server?.saveLog('integration-code-server.log');
			if (saved) log(`code-server log: ${saved}; workbench log: ${workbenchLog}`);
		},
	},
);
