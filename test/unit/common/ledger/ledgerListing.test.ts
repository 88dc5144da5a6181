import * as assert from 'node:assert/strict';
import { emptyLedger, type DoneLedger } from '../../../../src/common/ledger/doneLedger';
import { inlineCode, LISTED_PER_KIND, ledgerListing, plainText } from '../../../../src/common/ledger/ledgerListing';

const stamp = (last: number) => ({ last, round: `r${last}` });

describe('ledger listing (/context)', () => {
	it('lists every command whole, newest first, with its outcome, never a prefix of several', () => {
		const ledger: DoneLedger = {
			...emptyLedger(),
			commands: [
				{ command: 'python -m pytest ./tests/unittest_brain_builtin.py -xvs', count: 2, outcome: 'exit 1', failed: true, ...stamp(3) },
				{ command: 'python -m pytest ./tests/unittest_brain.py -xvs', count: 1, outcome: 'exit 0', failed: false, ...stamp(5) },
			],
			steps: 5,
		};
		const lines = ledgerListing(ledger);
		assert.deepEqual(lines.slice(0, 4), [
			'**Commands run** (2, newest first):',
			'',
			'- `python -m pytest ./tests/unittest_brain.py -xvs`: exit 0',
			'- `python -m pytest ./tests/unittest_brain_builtin.py -xvs`: exit 1 (run 2 times)',
		]);
		assert.ok(!lines.some(l => l.includes('followed by')));
		assert.ok(!lines.some(l => l.startsWith('```')), 'no code block: the lines wrap at the panel width');
	});

	it('lists files read and edited and counts the older entries past the cap', () => {
		const reads = Array.from({ length: LISTED_PER_KIND + 3 }, (_, i) => ({ path: `src/f${i}.ts`, count: 1, ...stamp(i) }));
		const lines = ledgerListing({
			...emptyLedger(),
			reads,
			edits: [{ path: 'src/a.ts', count: 3, failed: 1, created: true, ...stamp(40) }],
			steps: 40,
		});
		assert.ok(lines.includes('- `src/a.ts` (created, 2 edits, 1 failed attempt)'), lines.join('\n'));
		assert.ok(lines.includes(`- \`src/f${LISTED_PER_KIND + 2}.ts\``), 'the newest read is listed');
		assert.ok(!lines.includes('- `src/f0.ts`'), 'the oldest are not');
		assert.ok(lines.includes('- … and 3 older'));
	});

	it('quotes text holding backticks so the code span cannot end early', () => {
		assert.equal(inlineCode('echo `date` now'), '``echo `date` now``');
		assert.equal(inlineCode('`x`'), '`` `x` ``');
		assert.deepEqual(ledgerListing(emptyLedger()), []);
	});
});

describe('ledger listing: text from the conversation', () => {
	it('lists the requests numbered, with no markdown of theirs live (no link can become a command)', () => {
		const lines = ledgerListing({ ...emptyLedger(), requests: ['fix it', 'see [x](command:longhaul.restoreSummary) *now*'] });
		assert.deepEqual(lines.slice(0, 4), ['**Requests** (2):', '', '1. fix it', '2. see \\[x\\](command:longhaul.restoreSummary) \\*now\\*']);
		assert.equal(plainText('a_b-c'), 'a\\_b-c');
		assert.equal(plainText('# not a heading'), '\\# not a heading');
	});
});
