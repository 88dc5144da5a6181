// What the Longhaul log says at the default level, request after request: a state that holds from
// one request to the next (the tools left out of a small window) is logged when it changes, not at
// every request.
import * as assert from 'assert';
import { scriptedModel, sendChat, smallWindowSessions } from './helpers';
import { readLonghaulLog } from './longhaulLog';

const LEFT_OUT = /tools: \d+ offered, \d+ left out to keep definitions/g;

async function logSettled(): Promise<string> {
	// The log channel writes its file a moment after the line is logged.
	await new Promise(r => setTimeout(r, 1500));
	return readLonghaulLog();
}

describe('Longhaul log lines', function () {
	this.timeout(90_000);
	smallWindowSessions();

	it('names the tools left out once while the list stays the same, and again when it changes', async () => {
		await sendChat('@longhaul first');
		const before = (await logSettled()).match(LEFT_OUT)?.length ?? 0;
		await sendChat('@longhaul second');
		await sendChat('@longhaul third');
		const after = (await logSettled()).match(LEFT_OUT)?.length ?? 0;
		assert.strictEqual(after, before, `two more requests with the same tools left out add no line (${before} → ${after})`);
		assert.ok(before >= 1, 'the small window leaves tools out, and the log says which');
		await (await scriptedModel()).setMaxInputTokens(128_000);
		await sendChat('@longhaul in a large window');
		const log = await logSettled();
		assert.match(log.slice(-5000), /tools: all \d+ offered/, 'a large window offers every tool, and the log says so once');
	});
});
