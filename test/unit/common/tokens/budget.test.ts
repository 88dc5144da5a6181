import * as assert from 'node:assert/strict';
import { computeBudget, summarizerPromptBudget, summaryBudget, toolResultBudget } from '../../../../src/common/tokens/budget';

describe('prompt budgets', () => {
	it('holds back 5% + 200 tokens and the tool definitions from the window', () => {
		const b = computeBudget(16_000, 4_000);
		assert.equal(b.reserve, 1_000);
		assert.equal(b.messages, 11_000);
		assert.equal(summaryBudget(b), 2_200);
		assert.equal(toolResultBudget(b), 5_500);
	});

	it('gives the summarizer the whole window less the reserve: its request carries no tools', () => {
		const b = computeBudget(16_000, 4_000);
		assert.equal(summarizerPromptBudget(b), 15_000);
		assert.ok(summarizerPromptBudget(b) > b.messages, 'the older rounds that overflowed the agent prompt must fit the summarizer prompt');
	});

	it('never goes negative for tiny windows', () => {
		const b = computeBudget(100, 5_000);
		assert.equal(b.messages, 0);
		assert.equal(summarizerPromptBudget(b), 0);
		assert.equal(summaryBudget(b), 256);
	});
});
