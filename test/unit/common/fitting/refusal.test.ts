import * as assert from 'node:assert/strict';
import { retryMessageBudget, truncatedAfterFailedSummary } from '../../../../src/common/fitting/refusal';
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
