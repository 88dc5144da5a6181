// npm run test:desktop
// The same integration suite in desktop VS Code through @vscode/test-electron, for machines that
// can download VS Code (this one cannot: use npm run test:integration). Desktop VS Code accepts
// several --extensionDevelopmentPath flags, so Longhaul and the fixture both load from source.
// On Linux without a display, run it under xvfb-run. Not part of npm test.
// Env: LONGHAUL_DESKTOP_VSCODE_VERSION (default 1.139.1), LONGHAUL_TEST_GREP, LONGHAUL_TEST_FULL=1 (every
// configuration of the real-host matrices, as npm run test:integration:full).
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { buildExtensionAndTests, buildFixture } from './build.mjs';
import { cacheRoot } from './install.mjs';
import { fixtureDir, log, repoRoot } from './util.mjs';
import { copyWorkspace } from './workspace.mjs';

const version = process.env.LONGHAUL_DESKTOP_VSCODE_VERSION || '1.139.1';

async function main() {
	await buildExtensionAndTests();
	await buildFixture();
	let vscodeExecutablePath;
	try {
		vscodeExecutablePath = await downloadAndUnzipVSCode({ version, cachePath: join(cacheRoot(), 'vscode-desktop'), timeout: 30_000 });
	} catch (error) {
		console.error(
			`VS Code desktop ${version} could not be downloaded (${error?.message ?? error}); use npm run test:integration, which runs the same suite in code-server.`,
		);
		return 1;
	}
	const temp = mkdtempSync(join(tmpdir(), 'longhaul-desktop-'));
	const resultsFile = join(temp, 'mocha-results.json');
	try {
		const workspace = copyWorkspace(temp);
		log(`running the integration suite in ${vscodeExecutablePath}`);
		let code;
		try {
			code = await runTests({
				vscodeExecutablePath,
				extensionDevelopmentPath: [repoRoot, fixtureDir],
				extensionTestsPath: join(repoRoot, 'out', 'test', 'integration', 'index.js'),
				launchArgs: [
					workspace,
					'--user-data-dir',
					join(temp, 'user-data'),
					'--extensions-dir',
					join(temp, 'extensions'),
					'--disable-workspace-trust',
					'--skip-welcome',
					'--skip-release-notes',
				],
				extensionTestsEnv: {
					LONGHAUL_TEST_RESULTS: resultsFile,
					LONGHAUL_TEST_GREP: process.env.LONGHAUL_TEST_GREP ?? '',
					LONGHAUL_TEST_FULL: process.env.LONGHAUL_TEST_FULL ?? '',
				},
			});
		} catch (error) {
			log(`VS Code ended with a failure: ${error?.message ?? error}`);
			code = 1;
		}
		const results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : { passed: 0, failed: 0 };
		console.log(`desktop: ${results.passed} passed, ${results.failed} failed`);
		return code === 0 && results.failed === 0 && results.passed > 0 ? 0 : 1;
	} finally {
		rmSync(temp, { recursive: true, force: true });
	}
}

main().then(
	code => process.exit(code),
	error => {
		console.error(error?.stack ?? error);
		process.exit(1);
	},
);
