// Builds Longhaul.
//   node esbuild.mjs               development bundle (sourcemaps) of the extension and the CLI
//   node esbuild.mjs --production  minified bundle, no sourcemaps (what the VSIX ships)
//   node esbuild.mjs --watch       rebuild the development bundle on change
//   node esbuild.mjs --tests       also transpile src/, test/ and bench/ file by file into out/ for mocha
// Type checking is separate (`npm run typecheck`): esbuild only strips types.
import * as esbuild from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');
const tests = args.has('--tests');

const jsx = { jsx: 'transform', jsxFactory: 'vscpp', jsxFragment: 'vscppf' };

/** @type {esbuild.BuildOptions} */
const common = {
	bundle: true,
	platform: 'node',
	format: 'cjs',
	target: 'node20',
	sourcemap: production ? false : 'linked',
	minify: production,
	logLevel: 'warning',
	...jsx,
};

// longhaul_searchText runs in a worker thread (src/tools/textSearch.ts). The worker is bundled
// first and handed to the extension bundle as a string, run with `new Worker(code, { eval: true })`:
// the VSIX ships one file. (In --watch, a change to the worker's sources needs a restart.)
const searchWorker = await esbuild.build({
	...common,
	sourcemap: false,
	entryPoints: ['src/tools/searchWorker.ts'],
	outfile: 'dist/search-worker.js',
	write: false,
});
const searchWorkerSource = searchWorker.outputFiles[0].text;
// longhaul_recall's searches run in a worker the same way (src/tools/recallInWorker.ts).
const recallWorker = await esbuild.build({
	...common,
	sourcemap: false,
	entryPoints: ['src/tools/recallWorker.ts'],
	outfile: 'dist/recall-worker.js',
	write: false,
});
const recallWorkerSource = recallWorker.outputFiles[0].text;

// The shell classifier's bash parser (src/common/shell/bashParser.ts) is WebAssembly: the runtime and
// the grammar are shipped next to the bundle (and in the VSIX, see scripts/package.mjs).
const wasmDir = dirname(createRequire(import.meta.url).resolve('@vscode/tree-sitter-wasm'));
mkdirSync('dist', { recursive: true });
for (const name of ['tree-sitter.wasm', 'tree-sitter-bash.wasm']) copyFileSync(join(wasmDir, name), join('dist', name));

const builds = [
	{
		...common,
		entryPoints: ['src/extension.ts'],
		outfile: 'dist/extension.js',
		external: ['vscode'],
		define: { LONGHAUL_SEARCH_WORKER_SOURCE: JSON.stringify(searchWorkerSource), LONGHAUL_RECALL_WORKER_SOURCE: JSON.stringify(recallWorkerSource) },
	},
	{ ...common, entryPoints: ['src/cli/longhaulPlan.ts'], outfile: 'dist/cli/longhaul-plan.js', banner: { js: '#!/usr/bin/env node' } },
];

function listSources(dir) {
	const out = [];
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) {
			if (name !== 'node_modules' && name !== 'results') out.push(...listSources(path));
		} else if (/\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts')) {
			out.push(path);
		}
	}
	return out;
}

/** Removes compiled files whose source is gone, so a deleted test cannot keep running. */
function removeStaleOutputs() {
	if (!existsSync('out')) return;
	for (const file of listFiles('out')) {
		const source = relative('out', file).replace(/\.js$/, '');
		if (file.endsWith('.js') && !existsSync(source + '.ts') && !existsSync(source + '.tsx')) {
			rmSync(file, { force: true });
		}
	}
}

function listFiles(dir) {
	return readdirSync(dir).flatMap(name => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? listFiles(path) : [path];
	});
}

if (tests) {
	// Not a clean rebuild: other builds may be running mocha from out/ at the same time.
	removeStaleOutputs();
	builds.push({
		entryPoints: ['src', 'test', 'bench'].flatMap(listSources),
		outdir: 'out',
		outbase: '.',
		bundle: false,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		sourcemap: 'inline',
		logLevel: 'warning',
		...jsx,
	});
}

if (watch) {
	const contexts = await Promise.all(builds.map(b => esbuild.context(b)));
	await Promise.all(contexts.map(c => c.watch()));
	console.log('[esbuild] watching for changes');
} else {
	const started = Date.now();
	await Promise.all(builds.map(b => esbuild.build(b)));
	console.log(`[esbuild] built ${builds.length} target(s) in ${Date.now() - started} ms${production ? ' (production)' : ''}`);
}
