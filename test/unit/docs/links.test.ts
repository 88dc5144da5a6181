// Every relative link in README.md and docs/*.md leads somewhere: the file exists, and an anchor
// into a Markdown page names one of its headings (as GitHub makes anchors of them).
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');

/** The text outside code blocks. */
function outsideCodeBlocks(markdown: string): string {
	return markdown.replace(/^(```+|~~~+)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');
}

/** The text outside code blocks and code spans, where a link is a link. */
function prose(markdown: string): string {
	return outsideCodeBlocks(markdown).replace(/(`+)[\s\S]*?\1/g, '');
}

/** The targets of inline links and images: `[text](target)`, `![alt](target "title")`. */
function linkTargets(markdown: string): string[] {
	return [...prose(markdown).matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(m => m[1]);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
	const headings = outsideCodeBlocks(markdown)
		.split('\n')
		.flatMap(line => {
			const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
			return m ? [m[1]] : [];
		});
	return new Set(headings.map(anchorOf));
}

/** Why `target`, linked from `file`, leads nowhere; undefined when it leads somewhere. */
function brokenLink(file: string, target: string): string | undefined {
	if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:, …
	const [path, anchor] = target.split('#', 2);
	const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
	if (!existsSync(destination)) return `${target}: no such file`;
	if (anchor !== undefined && destination.endsWith('.md') && !anchorsOf(readFileSync(destination, 'utf8')).has(anchor)) {
		return `${target}: no heading with the anchor #${anchor}`;
	}
	return undefined;
}

describe('links in README.md and docs/', () => {
	const pages = [
		join(root, 'README.md'),
		...readdirSync(join(root, 'docs'))
			.filter(f => f.endsWith('.md'))
			.map(f => join(root, 'docs', f)),
	];

	it('every relative link and image leads to a file that exists, and to a heading there', () => {
		const broken = pages.flatMap(file =>
			linkTargets(readFileSync(file, 'utf8'))
				.map(target => brokenLink(file, target))
				.filter((why): why is string => why !== undefined)
				.map(why => `${relative(root, file)}: ${why}`),
		);
		assert.deepEqual(broken, []);
	});

	it('the README links to the pages a newcomer needs', () => {
		const targets = linkTargets(readFileSync(join(root, 'README.md'), 'utf8')).map(t => t.split('#')[0]);
		for (const page of ['docs/tools.md', 'docs/settings.md', 'docs/benchmark.md', 'docs/using.md', 'docs/development.md']) {
			assert.ok(targets.includes(page), `README.md does not link ${page}`);
		}
		assert.ok(
			targets.some(t => /\.(png|svg|jpe?g|gif)$/.test(t)),
			'README.md shows no picture',
		);
	});

	it('the link reader: inline links and images outside code, anchors as GitHub makes them', () => {
		const text = 'See [a](docs/a.md#the-sandbox) and ![b](img/b.png "B").\n\n```\n[c](nowhere.md)\n```\n`[d](nowhere.md)` [e](https://x.org)';
		assert.deepEqual(linkTargets(text), ['docs/a.md#the-sandbox', 'img/b.png', 'https://x.org']);
		assert.equal(anchorOf('The replay benchmark: `npm run bench`'), 'the-replay-benchmark-npm-run-bench');
		assert.equal(anchorOf("Longhaul's tools and their safety rules"), 'longhauls-tools-and-their-safety-rules');
		assert.deepEqual([...anchorsOf('# A `b` c\n```\n# not a heading\n```\n## D: e')], ['a-b-c', 'd-e']);
	});
});
