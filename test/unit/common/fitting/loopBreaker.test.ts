import * as assert from 'node:assert/strict';
import { CALLS_WATCHED_AFTER_SUMMARY, newRepeatTracker, noteCall, noteSummary, REPEATS_AFTER_SUMMARY } from '../../../../src/common/fitting/loopBreaker';

/** The calls a summary replaced, as noteSummary takes them. */
const calls = (...list: [string, string, string][]) => list.map(([name, args, result]) => ({ name, arguments: args, result }));

describe('loop breaker: identical tool calls right after a summary', () => {
	it('does not count before the first summary of the request', () => {
		const t = newRepeatTracker();
		for (let i = 0; i < 5; i++) assert.equal(noteCall(t, 'read', '{"path":"a"}', 'same'), false);
	});

	it(`fires on the ${REPEATS_AFTER_SUMMARY}rd identical call with the same result after a summary, once`, () => {
		const t = newRepeatTracker();
		noteCall(t, 'read', '{"path":"a"}', 'A');
		noteSummary(t, calls(['read', '{"path":"a"}', 'A'], ['read', '{"path":"b"}', 'B']));
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), false);
		assert.equal(noteCall(t, 'read', '{"path":"b"}', 'B'), false);
		assert.equal(noteCall(t, 'read', '{ "path": "a" }', 'A'), false);
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), true, 'third identical call (spacing ignored)');
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), false, 'fires once');
	});

	it('a call repeated with a different result each time is progress, not a loop (tests re-run after edits)', () => {
		const t = newRepeatTracker();
		noteSummary(
			t,
			calls(['run', '{"command":"npm test"}', '3 failing'], ['run', '{"command":"npm test"}', '1 failing'], ['run', '{"command":"npm test"}', 'all passing']),
		);
		assert.equal(noteCall(t, 'run', '{"command":"npm test"}', '3 failing'), false);
		assert.equal(noteCall(t, 'run', '{"command":"npm test"}', '1 failing'), false);
		assert.equal(noteCall(t, 'run', '{"command":"npm test"}', 'all passing'), false);
	});

	it('a call that did not finish (no result) never counts', () => {
		const t = newRepeatTracker();
		noteSummary(t, [{ name: 'run', arguments: '{}' }]);
		for (let i = 0; i < 3; i++) assert.equal(noteCall(t, 'run', '{}', undefined), false);
	});

	it('treats key order as the same call, other tools or arguments as different', () => {
		const t = newRepeatTracker();
		noteSummary(t, calls(['grep', '{"q":"x","dir":"src"}', 'r'], ['find', '{"dir":"src","q":"x"}', 'r'], ['grep', '{"dir":"src","q":"y"}', 'r']));
		noteCall(t, 'grep', '{"q":"x","dir":"src"}', 'r');
		noteCall(t, 'grep', '{"dir":"src","q":"x"}', 'r');
		assert.equal(noteCall(t, 'find', '{"dir":"src","q":"x"}', 'r'), false);
		assert.equal(noteCall(t, 'grep', '{"dir":"src","q":"y"}', 'r'), false);
		assert.equal(noteCall(t, 'grep', '{"dir":"src","q":"x"}', 'r'), true);
	});

	it(`only watches the ${CALLS_WATCHED_AFTER_SUMMARY} calls right after a summary`, () => {
		const t = newRepeatTracker();
		noteSummary(t, calls(['read', '{"path":"a"}', 'A']));
		for (let i = 0; i < CALLS_WATCHED_AFTER_SUMMARY - 1; i++) noteCall(t, 'other', `{"i":${i}}`, 'x');
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), false);
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), false, 'past the window: not counted');
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), false);
	});

	it('starts over at each summary; invalid JSON arguments compare as text', () => {
		const t = newRepeatTracker();
		noteSummary(t, calls(['run', 'not json', 'r']));
		noteCall(t, 'run', 'not json', 'r');
		noteCall(t, 'run', 'not json', 'r');
		noteSummary(t, []);
		assert.equal(noteCall(t, 'run', 'not json', 'r'), false);
		assert.equal(noteCall(t, 'run', 'not json ', 'r'), false);
		assert.equal(noteCall(t, 'run', 'not json', 'r'), true);
	});

	it('a call the agent still sees verbatim is not a loop, however often it repeats (restoring a backup after each failed fix)', () => {
		const t = newRepeatTracker();
		noteSummary(t, calls(['bash', '{"command":"sed -n 1,9p a.py"}', 'old lines']));
		const restore = ['bash', '{"command":"cp a.py.fixed a.py"}', ''] as const;
		for (let i = 0; i < CALLS_WATCHED_AFTER_SUMMARY; i++) assert.equal(noteCall(t, ...restore), false, `repeat ${i + 1}`);
	});

	it('calls replaced by earlier summaries of the request still count after a later one', () => {
		const t = newRepeatTracker();
		noteSummary(t, calls(['read', '{"path":"a"}', 'A']));
		noteSummary(t, calls(['read', '{"path":"b"}', 'B']));
		noteCall(t, 'read', '{"path":"a"}', 'A');
		noteCall(t, 'read', '{"path":"a"}', 'A');
		assert.equal(noteCall(t, 'read', '{"path":"a"}', 'A'), true);
	});

	it('a summarized call repeated between new work is not a loop: the repeats must be at least half of the calls since the summary', () => {
		const t = newRepeatTracker();
		const restore = ['bash', '{"command":"cp a.py.fixed a.py"}', ''] as const;
		noteSummary(t, calls([...restore]));
		assert.equal(noteCall(t, ...restore), false);
		for (let i = 0; i < 3; i++) noteCall(t, 'bash', `{"command":"python fix_${i}.py"}`, `attempt ${i}`);
		assert.equal(noteCall(t, ...restore), false);
		for (let i = 3; i < 6; i++) noteCall(t, 'bash', `{"command":"python fix_${i}.py"}`, `attempt ${i}`);
		assert.equal(noteCall(t, ...restore), false, 'third restore, 3 of 9 calls repeat: progress');
	});

	it('fires when the repeats make up half of the calls since the summary, not less', () => {
		const run = (newCalls: number) => {
			const t = newRepeatTracker();
			noteSummary(t, calls(['read', '{"path":"a"}', 'A']));
			noteCall(t, 'read', '{"path":"a"}', 'A');
			noteCall(t, 'read', '{"path":"a"}', 'A');
			for (let i = 0; i < newCalls; i++) noteCall(t, 'edit', `{"path":"f${i}"}`, 'ok');
			return noteCall(t, 'read', '{"path":"a"}', 'A');
		};
		assert.equal(run(3), true, '3 repeats of 6 calls');
		assert.equal(run(4), false, '3 repeats of 7 calls');
	});
});
