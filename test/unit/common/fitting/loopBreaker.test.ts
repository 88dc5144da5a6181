import * as assert from 'node:assert/strict';
import { CALLS_WATCHED_AFTER_SUMMARY, newRepeatTracker, noteCall, noteSummary, REPEATS_AFTER_SUMMARY } from '../../../../src/common/fitting/loopBreaker';

describe('loop breaker: identical tool calls right after a summary', () => {
	it('does not count before the first summary of the request', () => {
		const t = newRepeatTracker();
		for (let i = 0; i < 5; i++) assert.equal(noteCall(t, 'read', '{"path":"a"}', 'same'), false);
	});

	it(`fires on the ${REPEATS_AFTER_SUMMARY}rd identical call with the same result after a summary, once`, () => {
		const t = newRepeatTracker();
		noteCall(t, 'read', '{"path":"a"}', 'A');
		noteSummary(t);
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), false);
		assert.equal(noteCall(t, 'read', '{"path":"b"}', 'B'), false);
		assert.equal(noteCall(t, 'read', '{ "path": "a" }', 'A'), false);
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), true, 'third identical call (spacing ignored)');
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), false, 'fires once');
	});

	it('a call repeated with a different result each time is progress, not a loop (tests re-run after edits)', () => {
		const t = newRepeatTracker();
		noteSummary(t);
		assert.equal(noteCall(t, 'run', '{"command":"npm test"}', '3 failing'), false);
		assert.equal(noteCall(t, 'run', '{"command":"npm test"}', '1 failing'), false);
		assert.equal(noteCall(t, 'run', '{"command":"npm test"}', 'all passing'), false);
	});

	it('a call that did not finish (no result) never counts', () => {
		const t = newRepeatTracker();
		noteSummary(t);
		for (let i = 0; i < 3; i++) assert.equal(noteCall(t, 'run', '{}', undefined), false);
	});

	it('treats key order as the same call, other tools or arguments as different', () => {
		const t = newRepeatTracker();
		noteSummary(t);
		noteCall(t, 'grep', '{"q":"x","dir":"src"}', 'r');
		noteCall(t, 'grep', '{"dir":"src","q":"x"}', 'r');
		assert.equal(noteCall(t, 'find', '{"dir":"src","q":"x"}', 'r'), false);
		assert.equal(noteCall(t, 'grep', '{"dir":"src","q":"y"}', 'r'), false);
		assert.equal(noteCall(t, 'grep', '{"dir":"src","q":"x"}', 'r'), true);
	});

	it(`only watches the ${CALLS_WATCHED_AFTER_SUMMARY} calls right after a summary`, () => {
		const t = newRepeatTracker();
		noteSummary(t);
		for (let i = 0; i < CALLS_WATCHED_AFTER_SUMMARY - 1; i++) noteCall(t, 'other', `{"i":${i}}`, 'x');
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), false);
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), false, 'past the window: not counted');
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), false);
	});

	it('starts over at each summary; invalid JSON arguments compare as text', () => {
		const t = newRepeatTracker();
		noteSummary(t);
		noteCall(t, 'run', 'not json', 'r');
		noteCall(t, 'run', 'not json', 'r');
		noteSummary(t);
		assert.equal(noteCall(t, 'run', 'not json', 'r'), false);
		assert.equal(noteCall(t, 'run', 'not json ', 'r'), false);
		assert.equal(noteCall(t, 'run', 'not json', 'r'), true);
	});
});
