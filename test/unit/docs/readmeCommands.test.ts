// The README's two commands for a fresh machine are true: the demo and the test run they name
// exist in package.json, `npm test` runs every tier the README says, and CI (.ci/run) runs the
// README's test command exactly.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');
const read = (name: string) => readFileSync(join(root, name), 'utf8');

/** The command lines (not comments) of the first shell block under the heading that matches `heading`. */
function commandsUnder(markdown: string, heading: RegExp): string[] {
	const lines = markdown.split('\n');
	const at = lines.findIndex(line => heading.test(line));
	assert.ok(at >= 0, `no heading ${heading}`);
	const open = lines.findIndex((line, i) => i > at && /^```(sh|bash)?\s*$/.test(line));
	const close = lines.findIndex((line, i) => i > open && /^```\s*$/.test(line));
	assert.ok(open > at && close > open, 'no shell block under the heading');
	return lines.slice(open + 1, close).filter(line => line.trim() !== '' && !line.trim().startsWith('#'));
}

describe("README's two commands for a fresh machine", () => {
	const commands = commandsUnder(read('README.md'), /^#+ Two commands on a fresh machine/);
	const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;

	it('are the demo and the whole test run, each after npm ci', () => {
		assert.deepEqual(commands, ['npm ci && npm run demo', 'npm ci && npm test']);
	});

	it('the demo is a script that starts scripts/demo.mjs', () => {
		assert.match(scripts.demo, /^node scripts\/demo\.mjs$/);
		assert.ok(existsSync(join(root, 'scripts', 'demo.mjs')));
	});

	it('npm test runs every tier the README names: type check, lint, unit, benchmark, integration, untrusted, Copilot-like tools, end-to-end', () => {
		const steps = scripts.test.split('&&').map(step => step.trim());
		assert.deepEqual(steps, [
			'npm run typecheck',
			'npm run lint',
			'npm run test:unit',
			'npm run test:bench',
			'npm run test:integration',
			'npm run test:untrusted',
			'npm run test:copilot-tools',
			'npm run test:e2e',
		]);
	});

	it('CI runs the README test command exactly, as one line of .ci/run', () => {
		const ci = read('.ci/run')
			.split('\n')
			.map(line => line.trim());
		assert.ok(ci.includes(commands[1]), `.ci/run does not run "${commands[1]}"`);
	});
});
