// The README's "Settings" table and package.json's configuration must describe the same settings
// with the same defaults, and every setting must have its text in package.nls.json.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');
const readJson = (name: string) => JSON.parse(readFileSync(join(root, name), 'utf8'));

interface SettingContribution {
	readonly type: string;
	readonly default: unknown;
	readonly markdownDescription?: string;
	readonly description?: string;
}

/** The rows of the first table under the "Settings" heading: setting name → default as written. */
function readmeSettingsTable(readme: string): Map<string, string> {
	const lines = readme.split('\n');
	const heading = lines.findIndex(line => /^#+ Settings\s*$/.test(line));
	assert.ok(heading >= 0, 'README.md has no "Settings" heading');
	const rows = new Map<string, string>();
	let inTable = false;
	for (const line of lines.slice(heading + 1)) {
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

describe('README settings table', () => {
	const settings = readJson('package.json').contributes.configuration.properties as Record<string, SettingContribution>;
	const table = readmeSettingsTable(readFileSync(join(root, 'README.md'), 'utf8'));

	it('lists exactly the settings package.json contributes', () => {
		assert.deepEqual([...table.keys()].sort(), Object.keys(settings).sort());
	});

	it('gives each setting the default package.json declares', () => {
		for (const [name, written] of table) {
			const value = /^`(.+)`$/.exec(written)?.[1];
			assert.ok(value !== undefined, `${name}: the default should be written in backticks, got ${JSON.stringify(written)}`);
			assert.deepEqual(JSON.parse(value), settings[name]?.default, `${name}: README says ${value}`);
		}
	});

	it('finds the table rows and stops at the end of the table', () => {
		const rows = readmeSettingsTable('# X\n\n### Settings\n\n| Setting | Default |\n| --- | --- |\n| `longhaul.a` | `1` |\n\n| `longhaul.b` | `2` |\n');
		assert.deepEqual([...rows], [['longhaul.a', '`1`']]);
	});
});

describe('package.nls.json', () => {
	const manifest = readFileSync(join(root, 'package.json'), 'utf8');
	const nls = readJson('package.nls.json') as Record<string, string>;

	it('has a text for every %key% package.json uses, and no unused text', () => {
		const used = new Set([...manifest.matchAll(/"%([^"%]+)%"/g)].map(m => m[1]));
		for (const key of used) assert.ok(typeof nls[key] === 'string' && nls[key].length > 0, `package.nls.json has no text for %${key}%`);
		for (const key of Object.keys(nls)) assert.ok(used.has(key), `package.nls.json has ${key}, which package.json does not use`);
	});

	it('describes every setting through package.nls.json', () => {
		const settings = readJson('package.json').contributes.configuration.properties as Record<string, SettingContribution>;
		for (const [name, setting] of Object.entries(settings)) {
			assert.match(setting.markdownDescription ?? setting.description ?? '', /^%[^%]+%$/, `${name} should take its description from package.nls.json`);
		}
	});
});
