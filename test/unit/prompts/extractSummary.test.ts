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
	it('reads a complete reply as extractSummary does, and says whether the summary was tagged', () => {
		assert.deepEqual(summaryOfReply('<analysis>a</analysis>\n<summary>\n1. Overview: x\n</summary>'), {
			kind: 'summary',
			text: '1. Overview: x',
			tagged: true,
		});
		assert.deepEqual(summaryOfReply('The user asked for X.'), { kind: 'summary', text: 'The user asked for X.', tagged: false });
		assert.deepEqual(summaryOfReply('<analysis>a</analysis> plain text'), { kind: 'summary', text: 'plain text', tagged: false });
		assert.equal(summaryOfReply(''), undefined);
	});

	it('marks a reply that stopped inside its summary or its analysis as cut off', () => {
		assert.deepEqual(summaryOfReply('<analysis>a</analysis><summary>\n1. Overview: cut off here'), { kind: 'cut-off', partial: '1. Overview: cut off here' });
		assert.equal(summaryOfReply('<analysis>\nstill thinking about the')?.kind, 'cut-off');
	});

	it('does not take a <summary> tag quoted in a closed analysis for the start of an unfinished one', () => {
		assert.deepEqual(summaryOfReply('<analysis>I will write <summary> later</analysis>\n<summary>done</summary>'), {
			kind: 'summary',
			text: 'done',
			tagged: true,
		});
	});
});

describe('summaryOfReply: an echo of the prompt is no summary', () => {
	const echoes = [
		// What the test model answered in the demo's second turn.
		'Scripted reply to: <previous-summary>\nThe user asked to fix the serializer. Read fields.py',
		'<conversation-transcript>\n<user>\nfix the bug\n</user>',
		'<summary>\n<summary-to-condense>\nOverview: the parser.\n</summary-to-condense>\n</summary>',
		'Here is the transcript:\n<assistant>\nI will read the file.\n</assistant>',
		'<tool-result name="read_file">\ncontents\n</tool-result>',
		'You write the memory of a long coding-agent session. The conversation below no longer fits',
		'<summary>Write the <analysis> and then the <summary> of the conversation above, following the instructions.</summary>',
	];
	for (const reply of echoes) {
		it(`reads ${JSON.stringify(reply.slice(0, 40))}… as an echo, and extractSummary as nothing`, () => {
			assert.equal(summaryOfReply(reply)?.kind, 'echo');
			assert.equal(extractSummary(reply), undefined);
		});
	}

	it("keeps a summary that uses the section headings, escaped tags, or XML of the user's files", () => {
		const summaries = [
			"1. Conversation overview: the user's goals and requests (quote them), and how the session unfolded.\nThe user asked to fix parse().",
			'The tool output held &lt;previous-summary> as plain text; the code escapes it.',
			'tomcat-users.xml now holds:\n<user username="admin" roles="manager-gui"/>',
			'The prompt element <UserMessage> wraps the text.',
		];
		for (const text of summaries) assert.deepEqual(summaryOfReply(`<summary>\n${text}\n</summary>`), { kind: 'summary', text, tagged: true });
	});
});
