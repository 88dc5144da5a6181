import * as assert from 'node:assert/strict';
import { tokenCountLine } from '../../../../src/common/stats/tokenCountLine';

describe('token count line', () => {
	it('gives the prompt against the window, the summary blocks and the calibration ratio when there is one', () => {
		assert.equal(tokenCountLine({ promptTokens: 12345, windowTokens: 16000, summaryBlocks: 1 }), '*Prompt: 12,345 of 16,000 tokens (77%) · 1 summary block*');
		assert.equal(
			tokenCountLine({ promptTokens: 500, windowTokens: 128000, summaryBlocks: 3, calibrationRatio: 1.0849 }),
			'*Prompt: 500 of 128,000 tokens (0%) · 3 summary blocks · calibration ×1.08*',
		);
		assert.equal(
			tokenCountLine({ promptTokens: 5, windowTokens: 0, summaryBlocks: 0, calibrationRatio: Number.NaN }),
			'*Prompt: 5 of 0 tokens (0%) · 0 summary blocks*',
		);
	});
});
