// Shortened commands in the done-ledger: each form stands for exactly one command of the ledger.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LedgerCommand } from '../../../../src/common/ledger/doneLedger';
import { commandGroups, formMatches, identifyingForms } from '../../../../src/common/ledger/ledgerCommands';

const command = (text: string, i = 0): LedgerCommand => ({ command: text, count: 1, outcome: 'exit 0', failed: false, last: i + 1, round: 'r' });

describe('ledger commands', () => {
	it('keeps the first words, the path and the words that tell a command apart', () => {
		const commands = [
			'python -m pytest tests/unit/cli/formats/test_field_cli_5.py -k "record and not slow" -q 2>&1 | tail -30',
			'python -m pytest tests/unit/cli/formats/test_field_cli_5.py -k "cache and not slow" -q 2>&1 | tail -30',
			'python -m pytest tests/unit/io/test_reader.py::TestReader::test_reads_the_last_record_without_newline -x -q',
		].map(command);
		const forms = identifyingForms(commands, 56);
		assert.equal(forms.get(commands[0]), 'python -m pytest tests/unit/cli/formats/test_field_cli_5.py -k "record …');
		assert.equal(forms.get(commands[1]), 'python -m pytest tests/unit/cli/formats/test_field_cli_5.py -k "cache …');
		assert.equal(forms.get(commands[2]), 'python -m pytest tests/unit/io/test_reader.py::TestReader::test_reads_the_last_record_without_newline …');
		assert.ok(formMatches('a b …d …', 'a b c d e'));
		assert.ok(!formMatches('a b …d …', 'a b c e'));
		assert.ok(formMatches('ab …yz', 'ab c yz') && !formMatches('ab …yz', 'ab c yz q'), 'the last piece is at the end');
		assert.ok(!formMatches('ab …yz', 'abc yz') && !formMatches('a …-k …', 'a --keep'), 'pieces match whole words, not parts of words');
	});

	it('a command stored already cut (ending in …) stands for itself, and two such commands stay apart', () => {
		const a = 'python -c " ; import django ; from django.db import models ; auto_field_meta = type(models.Auto…';
		const b = 'python -c " ; import django ; from django.db import models ; field_instance = models.BigAutoFie…';
		assert.ok(formMatches(a, a) && formMatches(b, b));
		assert.ok(!formMatches(a, b) && !formMatches(b, a));
		const forms = identifyingForms([command(a), command(b, 1)], 10_000);
		assert.deepEqual([...forms.values()], [a, b], 'shown as stored when there is room');
	});

	it('property: every form stands for its own command and for no other command of the ledger', () => {
		const word = fc.constantFrom(
			'python',
			'-m',
			'pytest',
			'tests/a.py',
			'tests/b.py',
			'-k',
			'"x',
			'"y',
			'and',
			'not',
			'slow"',
			'-q',
			'2>&1',
			'|',
			'tail',
			'-30',
			'src/m/n.py',
			'--fast',
		);
		fc.assert(
			fc.property(
				fc.uniqueArray(
					fc.array(word, { minLength: 1, maxLength: 14 }).map(ws => ws.join(' ')),
					{ maxLength: 40 },
				),
				fc.integer({ min: 10, max: 80 }),
				(texts, max) => {
					const commands = texts.map(command);
					const forms = identifyingForms(commands, max);
					for (const c of commands) {
						const form = forms.get(c)!;
						assert.ok(formMatches(form, c.command), `${JSON.stringify(form)} should stand for ${JSON.stringify(c.command)}`);
						for (const other of commands) {
							if (other !== c) assert.ok(!formMatches(form, other.command), `${JSON.stringify(form)} also stands for ${JSON.stringify(other.command)}`);
						}
					}
					// Groups keep every command once, and their shared start is each command's start.
					const groups = commandGroups(commands, forms);
					assert.deepEqual(groups.flatMap(g => g.commands).length, commands.length);
					for (const g of groups) for (const c of g.commands) assert.ok(forms.get(c)!.startsWith(g.prefix));
				},
			),
			{ numRuns: 300 },
		);
	});
});
