import * as assert from 'node:assert/strict';
import { sendWithQuietRetry } from '../../../../src/common/provider/quietRetry';

class Final extends Error {}

describe('sendWithQuietRetry (the summarizer call)', () => {
	it('sends once with options when that works', async () => {
		const calls: boolean[] = [];
		assert.equal(
			await sendWithQuietRetry(
				async o => (calls.push(o), 'reply'),
				() => false,
			),
			'reply',
		);
		assert.deepEqual(calls, [true]);
	});

	it('sends once more without options after an error that is not final', async () => {
		const calls: boolean[] = [];
		const send = async (o: boolean) => {
			calls.push(o);
			if (o) throw new Error('500');
			return 'second';
		};
		assert.equal(await sendWithQuietRetry(send, e => e instanceof Final), 'second');
		assert.deepEqual(calls, [true, false]);
	});

	it('rethrows a final error at once, and the second failure when the retry fails too', async () => {
		let calls = 0;
		await assert.rejects(
			sendWithQuietRetry(
				async () => {
					calls++;
					throw new Final('cancelled');
				},
				e => e instanceof Final,
			),
			Final,
		);
		assert.equal(calls, 1);
		await assert.rejects(
			sendWithQuietRetry(
				async o => {
					throw new Error(o ? 'first' : 'second');
				},
				() => false,
			),
			/second/,
		);
	});
});
