import * as assert from 'node:assert/strict';
import { instructionsCap, pinInstructions, pinnedNotice } from '../../../../src/common/instructions/pinnedInstructions';
import { TiktokenTokenizer } from '../../../../src/common/tokens/tokenizer';
import { agentInstructions } from '../../../../src/prompts/agentInstructions';

const tokenizer = new TiktokenTokenizer();
const count = (text: string) => tokenizer.countTokens(text);
const lines = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} rule ${i + 1}: always run the tests before you commit.`).join('\n');

describe('pinned instructions', () => {
	it('puts every file word for word in one section, in order, when they fit', () => {
		const agents = '# Rules\nUse tabs.\r\nNever push to main.';
		const pinned = pinInstructions(
			[
				{ path: 'AGENTS.md', text: agents },
				{ path: '.github/copilot-instructions.md', text: 'Answer in French.' },
			],
			1000,
			count,
		);
		assert.ok(pinned.text);
		assert.match(pinned.text, /^# Workspace instructions/);
		assert.ok(pinned.text.includes('<instructions file="AGENTS.md">\n# Rules\nUse tabs.\nNever push to main.\n</instructions>'));
		assert.ok(pinned.text.indexOf('AGENTS.md') < pinned.text.indexOf('copilot-instructions.md'));
		assert.deepEqual(
			pinned.files.map(f => [f.path, f.state]),
			[
				['AGENTS.md', 'whole'],
				['.github/copilot-instructions.md', 'whole'],
			],
		);
		assert.equal(pinnedNotice(pinned), undefined);
	});

	it('skips empty files and gives no section without text', () => {
		const pinned = pinInstructions([{ path: 'AGENTS.md', text: '  \n' }], 1000, count);
		assert.equal(pinned.text, undefined);
		assert.deepEqual(pinned.files, []);
	});

	it('cuts the file that passes the cap to its first lines, leaves out the ones after, and says so', () => {
		const first = lines('first', 10);
		const big = lines('big', 400);
		const pinned = pinInstructions(
			[
				{ path: 'AGENTS.md', text: first },
				{ path: 'extra.md', text: big },
				{ path: 'late.md', text: 'Late rule.' },
			],
			600,
			count,
		);
		const [a, b, c] = pinned.files;
		assert.equal(a.state, 'whole');
		assert.equal(b.state, 'cut');
		assert.ok(b.keptTokens > 0 && b.keptTokens < b.tokens);
		assert.equal(c.state, 'left-out');
		assert.ok(pinned.text!.includes('big rule 1: always'), 'the beginning of the cut file is kept');
		assert.doesNotMatch(pinned.text!, /big rule 400:/);
		assert.doesNotMatch(pinned.text!, /Late rule/);
		assert.match(pinned.text!, /more tokens of this file left out/);
		const fileBlocks = pinned.text!.slice(pinned.text!.indexOf('<instructions'));
		assert.ok(count(fileBlocks) <= 600 + 20, `the files stay within the cap: ${count(fileBlocks)}`);
		const notice = pinnedNotice(pinned)!;
		assert.match(notice, /extra\.md was cut to its first \d+ of \d+ tokens/);
		assert.match(notice, /late\.md \(\d+ tokens\) was left out/);
	});

	it('is a tenth of the message budget', () => {
		assert.equal(instructionsCap(50_000), 5000);
	});

	it('goes into the system instructions after the general guidance', () => {
		const pinned = pinInstructions([{ path: 'AGENTS.md', text: 'PINNED-RULE' }], 100, count);
		const text = agentInstructions({ toolNames: [], workspace: '/w', hasDoneLedger: false, pinned: pinned.text });
		assert.ok(text.indexOf('# Long sessions') < text.indexOf('# Workspace instructions'));
		assert.match(text, /PINNED-RULE/);
		assert.doesNotMatch(agentInstructions({ toolNames: [], workspace: '/w', hasDoneLedger: false }), /Workspace instructions/);
	});
});
