// Builds what the real-host runs load: the extension and compiled tests, the scripted-model
// fixture bundle, and VSIX files of both.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { fixtureDir, log, repoRoot, run } from './util.mjs';

/** `node esbuild.mjs --tests`: dist/extension.js plus out/ (including out/test/integration). */
export async function buildExtensionAndTests() {
	log('building the extension and the tests (node esbuild.mjs --tests)');
	await run(process.execPath, ['esbuild.mjs', '--tests'], { cwd: repoRoot });
}

/** Bundles the fixture into test/fixtures/scripted-model/dist/extension.js. */
export async function buildFixture({ production = false } = {}) {
	await esbuild.build({
		entryPoints: [join(fixtureDir, 'src', 'extension.ts')],
		outfile: join(fixtureDir, 'dist', 'extension.js'),
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		external: ['vscode'],
		sourcemap: production ? false : 'linked',
		logLevel: 'warning',
	});
	log('built the scripted-model fixture');
}

function vsce() {
	return join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
}

/** Packages the fixture into a VSIX (kept out of the repo's own VSIX by the root .vscodeignore). */
export async function packageFixture(outDir) {
	await buildFixture({ production: true });
	mkdirSync(outDir, { recursive: true });
	const vsix = join(outDir, 'scripted-model.vsix');
	await run(process.execPath, [vsce(), 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix], {
		cwd: fixtureDir,
		capture: true,
	});
	return vsix;
}

/** `npm run package` (scripts/package.mjs); returns the VSIX path. */
export async function packageExtension() {
	log('packaging the Longhaul VSIX (scripts/package.mjs)');
	await run(process.execPath, [join(repoRoot, 'scripts', 'package.mjs')], { cwd: repoRoot });
	const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
	const vsix = join(repoRoot, `longhaul-${version}.vsix`);
	if (!existsSync(vsix)) throw new Error(`scripts/package.mjs did not produce ${vsix}`);
	return vsix;
}
