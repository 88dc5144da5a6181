import * as assert from 'node:assert/strict';
import { compactionGain } from '../../../../src/common/summaries/compactionGain';

describe('compactionGain: a compaction is applied only when it makes the next prompt smaller', () => {
	it('applies one that frees room, and says how much', () => {
		assert.deepEqual(compactionGain(9800, 6100), { apply: true, savedTokens: 3700 });
	});

	it('keeps the smaller form when the summary and the ledger cost more than the rounds (61 % → 64 % in the demo)', () => {
		assert.deepEqual(compactionGain(6100, 6400), { apply: false, savedTokens: -300 });
	});

	it('does not apply one that changes nothing: the rounds would lose their exact text for no room', () => {
		assert.equal(compactionGain(5000, 5000).apply, false);
	});
});
