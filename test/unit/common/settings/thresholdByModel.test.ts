import * as assert from 'node:assert/strict';
import { thresholdFor } from '../../../../src/common/settings/thresholdByModel';

const gpt = { family: 'gpt-4o', id: 'gpt-4o-2024-11-20' };
const claude = { family: 'claude-sonnet-4', id: 'claude-sonnet-4' };

describe('background threshold by model', () => {
	it('takes one number for every model, clamped to 0–100', () => {
		assert.equal(thresholdFor(70, gpt), 0.7);
		assert.equal(thresholdFor(150, gpt), 1);
		assert.equal(thresholdFor(-5, gpt), 0);
	});

	it('takes an object by family, then by id, then its default, then 80', () => {
		const setting = { default: 60, 'gpt-4o': 70, 'claude-sonnet-4': 90 };
		assert.equal(thresholdFor(setting, gpt), 0.7);
		assert.equal(thresholdFor(setting, claude), 0.9);
		assert.equal(thresholdFor(setting, { family: 'gemini', id: 'gemini-2.5' }), 0.6);
		assert.equal(thresholdFor({ 'gpt-4o-2024-11-20': 50 }, gpt), 0.5);
		assert.equal(thresholdFor({ 'gpt-4o': 0 }, claude), 0.8);
	});

	it('ignores what a hand-edited settings.json may hold', () => {
		assert.equal(thresholdFor('70', gpt), 0.8);
		assert.equal(thresholdFor(null, gpt), 0.8);
		assert.equal(thresholdFor([70], gpt), 0.8);
		assert.equal(thresholdFor({ 'gpt-4o': 'high', default: 65 }, gpt), 0.65);
		assert.equal(thresholdFor(Number.NaN, gpt), 0.8);
	});
});
