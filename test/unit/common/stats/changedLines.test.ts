import * as assert from 'assert';
import { ChangedLines } from '../../../../src/common/stats/changedLines';

describe('ChangedLines', () => {
	it('says a line changed the first time and when it differs from the last of its topic, not when it repeats', () => {
		const lines = new ChangedLines();
		assert.deepStrictEqual(
			['a', 'a', 'b', 'b', 'a'].map(line => lines.changed('tools', line)),
			[true, false, true, false, true],
		);
	});

	it('keeps topics apart', () => {
		const lines = new ChangedLines();
		assert.strictEqual(lines.changed('tools', 'x'), true);
		assert.strictEqual(lines.changed('other', 'x'), true);
		assert.strictEqual(lines.changed('tools', 'x'), false);
	});
});
