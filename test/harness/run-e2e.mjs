// npm run test:e2e
// Packages the Longhaul VSIX (npm run package) and the scripted-model fixture, installs both into a
// fresh code-server, opens the workbench in headless Chromium and runs test/e2e/*.e2e.mjs, which
// use the page like a person would. Screenshots land in test-results/.
// Env: LONGHAUL_E2E_GREP (only tests whose name matches), LONGHAUL_E2E_TIMEOUT_MS (default 20 min: a guard against a hang; the tier takes about 8 on a loaded 2-core machine).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser, screenshot } from './browser.mjs';
import { packageExtension, packageFixture } from './build.mjs';
import { ensureTestHost } from './install.mjs';
import { runMain } from './processes.mjs';
import { installExtensions, makeServerDirs, startCodeServer } from './server.mjs';
import { corpusDir, log, repoRoot } from './util.mjs';
import { copyWorkspace } from './workspace.mjs';

const timeoutMs = Number(process.env.LONGHAUL_E2E_TIMEOUT_MS) || 20 * 60 * 1000;
const e2eDir = join(repoRoot, 'test', 'e2e');
const counts = { passed: 0, failed: 0 };
let current;
let reported = false;

async function loadTests() {
	const grep = process.env.LONGHAUL_E2E_GREP ? new RegExp(process.env.LONGHAUL_E2E_GREP) : undefined;
	const tests = [];
	for (const file of readdirSync(e2eDir)
		.filter(f => f.endsWith('.e2e.mjs'))
		.sort()) {
		const module = await import(pathToFileURL(join(e2eDir, file)).href);
		for (const test of module.tests ?? []) {
			if (!grep || grep.test(test.name)) tests.push({ ...test, file });
		}
	}
	if (tests.length === 0) throw new Error(`no e2e test found in ${e2eDir}${grep ? ` matching ${grep}` : ''}`);
	return tests;
}

async function main() {
	const tests = await loadTests();
	const host = await ensureTestHost();
	const vsix = await packageExtension();
	const fixtureVsix = await packageFixture(join(repoRoot, 'out', 'fixtures'));

	for (const test of tests) {
		// Each test gets its own server, profile and workspace, so tests cannot leak into each other.
		const dirs = makeServerDirs('e2e');
		await installExtensions(host, dirs, [vsix, fixtureVsix]);
		const workspace = copyWorkspace(dirs.root);
		// The scripted model appends every request it receives here (test/fixtures/scripted-model/src/requestLog.ts).
		const requestLog = join(dirs.root, 'model-requests.jsonl');
		// The fixture's marker replay mode reads recorded sessions from LONGHAUL_CORPUS (dayLongReload.e2e.mjs).
		const server = await startCodeServer(host, {
			name: 'e2e',
			dirs,
			workspace,
			env: { LONGHAUL_FIXTURE_REQUEST_LOG: requestLog, LONGHAUL_CORPUS: corpusDir() },
		});
		const browser = await launchBrowser();
		current = { page: browser.page, server, test };
		const started = Date.now();
		try {
			await test.run({ page: browser.page, server, workspace, requestLog });
			counts.passed++;
			console.log(`  ✔ ${test.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
		} catch (error) {
			counts.failed++;
			console.log(
				`  ✖ ${test.name}\n    ${String(error?.stack ?? error)
					.split('\n')
					.join('\n    ')}`,
			);
			await saveFailure();
		} finally {
			current = undefined;
			await browser.close();
			await server.stop();
		}
	}
	report();
	return counts.failed === 0 ? 0 : 1;
}

async function saveFailure() {
	if (!current) return;
	const slug = current.test.name
		.replace(/[^a-z0-9]+/gi, '-')
		.replace(/^-|-$/g, '')
		.slice(0, 60)
		.toLowerCase();
	await screenshot(current.page, `e2e-failure-${slug}.png`).catch(() => {});
	const saved = current.server.saveLog(`e2e-failure-${slug}-code-server.log`);
	if (saved) log(`code-server log: ${saved}`);
}

function report() {
	if (reported) return;
	reported = true;
	console.log(`e2e: ${counts.passed} passed, ${counts.failed} failed`);
}

runMain('e2e', main, {
	timeoutMs,
	onFailure: async () => {
		await saveFailure();
		report();
	},
});
