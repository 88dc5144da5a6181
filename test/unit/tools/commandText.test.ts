// Issue 17: the confirmation of longhaul_runCommand shows the exact command, whatever it holds.
// Checked against markdown-it, a CommonMark renderer (VS Code renders confirmations with marked,
// also CommonMark): the rendered markdown must hold one code block, and that block must read back
// as the command.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { commandConfirmation, fromVisible, inlineCode, MAX_COMMAND_CHARS, visible } from '../../../src/tools/commandText';

interface Token {
	type: string;
	content: string;
	children: Token[] | null;
}
// markdown-it comes with @vscode/vsce (a dev dependency) and ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const markdownIt = require('markdown-it') as () => { parse(src: string, env: object): Token[]; parseInline(src: string, env: object): Token[] };
const md = markdownIt();

/** What a reader of the rendered confirmation sees as the command, or why it is not one block. */
function shownCommand(markdown: string): string {
	const tokens = md.parse(markdown, {});
	const fences = tokens.filter(t => t.type === 'fence' || t.type === 'code_block');
	assert.equal(fences.length, 1, `one code block expected, got ${fences.length}:\n${markdown}`);
	const outside = tokens.filter(t => t.type === 'inline').map(t => t.content);
	assert.ok(
		outside.every(text => /^Longhaul wants to run in .*:$|invisible or control character\(s\) are shown as/s.test(text)),
		`text outside the block: ${JSON.stringify(outside)}`,
	);
	return fromVisible(fences[0].content.replace(/\n$/, ''));
}

const OLD_CONFIRMATION = (command: string) => `Longhaul wants to run in \`.\`:\n\n\`\`\`sh\n${command}\n\`\`\``;

// A command that renders as two harmless blocks under a fixed ``` fence while sh runs `echo EVIL`.
// The shell reads the first lines as a here-document and runs `echo EVIL`; markdown sees the end
// of a code block, then a link reference definition whose multi-line title (never rendered) holds
// `echo EVIL`, then a second code block.
const HIDDEN_LINE = ["cat >/dev/null <<'DOC'", '```', "[x]: /u '", 'DOC', 'echo EVIL', ": '", '```sh', "'"].join('\n');

const pieces = [
	'`',
	'``',
	'```',
	'````',
	'~~~',
	'\n',
	'\r',
	'\r\n',
	' ',
	'    ',
	'\t',
	'\u202E',
	'\u2066',
	'\u200B',
	'\u00A0',
	'\u2028',
	'\u001B[2K',
	'\0',
	'⟪U+0041⟫',
	'⟪',
	'<!--',
	'-->',
	"<<'EOF'",
	'EOF',
	'echo EVIL',
	'[a]: /x "',
	'#',
	'> ',
	'- ',
	'\\',
	'$(',
	'a',
	'\uD800',
	'\uDC00',
	'😀',
	'\uFE0F',
	'\u3164',
	'<div>',
	'&amp;',
	'\u0301',
	'\u0336\u0334\u0335',
];

describe('commandText: the confirmation shows the exact command (issue 17)', () => {
	it('control: the old fixed fence hides a line that the shell runs', () => {
		const tokens = md.parse(OLD_CONFIRMATION(HIDDEN_LINE), {});
		const blocks = tokens
			.filter(t => t.type === 'fence')
			.map(t => t.content)
			.join('');
		assert.ok(!blocks.includes('echo EVIL') && !tokens.some(t => t.type === 'inline' && t.content.includes('echo EVIL')), 'the old rendering hid echo EVIL');
	});

	it('shows the hidden-line command whole, in one block', () => {
		const c = commandConfirmation(HIDDEN_LINE, '.');
		assert.equal(c.ok && shownCommand(c.markdown), HIDDEN_LINE);
	});

	it('makes control, bidirectional and invisible characters visible and says so', () => {
		const command = 'echo safe\u202E;rm -rf ~\u202C\r\u001B[2Kecho\u00A0x\u200B';
		const c = commandConfirmation(command, '.');
		assert.ok(c.ok);
		const block = md.parse(c.markdown, {}).find(t => t.type === 'fence')!.content;
		assert.ok(!['\u202E', '\u202C', '\r', '\u001B', '\u00A0', '\u200B'].some(c => block.includes(c)), 'no hidden character reaches the block');
		assert.match(block, /⟪U\+202E⟫/);
		assert.match(c.markdown, /6 invisible or control character\(s\) are shown as ⟪U\+XXXX⟫/);
		assert.equal(shownCommand(c.markdown), command);
	});

	it('shows a pile of combining marks (which can draw over other lines) as markers, and keeps a single accent', () => {
		const zalgo = `echo ok${'\u0336\u0334\u0335'.repeat(30)}\nrm -rf build`;
		const c = commandConfirmation(zalgo, '.');
		assert.ok(c.ok);
		const block = md.parse(c.markdown, {}).find(t => t.type === 'fence')!.content;
		assert.ok(!/\p{M}/u.test(block), 'no combining mark reaches the block');
		assert.equal(shownCommand(c.markdown), zalgo);
		assert.equal(visible('café naïve', true).text, 'café naïve');
		assert.equal(visible('cafe\u0301', true).text, 'cafe\u0301');
	});

	it('refuses commands longer than 10,000 characters with a clear message', () => {
		const c = commandConfirmation('x'.repeat(MAX_COMMAND_CHARS + 1), '.');
		assert.equal(c.ok, false);
		assert.match((c as { reason: string }).reason, /10000 characters.*script file/);
		assert.equal(commandConfirmation('x'.repeat(MAX_COMMAND_CHARS), '.').ok, true);
		const invisible = commandConfirmation('\u200B'.repeat(MAX_COMMAND_CHARS), '.');
		assert.equal(invisible.ok, false, 'a command that becomes too long once made visible is refused');
	});

	it('any command renders as one block that reads back as the command', () => {
		const hostile = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map(parts => parts.join(''));
		const anyText = fc.string({ unit: 'binary', maxLength: 200 });
		fc.assert(
			fc.property(
				fc.oneof(hostile, anyText),
				fc.oneof(
					fc.constant('.'),
					hostile.filter(s => s !== ''),
				),
				(command, folder) => {
					const c = commandConfirmation(command, folder);
					assert.ok(c.ok);
					assert.equal(shownCommand(c.markdown), command);
				},
			),
			{ numRuns: 2000 },
		);
	});

	it('inline code shows any non-empty text exactly, on one line', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 20 }).map(p => p.join('')),
					fc.string({ unit: 'binary', minLength: 1 }),
				),
				text => {
					const tokens = md.parseInline(inlineCode(text), {})[0].children!;
					assert.equal(tokens.length, 1, `one code span for ${JSON.stringify(text)}: ${JSON.stringify(tokens.map(t => t.type))}`);
					assert.equal(tokens[0].type, 'code_inline');
					assert.equal(fromVisible(tokens[0].content), text);
				},
			),
			{ numRuns: 2000 },
		);
		assert.equal(visible('a\nb', false).text, 'a⟪U+000A⟫b');
	});
});
