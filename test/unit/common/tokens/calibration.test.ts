import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
	MAX_MODELS,
	MAX_RATIO,
	MIN_RATIO,
	UNCALIBRATED,
	calibrationRatio,
	countAsText,
	isUncounted,
	judgeMessageCounting,
	observeRejection,
	withSampleRecord,
	observeSample,
	readCalibrationStore,
	shouldSample,
	storeCalibration,
	type Calibration,
} from '../../../../src/common/tokens/calibration';
import { computeBudget } from '../../../../src/common/tokens/budget';

describe('token calibration: the model count per local token', () => {
	it('starts at 1 and takes the first sample as it is', () => {
		assert.equal(calibrationRatio(UNCALIBRATED), 1);
		const c = observeSample(UNCALIBRATED, 10_000, 12_500, 1);
		assert.equal(calibrationRatio(c), 1.25);
		assert.equal(c.samples, 1);
	});

	it('rises at once and falls slowly', () => {
		let c = observeSample(UNCALIBRATED, 10_000, 11_000, 1);
		c = observeSample(c, 10_000, 13_000, 2);
		assert.equal(calibrationRatio(c), 1.3);
		c = observeSample(c, 10_000, 11_000, 3);
		assert.ok(calibrationRatio(c) > 1.2 && calibrationRatio(c) < 1.3, `fell by a quarter of the gap, got ${calibrationRatio(c)}`);
	});

	it('ignores samples too small to mean anything, and nonsense counts', () => {
		const c = observeSample(UNCALIBRATED, 50, 500, 1);
		assert.equal(c, UNCALIBRATED);
		assert.equal(observeSample(UNCALIBRATED, 10_000, Number.NaN, 1), UNCALIBRATED);
		assert.equal(observeSample(UNCALIBRATED, 10_000, 0, 1), UNCALIBRATED);
	});

	it('stays within its bounds whatever the counts', () => {
		fc.assert(
			fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 200_000 }), fc.integer({ min: 0, max: 2_000_000 }), fc.boolean())), steps => {
				let c: Calibration = UNCALIBRATED;
				for (const [local, model, rejected] of steps) {
					c = rejected ? observeRejection(c, { promptTokens: model, limit: 16_000 }, local, 16_000, 1) : observeSample(c, local, model, 1);
					const r = calibrationRatio(c);
					assert.ok(r >= MIN_RATIO && r <= MAX_RATIO, `ratio ${r}`);
				}
			}),
		);
	});

	it('a rejection with numbers sets the ratio from the provider count of what was sent', () => {
		const c = observeRejection(UNCALIBRATED, { promptTokens: 17_000, limit: 16_000 }, 13_600, 16_000, 1);
		assert.equal(calibrationRatio(c), 1.25);
		assert.equal(c.rejections, 1);
		// The budget scaled by it fits the provider's count under its limit.
		const budget = computeBudget(16_000, 0, calibrationRatio(c));
		assert.ok((budget.messages + budget.reserve) * calibrationRatio(c) <= 16_000);
		assert.ok(budget.messages * 1.25 < 16_000);
	});

	it('a rejection whose limit is below the advertised window tightens by that too', () => {
		// Reported: "prompt token count of 514673 exceeds the limit of 128000" from a model advertising more.
		const c = observeRejection(UNCALIBRATED, { promptTokens: 200_000, limit: 128_000 }, 200_000, 256_000, 1);
		assert.equal(calibrationRatio(c), 2);
	});

	it('a rejection is always at least a little tighter than the ratio the request was sent with', () => {
		const c0 = observeSample(UNCALIBRATED, 10_000, 12_000, 1);
		const c = observeRejection(c0, { promptTokens: 15_000, limit: 16_000 }, 15_000, 16_000, 2);
		assert.ok(calibrationRatio(c) > 1.2);
	});

	it('a rejection without numbers tightens by a fixed factor', () => {
		const c = observeRejection(observeSample(UNCALIBRATED, 10_000, 12_000, 1), {}, 10_000, 16_000, 2);
		assert.ok(Math.abs(calibrationRatio(c) - 1.2 * 1.15) < 1e-9);
	});

	it('samples cannot pull the ratio far below what a rejection showed, but relax it slowly', () => {
		let c = observeRejection(UNCALIBRATED, { promptTokens: 13_000, limit: 12_000 }, 10_000, 12_000, 1);
		assert.equal(calibrationRatio(c), 1.3);
		c = observeSample(c, 10_000, 11_000, 2);
		assert.ok(calibrationRatio(c) > 1.29, `got ${calibrationRatio(c)}`);
		for (let i = 0; i < 200; i++) c = observeSample(c, 10_000, 11_000, 3 + i);
		assert.ok(calibrationRatio(c) < 1.15, `got ${calibrationRatio(c)}`);
	});
});

describe('token calibration: the stored per-model ratios', () => {
	it('reads back what it stored and drops what is not a calibration', () => {
		const c = observeSample(UNCALIBRATED, 10_000, 11_800, 5);
		const stored = storeCalibration({}, 'copilot/gpt', c);
		const read = readCalibrationStore(JSON.parse(JSON.stringify({ ...stored, broken: 'x', nulls: null })));
		assert.deepEqual(Object.keys(read), ['copilot/gpt']);
		assert.equal(calibrationRatio(read['copilot/gpt']), 1.18);
	});

	it('puts damaged numbers back in bounds', () => {
		const read = readCalibrationStore({ m: { sampled: 99, floor: -3, samples: 'many', rejections: 2.7, updatedAt: 4 } });
		assert.equal(calibrationRatio(read.m), MAX_RATIO);
		assert.equal(read.m.samples, 0);
		assert.equal(read.m.rejections, 2);
		for (const raw of [undefined, null, 3, 'x', [1, 2]]) assert.deepEqual(readCalibrationStore(raw), {});
	});

	it('keeps only the most recently updated models', () => {
		let store = {};
		for (let i = 0; i < MAX_MODELS + 5; i++) store = storeCalibration(store, `m${i}`, { ...UNCALIBRATED, updatedAt: i });
		const keys = Object.keys(store);
		assert.equal(keys.length, MAX_MODELS);
		assert.ok(keys.includes(`m${MAX_MODELS + 4}`) && !keys.includes('m0'));
	});

	it('samples the first model call of a request and then every few', () => {
		const sampled = Array.from({ length: 10 }, (_, i) => i).filter(shouldSample);
		assert.equal(sampled[0], 0);
		assert.ok(sampled.length >= 2 && sampled.length <= 5);
	});
});

describe('the budget scaled by the calibration ratio', () => {
	it('divides the window by the ratio, and never enlarges it', () => {
		assert.equal(computeBudget(16_000, 0, 1.25).window, 12_800);
		assert.equal(computeBudget(16_000, 0, 0.5).window, 16_000);
		assert.equal(computeBudget(16_000, 0, Number.NaN).window, 16_000);
		assert.equal(computeBudget(16_000, 0).ratio, 1);
	});
});

describe("token calibration under a provider's counting rules", () => {
	it("judges the provider's message count from one text counted three ways", () => {
		// GitHub Copilot: a tool result in a user message counts nothing, text counts.
		assert.equal(judgeMessageCounting({ string: 150, textMessage: 153, resultMessage: 3 }), 'text-only');
		assert.equal(judgeMessageCounting({ string: 150, textMessage: 154, resultMessage: 158 }), 'whole');
		assert.equal(judgeMessageCounting({ string: 150, textMessage: 4, resultMessage: 4 }), 'none');
		assert.equal(judgeMessageCounting({ string: 3, textMessage: 150, resultMessage: 150 }), undefined);
		assert.equal(judgeMessageCounting({ string: Number.NaN, textMessage: 150, resultMessage: 150 }), undefined);
	});

	it('compares as strings the messages the provider does not count whole, and everything while it is unknown', () => {
		assert.equal(countAsText('whole', true), false);
		assert.equal(countAsText('text-only', false), false);
		assert.equal(countAsText('text-only', true), true);
		assert.equal(countAsText('none', false), true);
		assert.equal(countAsText(undefined, false), true);
	});

	it('leaves out of a sample an item the model counted almost nothing of, so the ratio cannot fall to the floor for it', () => {
		assert.ok(isUncounted(1_000, 4));
		assert.ok(!isUncounted(1_000, 900));
		assert.ok(!isUncounted(30, 0), 'small items are compared whatever the model says');
		assert.ok(isUncounted(1_000, Number.NaN));
	});

	it('a sample of tool-heavy messages counted as the provider counts them learns the ratio; counted whole it would learn nothing', () => {
		// 9,000 local tokens of tool results, 1,000 of text; the model counts 1.2x but its message count leaves results out.
		const honest = observeSample(UNCALIBRATED, 10_000, 12_000, 1);
		const blind = observeSample(UNCALIBRATED, 10_000, 1_200, 1);
		assert.equal(calibrationRatio(honest), 1.2);
		assert.equal(calibrationRatio(blind), MIN_RATIO);
	});

	it('records what the last sample compared and how the message count works, and reads it back', () => {
		const record = { localTokens: 9_000, modelTokens: 10_800, messages: 12, asText: 5, uncounted: 0, toolDefinitions: true };
		const c = withSampleRecord(observeSample(UNCALIBRATED, 9_000, 10_800, 1), 'text-only', record);
		assert.equal(c.counting, 'text-only');
		assert.deepEqual(c.lastSample, record);
		const read = readCalibrationStore(JSON.parse(JSON.stringify({ m: c })));
		assert.deepEqual(read.m, c);
		const bad = readCalibrationStore({ m: { ...c, counting: 'sometimes', lastSample: { ...record, messages: -1 } } });
		assert.equal(bad.m.counting, undefined);
		assert.equal(bad.m.lastSample, undefined);
		assert.equal(calibrationRatio(bad.m), calibrationRatio(c));
	});
});
