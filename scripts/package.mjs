// npm run package
// Builds the production bundle and packages longhaul-<version>.vsix with vsce, then lists the
// package and fails if it holds anything but the files users need.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ALLOWED = new Set([
	'extension/dist/extension.js',
	'extension/dist/tree-sitter.wasm',
	'extension/dist/tree-sitter-bash.wasm',
	'extension/package.json',
	'extension/package.nls.json',
	'extension/readme.md',
	'extension/changelog.md',
	'extension/LICENSE.txt',
	'extension/media/icon.png',
	'extension/syntaxes/longhaul-summary.tmLanguage.json',
	'extension/l10n/bundle.l10n.json',
	'[Content_Types].xml',
	'extension.vsixmanifest',
]);

function step(what, command, args) {
	try {
		execFileSync(command, args, { cwd: root, stdio: 'inherit' });
	} catch {
		console.error(`package: ${what} failed (see above)`);
		process.exit(1);
	}
}

const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const readme = join(root, 'README.md');
if (!existsSync(readme)) {
	// vsce refuses to package without a README; the real one is written by hand.
	writeFileSync(readme, `# Longhaul\n\nLong agent sessions in VS Code chat. Type \`@longhaul\` in the Chat view.\n`);
	console.log('README.md was missing: wrote a placeholder');
}

step('the production build', process.execPath, ['esbuild.mjs', '--production']);
const vsix = join(root, `${name}-${version}.vsix`);
// Longhaul has no public repository yet, so the manifest names none (rather than a made-up URL);
// README links to files in the source tree (docs/...) are kept as written.
step('vsce package', process.execPath, [
	join(root, 'node_modules', '@vscode', 'vsce', 'vsce'),
	'package',
	'--no-dependencies',
	'--no-rewrite-relative-links',
	'--allow-missing-repository',
	'--out',
	vsix,
]);

const listing = execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8' }).split('\n').filter(Boolean);
const table = execFileSync('unzip', ['-l', vsix], { encoding: 'utf8' });
console.log(`\n${vsix} (${(statSync(vsix).size / 1024).toFixed(1)} KiB):\n${table}`);

// vsce renames README.md/CHANGELOG.md to lower case and LICENSE to LICENSE.txt inside the package.
const unexpected = listing.filter(entry => !ALLOWED.has(entry));
const missing = [
	'extension/dist/extension.js',
	'extension/dist/tree-sitter.wasm',
	'extension/dist/tree-sitter-bash.wasm',
	'extension/package.json',
	'extension/package.nls.json',
	'extension/media/icon.png',
	'extension/l10n/bundle.l10n.json',
].filter(entry => !listing.includes(entry));
if (unexpected.length || missing.length) {
	console.error(
		`The VSIX is wrong.${unexpected.length ? `\n  Unexpected files (fix .vscodeignore): ${unexpected.join(', ')}` : ''}${missing.length ? `\n  Missing files: ${missing.join(', ')}` : ''}`,
	);
	process.exit(1);
}
console.log(`package: ${listing.length} files, all expected`);
