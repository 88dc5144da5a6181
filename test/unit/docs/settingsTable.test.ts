// docs/settings.md's table and package.json's configuration must describe the same settings with
// the same defaults; the README's "Settings that matter" table takes some of them, with the same
// defaults; every setting the README or docs/ names exists; and every setting has its text in
// package.nls.json.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');
const readJson = (name: string) => JSON.parse(readFileSync(join(root, name), 'utf8'));
const read = (name: string) => readFileSync(join(root, name), 'utf8');

interface SettingContribution {
	readonly type: string;
	readonly default: unknown;
	readonly markdownDescription?: string;
	readonly description?: string;
}

const settings = readJson('package.json').contributes.configuration.properties as Record<string, SettingContribution>;

/** The rows of the first table under the heading `heading`: setting name → default as written. */
function settingsTable(markdown: string, heading: RegExp): Map<string, string> {
	const lines = markdown.split('\n');
	const at = lines.findIndex(line => heading.test(line));
	assert.ok(at >= 0, `no heading ${heading}`);
	const rows = new Map<string, string>();
	let inTable = false;
	for (const line of lines.slice(at + 1)) {
		if (line.startsWith('|')) {
			inTable = true;
			const cells = line.split('|').map(cell => cell.trim());
			const name = /^`(longhaul\.[A-Za-z]+)`$/.exec(cells[1]);
			if (name) rows.set(name[1], cells[2]);
		} else if (inTable || /^#/.test(line)) {
			break;
		}
	}
	return rows;
}

function assertDefaults(table: Map<string, string>, where: string): void {
	for (const [name, written] of table) {
		const value = /^`(.+)`$/.exec(written)?.[1];
		assert.ok(value !== undefined, `${where}: ${name}: the default should be written in backticks, got ${JSON.stringify(written)}`);
		assert.ok(name in settings, `${where}: ${name} is not a setting package.json contributes`);
		assert.deepEqual(JSON.parse(value), settings[name].default, `${where}: ${name}: says ${value}`);
	}
}

describe('settings reference (docs/settings.md)', () => {
	const table = settingsTable(read('docs/settings.md'), /^#+ Settings\s*$/);

	it('lists exactly the settings package.json contributes', () => {
		assert.deepEqual([...table.keys()].sort(), Object.keys(settings).sort());
	});

	it('gives each setting the default package.json declares', () => {
		assertDefaults(table, 'docs/settings.md');
	});

	it('finds the table rows and stops at the end of the table', () => {
		const rows = settingsTable(
			'# X\n\n### Settings\n\n| Setting | Default |\n| --- | --- |\n| `longhaul.a` | `1` |\n\n| `longhaul.b` | `2` |\n',
			/^#+ Settings\s*$/,
		);
		assert.deepEqual([...rows], [['longhaul.a', '`1`']]);
	});
});

describe("README's settings that matter", () => {
	it('are settings package.json contributes, with their defaults', () => {
		const table = settingsTable(read('README.md'), /^#+ Settings that matter\s*$/);
		assert.ok(table.has('longhaul.halfContextSummarization'), 'the README table should name longhaul.halfContextSummarization');
		assertDefaults(table, 'README.md');
	});

	it('every longhaul.* setting the README and docs/ name exists', () => {
		const pages = [
			'README.md',
			...readdirSync(join(root, 'docs'))
				.filter(f => f.endsWith('.md'))
				.map(f => `docs/${f}`),
		];
		const unknown: string[] = [];
		for (const page of pages) {
			for (const m of read(page).matchAll(/`(longhaul\.[A-Za-z]+)`/g)) {
				if (!(m[1] in settings)) unknown.push(`${page}: ${m[1]}`);
			}
		}
		assert.deepEqual([...new Set(unknown)], []);
	});
});

describe('package.nls.json', () => {
	const manifest = read('package.json');
	const nls = readJson('package.nls.json') as Record<string, string>;

	it('has a text for every %key% package.json uses, and no unused text', () => {
		const used = new Set([...manifest.matchAll(/"%([^"%]+)%"/g)].map(m => m[1]));
		for (const key of used) assert.ok(typeof nls[key] === 'string' && nls[key].length > 0, `package.nls.json has no text for %${key}%`);
		for (const key of Object.keys(nls)) assert.ok(used.has(key), `package.nls.json has ${key}, which package.json does not use`);
	});

	it('describes every setting through package.nls.json', () => {
		for (const [name, setting] of Object.entries(settings)) {
			assert.match(setting.markdownDescription ?? setting.description ?? '', /^%[^%]+%$/, `${name} should take its description from package.nls.json`);
		}
	});
});
