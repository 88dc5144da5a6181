// The sentences Longhaul shows users, read from the source: the first argument of every
// vscode.l10n.t(…) call, and the templates of src/common's messages (message(…), plural(…, one,
// many)). `node scripts/l10n-strings.mjs --write` writes l10n/bundle.l10n.json (English: each key
// is its own value); test/unit/l10n.test.ts checks the bundle against the source.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LITERAL = String.raw`('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|\x60(?:[^\x60\\$]|\\.)*\x60)`;
const CALLS = [
	new RegExp(String.raw`\bl10n\.t\(\s*` + LITERAL, 'g'),
	new RegExp(String.raw`\bmessage\(\s*` + LITERAL, 'g'),
	new RegExp(String.raw`\bplural\(\s*[^,()]+(?:\([^()]*\))?[^,()]*,\s*` + LITERAL + String.raw`\s*,\s*` + LITERAL, 'g'),
];

function sources(dir) {
	return readdirSync(dir).flatMap(name => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(name) ? [path] : [];
	});
}

/** A string literal of the source, as the string it stands for. */
function unquote(literal) {
	return new Function(`return ${literal};`)();
}

export function usedStrings() {
	const found = new Set();
	for (const file of sources(join(root, 'src'))) {
		const text = readFileSync(file, 'utf8');
		for (const pattern of CALLS) {
			for (const m of text.matchAll(pattern)) for (const literal of m.slice(1)) if (literal) found.add(unquote(literal));
		}
	}
	return [...found].sort();
}

export const BUNDLE = join(root, 'l10n', 'bundle.l10n.json');

if (process.argv.includes('--write')) {
	const bundle = Object.fromEntries(usedStrings().map(s => [s, s]));
	writeFileSync(BUNDLE, JSON.stringify(bundle, null, '\t') + '\n');
	console.log(`${Object.keys(bundle).length} strings in ${BUNDLE}`);
}
