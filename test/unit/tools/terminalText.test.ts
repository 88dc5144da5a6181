// Output shown in Longhaul's terminal cannot rewrite what the terminal shows (issue 32): cursor
// moves, erases, concealed text, titles and screen switches are shown as markers; colours stay.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { TerminalFilter } from '../../../src/tools/terminalText';

/** One whole text through a fresh filter, as runCommand shows a finished command's output. */
function terminalText(text: string): string {
	const filter = new TerminalFilter();
	return filter.push(text) + filter.end();
}

const ESC = '\u001b';

/** What a terminal that only honours printable text, tabs, line feeds and SGR would show. */
function acts(text: string): boolean {
	// eslint-disable-next-line no-control-regex
	const withoutSgr = text.replace(/\u001b\[[0-9;]*m/g, '');
	// eslint-disable-next-line no-control-regex
	return /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(withoutSgr);
}

describe('terminalText: the terminal shows what ran and its real exit line', () => {
	it('a forged passing run: the cursor moves up and erases the failure, the title changes; all shown as markers, the failure stays', () => {
		const forged = `FAIL test_x\n${ESC}[1A${ESC}[2K${ESC}[32mPASS${ESC}[0m all tests\n${ESC}]0;tests passed\u0007${ESC}[?1049h`;
		const shown = terminalText(forged);
		assert.equal(acts(shown), false, JSON.stringify(shown));
		assert.match(shown, /^FAIL test_x\n/);
		assert.ok(shown.includes('⟪ESC[1A⟫⟪ESC[2K⟫'), shown);
		assert.ok(shown.includes('⟪ESC]0;tests passedU+0007⟫'), shown);
		assert.ok(shown.includes('⟪ESC[?1049h⟫'), shown);
		assert.ok(shown.includes(`${ESC}[32mPASS${ESC}[0m`), 'colours stay');
	});

	it('concealed, inverse and background-coloured text is shown plainly; bold and foreground colours stay', () => {
		assert.equal(terminalText(`${ESC}[8msecret${ESC}[0m`), `secret${ESC}[0m`);
		assert.equal(terminalText(`${ESC}[1;8;31mx`), `${ESC}[1;31mx`);
		assert.equal(terminalText(`${ESC}[30;40mhidden`), 'hidden');
		assert.equal(terminalText(`${ESC}[38;5;16;48;5;16mhidden`), 'hidden');
	});

	it('an empty SGR parameter is 0, a reset: kept as one, whole or split across chunks', () => {
		// A dropped reset left the colour before it on the text after it.
		assert.equal(terminalText(`${ESC}[31mred${ESC}[;mplain`), `${ESC}[31mred${ESC}[0;0mplain`);
		assert.equal(terminalText(`${ESC}[31;mplain`), `${ESC}[31;0mplain`);
		const filter = new TerminalFilter();
		const out = [`${ESC}[`, ';', 'm', 'AA', 'A'].map(chunk => filter.push(chunk)).join('') + filter.end();
		assert.equal(out, `${ESC}[0;0mAAA`);
	});

	it('an unfinished title or other string sequence ends at the line: the output after it is shown, not swallowed', () => {
		// `printf '\e]'; npm test`: the test run's lines must not vanish into a cut marker.
		const shown = terminalText(`${ESC}]0;${'x'.repeat(70)}\nFAIL 3 tests\r\nexit 1\n`);
		assert.match(shown, /^⟪ESC\]0;x{56}…⟫\nFAIL 3 tests\nexit 1\n$/);
		assert.equal(terminalText(`a${ESC}\nFAIL`), 'a⟪ESC⟫\nFAIL', 'a lone ESC does not take the line feed');
		assert.equal(terminalText(`${ESC}P1;2q#0\r\nok`), '⟪ESCP1;2q#0⟫\nok');
	});

	it('a carriage return starts a new line instead of overwriting; backspaces and bells are markers', () => {
		assert.equal(terminalText('FAIL\rPASS\r\nok'), 'FAIL\nPASS\nok');
		assert.equal(terminalText('FAIL\b\b\b\bPASS\u0007'), 'FAIL⟪U+0008⟫⟪U+0008⟫⟪U+0008⟫⟪U+0008⟫PASS⟪U+0007⟫');
		assert.equal(terminalText('a\u009b2Kb'), 'a⟪U+009B⟫2Kb');
	});

	it('a sequence split across chunks is recognised whole; an unfinished one at the end is shown', () => {
		const filter = new TerminalFilter();
		const out = filter.push(`a${ESC}[`) + filter.push('2') + filter.push('Kb\r') + filter.push('\nc') + filter.push(`${ESC}]0;ti`) + filter.end();
		assert.equal(out, 'a⟪ESC[2K⟫b\nc⟪ESC]0;ti⟫');
	});

	it('property: whatever the output and however it is split, nothing but SGR acts on the terminal, and printable text is kept', () => {
		const piece = fc.oneof(
			fc.string({ maxLength: 8 }),
			fc.constantFrom(`${ESC}[`, `${ESC}]`, '\u0007', '\r', '\n', '\b', `${ESC}\\`, 'm', '2K', '1;31m', `${ESC}P`, '\u009b', ';'),
		);
		fc.assert(
			fc.property(fc.array(piece, { maxLength: 20 }), fc.array(fc.nat(40), { maxLength: 5 }), (parts, cuts) => {
				const text = parts.join('');
				const filter = new TerminalFilter();
				let out = '';
				let at = 0;
				for (const cut of [...cuts].sort((a, b) => a - b)) {
					out += filter.push(text.slice(at, Math.max(at, cut)));
					at = Math.max(at, cut);
				}
				out += filter.push(text.slice(at)) + filter.end();
				assert.equal(out, terminalText(text), 'the split changes nothing');
				assert.equal(acts(out), false, JSON.stringify({ text, out }));
				// Printable text stays, inside a marker or not. Not printable: the letters of an SGR
				// sequence (its final `m` goes with a dropped one) and the payload of a string
				// sequence (OSC, DCS, …), which a long marker cuts.
				const read = out.replace(/⟪ESC|⟪|⟫/g, '');
				// eslint-disable-next-line no-control-regex
				const printable = text.replace(/\u001b\[[0-9;]*m/g, ' ').replace(/\u001b[\]PX^_][^\u0007\u001b]*/g, ' ');
				for (const word of printable.split(/[^A-Za-z]+/).filter(w => w.length > 3)) assert.ok(read.includes(word), JSON.stringify({ word, text, out }));
			}),
			{ numRuns: 500 },
		);
	});
});
