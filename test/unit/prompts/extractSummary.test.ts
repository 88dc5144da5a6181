import * as assert from 'node:assert/strict';
import { extractSummary, summaryOfReply } from '../../../src/prompts/extractSummary';

describe('extractSummary', () => {
	it('returns the contents of the <summary> block, trimmed', () => {
		assert.equal(extractSummary('<analysis>\nthinking\n</analysis>\n<summary>\n1. Overview: x\n</summary>'), '1. Overview: x');
	});

	it('ignores a <summary> tag mentioned inside the analysis', () => {
		const output = '<analysis>I will put the plan in the <summary> section.</analysis>\n<summary>the real one</summary>';
		assert.equal(extractSummary(output), 'the real one');
	});

	it('keeps a summary that quotes the closing tag whole', () => {
		assert.equal(extractSummary('<summary>The prompt ends with </summary> tags.\nMore.</summary>'), 'The prompt ends with </summary> tags.\nMore.');
	});

	it('keeps what was written when the reply stopped before the closing tag', () => {
		assert.equal(extractSummary('<analysis>a</analysis><summary>\n1. Overview: cut off here'), '1. Overview: cut off here');
	});

	it('accepts tags in any case', () => {
		assert.equal(extractSummary('<SUMMARY>upper</SUMMARY>'), 'upper');
	});

	it('returns the whole reply when the model wrote no tags', () => {
		assert.equal(extractSummary('  The user asked for X. Done: Y.  '), 'The user asked for X. Done: Y.');
	});

	it('drops a complete analysis when the summary itself is untagged', () => {
		assert.equal(extractSummary('<analysis>notes</analysis>\nPlain summary text.'), 'Plain summary text.');
	});

	it('returns undefined for empty or whitespace-only output and for an empty summary block', () => {
		assert.equal(extractSummary(''), undefined);
		assert.equal(extractSummary(' \n\t '), undefined);
		assert.equal(extractSummary('<analysis>x</analysis><summary>  \n </summary>'), undefined);
	});
});

describe('summaryOfReply', () => {
	it('reads a complete reply as extractSummary does, tagged or not', () => {
		for (const reply of ['<analysis>a</analysis>\n<summary>\n1. Overview: x\n</summary>', 'The user asked for X.', '<analysis>a</analysis> plain text', '']) {
			assert.equal(summaryOfReply(reply), extractSummary(reply));
		}
	});

	it('marks a reply that stopped inside its summary or its analysis as cut off', () => {
		assert.deepEqual(summaryOfReply('<analysis>a</analysis><summary>\n1. Overview: cut off here'), { cutOff: true, partial: '1. Overview: cut off here' });
		assert.equal((summaryOfReply('<analysis>\nstill thinking about the') as { cutOff: boolean }).cutOff, true);
	});

	it('does not take a <summary> tag quoted in a closed analysis for the start of an unfinished one', () => {
		assert.equal(summaryOfReply('<analysis>I will write <summary> later</analysis>\n<summary>done</summary>'), 'done');
	});
});
