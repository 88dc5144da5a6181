// Test titles say the behaviour they check: a title that cites an issue number ("issue 32") tells
// the reader of a failing run nothing about what broke.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');

function sources(dir: string): string[] {
	return readdirSync(dir).flatMap(name => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
		return /\.(ts|tsx|mjs|js)$/.test(name) ? [path] : [];
	});
}

/** The literal titles of describe/it calls in `text` (a title in a template with `${…}` is kept as written). */
function testTitles(text: string): string[] {
	const call = /\b(?:describe|it|context|specify)(?:\.only|\.skip)?\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;
	return [...text.matchAll(call)].map(m => m[2]);
}

const ISSUE = /\bissues?[- ]?#?\d+/i;

describe('test titles', () => {
	it('name behaviours, not issue numbers', () => {
		// This file's own examples are the exception.
		const self = join(root, 'test', 'unit', 'docs', 'testTitles.test.ts');
		const offenders = sources(join(root, 'test'))
			.filter(file => file !== self)
			.flatMap(file =>
				testTitles(readFileSync(file, 'utf8'))
					.filter(title => ISSUE.test(title))
					.map(title => `${relative(root, file)}: ${title}`),
			);
		assert.deepEqual(offenders, []);
	});

	it('the title reader finds titles on the next line, in any quotes, and only call titles', () => {
		const text = "describe('a (issue 3)', () => {\n\tit(\n\t\t\"b's issue-4\",\n\t\t() => {},\n\t);\n\tit.skip(`c ${x} issue #5`);\n});\nsay('issue 6');";
		assert.deepEqual(testTitles(text), ['a (issue 3)', "b's issue-4", 'c ${x} issue #5']);
		assert.deepEqual(
			testTitles(text).filter(t => ISSUE.test(t)),
			['a (issue 3)', "b's issue-4", 'c ${x} issue #5'],
		);
	});
});
