import * as assert from 'node:assert/strict';
import {
	callDurationMs,
	FIELD_RATES,
	learnedRates,
	observeCall,
	observeSummary,
	UNLEARNED_SPEED,
	type LearnedSpeed,
} from '../../../../src/common/background/latency';

/** `n` observations of the same call at `times` the field duration. */
function observed(n: number, input: number, output: number, times: number, from: LearnedSpeed = UNLEARNED_SPEED): LearnedSpeed {
	let speed = from;
	for (let i = 0; i < n; i++) speed = observeCall(speed, input, output, times * callDurationMs(FIELD_RATES, input, output));
	return speed;
}

describe('learned summary speed (latency.ts)', () => {
	it('learns a model twice as slow as the field rates', () => {
		const speed = observed(8, 10_000, 1_000, 2);
		assert.equal(speed.samples, 8);
		assert.ok(Math.abs(speed.scale - 2) < 0.01, `got ${speed.scale}`);
		const predicted = callDurationMs(FIELD_RATES, 10_000, 1_000);
		assert.ok(Math.abs(callDurationMs(learnedRates(speed), 10_000, 1_000) / predicted - 2) < 0.01);
	});

	it('learns from a fast model whose summaries take 50 to 350 ms', () => {
		// A 12k transcript summarized in 300 tokens: about 6 s by the field rates.
		let speed = UNLEARNED_SPEED;
		for (const ms of [50, 350, 120]) speed = observeSummary(speed, [{ promptTokens: 12_000, summaryTokens: 300 }], ms);
		assert.equal(speed.samples, 3);
		const expected = callDurationMs(learnedRates(speed), 12_000, 1_500);
		assert.ok(expected < 2_000, `a full summary is now expected in ${expected} ms, not the field's ${callDurationMs(FIELD_RATES, 12_000, 1_500)}`);
	});

	it('moves less on a call of a few tokens than on a large one at the same ratio', () => {
		const small = observed(1, 20, 2, 0.1);
		const large = observed(1, 10_000, 1_000, 0.1);
		assert.equal(small.samples, 1);
		assert.ok(small.scale > large.scale, `small ${small.scale}, large ${large.scale}`);
		assert.ok(small.scale < 1, 'yet it still moves toward the measurement');
	});

	it('a single stall of 10× moves the estimate less than halfway to it', () => {
		const steady = observed(6, 10_000, 1_000, 1);
		const stalled = observed(1, 10_000, 1_000, 10, steady);
		assert.ok(stalled.scale > steady.scale && stalled.scale < 5.5, `got ${stalled.scale}`);
	});

	it('ignores a duration that is not a measurement', () => {
		for (const ms of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) assert.equal(observeCall(UNLEARNED_SPEED, 10_000, 1_000, ms), UNLEARNED_SPEED);
	});

	it('counts one first token per call of a summary', () => {
		const twoCalls = observeSummary(
			UNLEARNED_SPEED,
			[
				{ promptTokens: 5000, summaryTokens: 500 },
				{ promptTokens: 5000, summaryTokens: 500 },
			],
			2 * callDurationMs(FIELD_RATES, 5000, 500),
		);
		assert.ok(Math.abs(twoCalls.scale - 1) < 1e-9, `two field-speed calls learn 1, got ${twoCalls.scale}`);
	});
});
