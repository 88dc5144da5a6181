import * as assert from 'node:assert/strict';
import { Raw } from '@vscode/prompt-tsx';
import type { Conversation } from '../../../src/common/conversation/conversation';
import { renderAgentPrompt } from '../../../src/prompts/render';
import { cutToolResult, cutToolResultChars } from '../../../src/prompts/toolResultText';
import { agentProps, call, round, textOf, tokenizer } from './fixtures';

/** A long, varied output: numbered lines, so head and tail are recognisable. */
function longOutput(lines: number): string {
	return Array.from({ length: lines }, (_, i) => `line ${i}: value=${(i * 7919) % 1000} status=${i % 3 ? 'ok' : 'warn'}`).join('\n');
}

describe('tool result truncation', () => {
	const text = longOutput(2_000);
	const total = tokenizer.countTokens(text);

	it('keeps a result that fits untouched', () => {
		assert.equal(cutToolResult('short output', 100, tokenizer), 'short output');
		assert.equal(cutToolResult(text, total, tokenizer), text);
	});

	it('keeps head and tail around a marker that counts the cut tokens, within the cap', () => {
		const cut = cutToolResult(text, 300, tokenizer);
		const match = /\n\[\.\.\. (\d+) tokens of tool output truncated \.\.\.\]\n/.exec(cut);
		assert.ok(match, 'has the marker');
		const [head, tail] = [cut.slice(0, match.index), cut.slice(match.index + match[0].length)];
		assert.ok(text.startsWith(head) && head.length > 0);
		assert.ok(text.endsWith(tail) && tail.length > 0);
		assert.ok(head.length > tail.length, 'more of the head than of the tail');
		const kept = tokenizer.countTokens(head) + tokenizer.countTokens(tail);
		assert.ok(Math.abs(total - kept - Number(match[1])) <= 2, `cut ${match[1]} of ${total}, kept ${kept}`);
		assert.ok(tokenizer.countTokens(cut) <= 300, `cut text has ${tokenizer.countTokens(cut)} tokens`);
	});

	it('is deterministic', () => {
		const fresh = longOutput(1_500);
		assert.equal(cutToolResult(fresh, 250, tokenizer), cutToolResult(fresh, 250, tokenizer));
		assert.equal(cutToolResult(fresh, 250, tokenizer), cutToolResult(fresh.slice(), 250, tokenizer));
	});

	it('never splits a multi-byte character into a replacement character', () => {
		const cut = cutToolResult('日本語のテキスト🚀'.repeat(400), 100, tokenizer);
		assert.ok(!cut.includes('\uFFFD'));
	});

	it('is applied to tool messages in the agent prompt, with maxToolResultTokens as the cap', async () => {
		const conv: Conversation = { turns: [], activeRounds: [round('a0', { toolCalls: [call('big', text), call('small', 'tiny')] })] };
		const { messages } = await renderAgentPrompt(agentProps(conv, { maxToolResultTokens: 500 }), { tokenizer, budget: 1_000_000 });
		const tools = messages.filter(m => m.role === Raw.ChatRole.Tool).map(textOf);
		assert.match(tools[0], /\[\.\.\. \d+ tokens of tool output truncated \.\.\.\]/);
		assert.ok(tokenizer.countTokens(tools[0]) <= 500);
		assert.equal(tools[1], 'tiny');
	});

	it("has a character-based variant for the summarizer's Simple mode", () => {
		assert.equal(cutToolResultChars('abc', 3), 'abc');
		const cut = cutToolResultChars('a'.repeat(600) + 'b'.repeat(400), 100);
		assert.equal(cut, `${'a'.repeat(60)}\n[... 900 characters of tool output truncated ...]\n${'b'.repeat(40)}`);
	});
});
