import * as assert from 'node:assert/strict';
import { describeLocation, summaryDocument, textHash } from '../../../../src/common/summaries/summaryDocument';

describe('summary documents', () => {
	const summary = {
		roundId: 't2r11',
		text: '<summary>\n1. Conversation Overview: fixing greet()\n</summary>',
		location: { source: 'history', turnIndex: 2, roundIndex: 11 },
	} as const;

	it('hold the summary exactly as the model sees it, under a header saying what it stands for', () => {
		const document = summaryDocument({ ...summary, request: '  fix the   failing\ntests ', summarizedRounds: 42 });
		assert.ok(document.content.endsWith('\n---\n\n' + summary.text + '\n'), document.content);
		assert.match(document.content, /^# Longhaul summary\n/);
		assert.match(
			document.content,
			/in place of the conversation up to request 3, round 12 \(the request "fix the failing tests"\)\. It was made from 42 older rounds\. To correct it, edit the text below the line and save/,
		);
		assert.equal(document.title, 'Longhaul summary (request 3, round 12).md');
	});

	it('name rounds of the request in progress without a turn number, and shorten long requests', () => {
		assert.equal(describeLocation({ source: 'active', turnIndex: -1, roundIndex: 0 }), 'round 1 of this request');
		const document = summaryDocument({ ...summary, request: 'x'.repeat(200) });
		assert.match(document.content, new RegExp(`"${'x'.repeat(79)}…"`));
		assert.doesNotMatch(summaryDocument(summary).content, /the request/);
		assert.doesNotMatch(summaryDocument({ ...summary, summarizedRounds: 1 }).content, /1 older rounds/);
	});

	it('name a round of the request in progress by its request number when given, as /context and /restore N do', () => {
		const active = { source: 'active', turnIndex: -1, roundIndex: 55 } as const;
		assert.equal(describeLocation(active, 2), 'request 2, round 56');
		const document = summaryDocument({ ...summary, location: active, currentRequest: 2 });
		assert.equal(document.title, 'Longhaul summary (request 2, round 56).md');
		assert.equal(document.request, 2);
		assert.equal(summaryDocument(summary).request, 3, 'a past request: its turn number');
		assert.equal(summaryDocument({ ...summary, location: active }).request, undefined);
	});

	it('have a key that is the same for the same summary and differs for another text on the same anchor', () => {
		assert.equal(summaryDocument(summary).key, summaryDocument({ ...summary, request: 'other' }).key);
		assert.notEqual(summaryDocument(summary).key, summaryDocument({ ...summary, text: summary.text + ' ' }).key);
		assert.match(summaryDocument(summary).key, /^t2r11-[0-9a-f]{8}$/);
		assert.equal(textHash(''), '811c9dc5');
		assert.equal(textHash('a'), 'e40c292c'); // the published FNV-1a test vector
	});
});
