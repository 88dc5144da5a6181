// Builds what the real-host runs load: the extension and compiled tests, the scripted-model
// fixture bundle, and VSIX files of both.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as esbuild from 'esbuild';
import { fixtureDir, log, repoRoot, run } from './util.mjs';

/** `node esbuild.mjs --tests`: dist/extension.js plus out/ (including out/test/integration). */
export async function buildExtensionAndTests() {
	log('building the extension and the tests (node esbuild.mjs --tests)');
	await run(process.execPath, ['esbuild.mjs', '--tests'], { cwd: repoRoot });
}

/** Bundles a fixture (by default the scripted model) into test/fixtures/<name>/dist/extension.js. */
export async function buildFixture({ production = false, dir = fixtureDir } = {}) {
	await esbuild.build({
		entryPoints: [join(dir, 'src', 'extension.ts')],
		outfile: join(dir, 'dist', 'extension.js'),
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		external: ['vscode'],
		sourcemap: production ? false : 'linked',
		logLevel: 'warning',
	});
	log(`built the ${basename(dir)} fixture`);
}

function vsce() {
	return join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
}

/**
 * Packages a fixture (by default the scripted model; test/fixtures/<name>) into a VSIX, kept out of
 * the repo's own VSIX by the root .vscodeignore.
 */
export async function packageFixture(outDir, dir = fixtureDir) {
	await buildFixture({ production: true, dir });
	mkdirSync(outDir, { recursive: true });
	const vsix = join(outDir, `${basename(dir)}.vsix`);
	await run(process.execPath, [vsce(), 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix], {
		cwd: dir,
		capture: true,
	});
	return vsix;
}

/** The Copilot-like tools fixture (test/fixtures/copilot-tools): its folder and its id for --enable-proposed-api. */
export const copilotToolsDir = join(repoRoot, 'test', 'fixtures', 'copilot-tools');
export const COPILOT_TOOLS_ID = 'longhaul-test.copilot-tools';

/** `npm run package` (scripts/package.mjs); returns the VSIX path. */
export async function packageExtension() {
	log('packaging the Longhaul VSIX (scripts/package.mjs)');
	await run(process.execPath, [join(repoRoot, 'scripts', 'package.mjs')], { cwd: repoRoot });
	const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
	const vsix = join(repoRoot, `longhaul-${version}.vsix`);
	if (!existsSync(vsix)) throw new Error(`scripts/package.mjs did not produce ${vsix}`);
	return vsix;
}
