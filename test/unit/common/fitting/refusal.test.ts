import * as assert from 'node:assert/strict';
import { retryMessageBudget, sendWithOneRefit, truncatedAfterFailedSummary, type RefusalRetry } from '../../../../src/common/fitting/refusal';
import type { PromptTooLong } from '../../../../src/common/tokens/promptTooLong';
import type { FitEvent } from '../../../../src/common/fitting/fitPrompt';

describe('after a refusal as too long', () => {
	it('the retry budget is the refused prompt scaled by how much the ratio tightened', () => {
		assert.equal(retryMessageBudget(10_000, 1, 1.25, 20_000), 8_000);
	});

	it('or the new budget, when that is smaller', () => {
		assert.equal(retryMessageBudget(10_000, 1, 1.25, 7_000), 7_000);
	});

	it('always below the refused prompt when the ratio tightened, even when the new budget would hold it', () => {
		assert.ok(retryMessageBudget(5_000, 1.1, 1.1 * 1.15, 50_000) < 5_000);
	});
});

describe('how a fit ended', () => {
	const failed = { kind: 'summary-failed' } as unknown as FitEvent;
	const elided = { kind: 'elided', calls: 1, freedTokens: 10 } as FitEvent;
	const summarized = { kind: 'summarized' } as unknown as FitEvent;
	it('counts truncation after a failed summary, not truncation alone or a summary alone', () => {
		assert.equal(truncatedAfterFailedSummary([failed, elided]), true);
		assert.equal(truncatedAfterFailedSummary([elided]), false);
		assert.equal(truncatedAfterFailedSummary([summarized]), false);
		assert.equal(truncatedAfterFailedSummary([elided, failed]), false);
	});
});

describe('sendWithOneRefit: the agent loop retry after a refusal as too long', () => {
	const refusal: PromptTooLong = { shape: 'anthropic', promptTokens: 120, limit: 100, text: 'prompt is too long' };
	const tooLong = new Error('prompt is too long: 120 tokens > 100 maximum');

	/** A scripted provider: each send answers the next outcome; records what happened. */
	function harness(outcomes: ('ok' | 'too-long' | 'other' | 'stream-then-too-long')[], cancelled = false) {
		const log: string[] = [];
		let ratio = 1;
		const steps: RefusalRetry<string, string> = {
			send: async (prompt, streamed) => {
				const outcome = outcomes.shift();
				log.push(`send ${prompt}`);
				if (outcome === 'ok') return `reply to ${prompt}`;
				if (outcome === 'stream-then-too-long') {
					streamed();
					throw tooLong;
				}
				throw outcome === 'too-long' ? tooLong : new Error('boom');
			},
			recognize: error => (error === tooLong ? refusal : undefined),
			isCancelled: () => cancelled,
			rejected: (_refusal, prompt) => {
				ratio += 0.25;
				log.push(`rejected ${prompt} -> ${ratio}`);
				return ratio;
			},
			refit: async (prompt, _refusal, r) => {
				log.push(`refit ${prompt} at ${r}`);
				return `${prompt}'`;
			},
			giveUp: (_refusal, r) => new Error(`gave up at ${r}`),
		};
		return { log, steps };
	}

	it('refits and sends once more after one refusal', async () => {
		const { log, steps } = harness(['too-long', 'ok']);
		assert.equal(await sendWithOneRefit('p', steps), "reply to p'");
		assert.deepEqual(log, ['send p', 'rejected p -> 1.25', 'refit p at 1.25', "send p'"]);
	});

	it('gives up after the second refusal, having learned from both', async () => {
		const { log, steps } = harness(['too-long', 'too-long', 'ok']);
		await assert.rejects(sendWithOneRefit('p', steps), /gave up at 1.5/);
		assert.deepEqual(log, ['send p', 'rejected p -> 1.25', 'refit p at 1.25', "send p'", "rejected p' -> 1.5"]);
	});

	it('does not resend what already streamed to the user, nor after a cancel, nor other errors', async () => {
		const streamedFirst = harness(['stream-then-too-long', 'ok']);
		await assert.rejects(sendWithOneRefit('p', streamedFirst.steps), /prompt is too long/);
		assert.deepEqual(streamedFirst.log, ['send p']);
		const cancelled = harness(['too-long', 'ok'], true);
		await assert.rejects(sendWithOneRefit('p', cancelled.steps), /prompt is too long/);
		assert.deepEqual(cancelled.log, ['send p']);
		const other = harness(['other', 'ok']);
		await assert.rejects(sendWithOneRefit('p', other.steps), /boom/);
		assert.deepEqual(other.log, ['send p']);
	});
});
