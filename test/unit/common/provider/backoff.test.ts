import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { RATE_LIMIT_BACKOFF, describeWait, nextBackoff } from '../../../../src/common/provider/backoff';

const middle = () => 0.5; // no jitter

describe('backoff for rate-limited model requests', () => {
	it('doubles from 2 s and gives up after 4 retries', () => {
		const waits: (number | undefined)[] = [];
		let waited = 0;
		for (let retries = 0; retries < 6; retries++) {
			const wait = nextBackoff(RATE_LIMIT_BACKOFF, retries, waited, undefined, middle);
			waits.push(wait);
			waited += wait ?? 0;
		}
		assert.deepEqual(waits, [2_000, 4_000, 8_000, 16_000, undefined, undefined]);
	});

	it('spreads computed waits by up to 20 % either way', () => {
		assert.equal(
			nextBackoff(RATE_LIMIT_BACKOFF, 0, 0, undefined, () => 0),
			1_600,
		);
		assert.equal(
			nextBackoff(RATE_LIMIT_BACKOFF, 0, 0, undefined, () => 0.999999),
			2_400,
		);
	});

	it('waits what the provider asks for, within bounds, and not at all when it asks for more than a minute', () => {
		assert.equal(nextBackoff(RATE_LIMIT_BACKOFF, 0, 0, 1_000), 1_000);
		assert.equal(nextBackoff(RATE_LIMIT_BACKOFF, 0, 0, 100), 500);
		assert.equal(nextBackoff(RATE_LIMIT_BACKOFF, 0, 0, 90_000), undefined);
	});

	it('never takes the total past two minutes', () => {
		assert.equal(nextBackoff(RATE_LIMIT_BACKOFF, 1, 119_000, undefined, middle), undefined);
		assert.equal(nextBackoff(RATE_LIMIT_BACKOFF, 1, 100_000, 20_000), 20_000);
		assert.equal(nextBackoff(RATE_LIMIT_BACKOFF, 1, 100_001, 20_000), undefined);
		fc.assert(
			fc.property(
				fc.array(fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }), { maxLength: 10 }),
				fc.double({ min: 0, max: 0.999, noNaN: true }),
				(hints, r) => {
					let waited = 0;
					let retries = 0;
					for (const hint of hints) {
						const wait = nextBackoff(RATE_LIMIT_BACKOFF, retries, waited, hint, () => r);
						if (wait === undefined) break;
						assert.ok(wait >= RATE_LIMIT_BACKOFF.minDelayMs && wait <= RATE_LIMIT_BACKOFF.maxDelayMs);
						waited += wait;
						retries++;
					}
					return waited <= RATE_LIMIT_BACKOFF.maxTotalMs && retries <= RATE_LIMIT_BACKOFF.maxRetries;
				},
			),
		);
	});

	it('says a wait in seconds and minutes', () => {
		assert.equal(describeWait(4_000), '4 s');
		assert.equal(describeWait(200), '1 s');
		assert.equal(describeWait(65_000), '1 min 5 s');
		assert.equal(describeWait(120_000), '2 min');
	});
});
