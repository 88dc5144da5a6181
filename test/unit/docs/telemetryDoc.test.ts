// docs/telemetry.md must list exactly the events and fields the code declares
// (src/common/stats/telemetryEvents.ts), with the same kinds and values.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TELEMETRY_EVENTS } from '../../../src/common/stats/telemetryEvents';

const root = resolve(__dirname, '../../../..');
const EXTENSION_ID = (() => {
	const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
	return `${manifest.publisher}.${manifest.name}`;
})();

interface DocumentedField {
	readonly kind: string;
	readonly values: string[];
	readonly why: string;
}

/** Each `## \`<extension id>/<event>\`` section's table: field name → kind, values, explanation. */
function documentedEvents(markdown: string): Map<string, Map<string, DocumentedField>> {
	const events = new Map<string, Map<string, DocumentedField>>();
	let current: Map<string, DocumentedField> | undefined;
	for (const line of markdown.split('\n')) {
		const heading = /^## `([^`]+)`\s*$/.exec(line);
		if (heading) {
			current = new Map();
			events.set(heading[1], current);
			continue;
		}
		if (line.startsWith('## ')) current = undefined;
		const row = /^\| `([A-Za-z]+)` \| (\w+) \| ([^|]*) \| ([^|]*) \|$/.exec(line);
		if (row && current) {
			const values = row[2] === 'property' ? [...row[3].matchAll(/`([^`]+)`/g)].map(m => m[1]) : [row[3].trim()];
			current.set(row[1], { kind: row[2], values, why: row[4].trim() });
		}
	}
	return events;
}

describe('docs/telemetry.md', () => {
	const documented = documentedEvents(readFileSync(join(root, 'docs', 'telemetry.md'), 'utf8'));

	it('documents exactly the events the code declares, under the names VS Code sends them', () => {
		assert.deepEqual(
			[...documented.keys()].sort(),
			Object.keys(TELEMETRY_EVENTS)
				.map(name => `${EXTENSION_ID}/${name}`)
				.sort(),
		);
	});

	for (const [name, declaration] of Object.entries(TELEMETRY_EVENTS)) {
		it(`lists every field of ${name} with its kind and values, and explains it`, () => {
			const fields = documented.get(`${EXTENSION_ID}/${name}`);
			assert.ok(fields, `no section for ${name}`);
			assert.deepEqual([...fields.keys()].sort(), Object.keys(declaration.fields).sort(), `${name}: documented fields differ from the declared ones`);
			for (const [field, declared] of Object.entries(declaration.fields)) {
				const doc: DocumentedField = fields.get(field)!;
				assert.equal(doc.kind, declared.kind, `${name}.${field}`);
				if (declared.kind === 'property') assert.deepEqual([...doc.values].sort(), [...declared.values].sort(), `${name}.${field}: values`);
				else assert.deepEqual(doc.values, ['number'], `${name}.${field}: a measurement is a number`);
				assert.ok(doc.why.length > 10, `${name}.${field} needs an explanation`);
			}
		});
	}

	it('reads a table the way the checks above expect', () => {
		const parsed = documentedEvents(
			'## `x/e`\n\n| Field | Kind | Values | Why |\n| --- | --- | --- | --- |\n| `a` | property | `p`, `q` | because so |\n| `n` | measurement | number | counts |\n',
		);
		assert.deepEqual(
			[...parsed.get('x/e')!.entries()],
			[
				['a', { kind: 'property', values: ['p', 'q'], why: 'because so' }],
				['n', { kind: 'measurement', values: ['number'], why: 'counts' }],
			],
		);
	});
});
