import * as assert from 'node:assert/strict';
import {
	PROVIDER_INSTRUCTIONS_TOKENS,
	computeBudget,
	summarizerPromptBudget,
	summaryBudget,
	toolResultBudget,
	windowTokensUsed,
} from '../../../../src/common/tokens/budget';

describe('prompt budgets', () => {
	it("holds back 5% + 200 tokens, the tool definitions and the provider's own instructions from the window", () => {
		const b = computeBudget(16_000, 4_000);
		assert.equal(b.reserve, 1_000);
		assert.equal(b.providerTokens, PROVIDER_INSTRUCTIONS_TOKENS);
		assert.equal(b.messages, 16_000 - 4_000 - 1_000 - 300);
		assert.equal(summaryBudget(b), 749); // 7 % of 10,700 (decision 49)
		assert.equal(toolResultBudget(b), 5_350);
	});

	it("counts the provider's instructions in the model's tokens: a model counting 1.25x holds back 240 local tokens for 300", () => {
		const b = computeBudget(16_000, 4_000, 1.25);
		assert.equal(b.window, 12_800);
		assert.equal(b.providerTokens, 240);
		assert.equal(b.messages, 12_800 - 4_000 - 240 - b.reserve);
		// By the model's count, messages + tools + instructions + reserve fill the window at most.
		assert.ok((b.messages + b.toolTokens + b.reserve) * 1.25 + PROVIDER_INSTRUCTIONS_TOKENS <= 16_000);
	});

	it('gives the summarizer the whole window less the reserve and the provider instructions: its request carries no tools', () => {
		const b = computeBudget(16_000, 4_000);
		assert.equal(summarizerPromptBudget(b), 14_700);
		assert.ok(summarizerPromptBudget(b) > b.messages, 'the older rounds that overflowed the agent prompt must fit the summarizer prompt');
	});

	it('never goes negative for tiny windows', () => {
		const b = computeBudget(100, 5_000);
		assert.equal(b.messages, 0);
		assert.equal(summarizerPromptBudget(b), 0);
		assert.equal(summaryBudget(b), 256);
	});

	it("counts a prompt's share of the window as /context and the meter both show it: messages, tools and the provider's hold-back", () => {
		const b = computeBudget(16_000, 4_000);
		assert.equal(windowTokensUsed(b.messages, b), 16_000 - b.reserve);
		assert.equal(windowTokensUsed(0, b), 4_300);
	});
});
