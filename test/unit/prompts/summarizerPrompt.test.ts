import * as assert from 'node:assert/strict';
import { Raw } from '@vscode/prompt-tsx';
import { BudgetExceededError } from '@vscode/prompt-tsx/dist/base/materialized';
import { renderCondensePrompt, renderSummarizerPrompt } from '../../../src/prompts/render';
import { summaryLength } from '../../../src/common/summaries/summaryLength';
import { statedTarget } from '../../../bench/replay/standInSummary';
import type { SummarizerPromptProps } from '../../../src/prompts/summarizerPrompt';
import type { SummarizerEntry } from '../../../src/prompts/summarizerTranscript';
import { INTERRUPTED_RESULT } from '../../../src/common/conversation/conversation';
import { call, interruptedCall, round, textOf, tokenizer } from './fixtures';

const BIG = 1_000_000;
const LONG_RESULT = 'HEAD-MARK ' + 'middle filler '.repeat(300) + ' TAIL-MARK';

function entries(): SummarizerEntry[] {
	return [
		{ kind: 'user', text: 'Please migrate the parser to TypeScript.' },
		{ kind: 'round', round: round('t0r0', { thinking: 'PRIVATE THOUGHT', toolCalls: [call('c-read', LONG_RESULT)] }) },
		{ kind: 'round', round: round('t0r1') },
		{ kind: 'user', text: 'Also add tests.' },
		{ kind: 'round', round: round('a0', { toolCalls: [interruptedCall('c-run', 'runCommand')] }), interrupted: true },
	];
}

async function render(props: Partial<SummarizerPromptProps> = {}) {
	const { messages, tokenCount } = await renderSummarizerPrompt({ mode: 'full', rounds: entries(), ...props }, { tokenizer, budget: BIG });
	assert.deepEqual(
		messages.map(m => m.role),
		[Raw.ChatRole.System, Raw.ChatRole.User],
	);
	return { system: textOf(messages[0]), user: textOf(messages[1]), tokenCount };
}

describe('SummarizerPrompt', () => {
	it('asks for an <analysis> pass and a <summary> with the eight sections', async () => {
		const { system } = await render();
		for (const step of [
			'Chronological review',
			'Intent mapping',
			'Technical inventory',
			'Code archaeology',
			'Progress assessment',
			'Context validation',
			'Recent commands analysis',
		]) {
			assert.ok(system.includes(step), step);
		}
		for (const section of [
			'Conversation overview',
			'Technical foundation',
			'Codebase status',
			'Problem resolution',
			'Progress tracking',
			'Active work state',
			'Recent operations',
			'Continuation plan',
		]) {
			assert.ok(system.includes(section), section);
		}
		assert.match(system, /<analysis>/);
		assert.match(system, /<summary>/);
		assert.match(system, /previous-summary/);
	});

	it('Full: contains the previous summary, every absorbed round in order with full tool results, and the focus', async () => {
		const { user } = await render({ previousSummary: 'EARLIER FACTS: build uses esbuild.', focus: 'the failing parser test' });
		assert.ok(user.startsWith('<previous-summary>\nEARLIER FACTS: build uses esbuild.\n</previous-summary>'));
		const order = [
			'<user>\nPlease migrate the parser to TypeScript.\n</user>',
			'<thinking>\nPRIVATE THOUGHT\n</thinking>',
			'response of t0r0',
			'<tool-call name="readFile">\n{"path":"c-read.ts"}\n</tool-call>',
			`<tool-result name="readFile">\n${LONG_RESULT}\n</tool-result>`,
			'response of t0r1',
			'<tool-result name="readFile">\nresult of t0r1-c0\n</tool-result>',
			'<user>\nAlso add tests.\n</user>',
			'response of a0',
			`<tool-result name="runCommand">\n${INTERRUPTED_RESULT}\n</tool-result>`,
			'<focus>\nthe failing parser test\n</focus>',
		];
		let at = 0;
		for (const piece of order) {
			const found = user.indexOf(piece, at);
			assert.ok(found >= 0, `missing or out of order: ${piece.slice(0, 60)}`);
			at = found + piece.length;
		}
	});

	it('leaves out the previous-summary and focus blocks when not given', async () => {
		const { user } = await render();
		assert.ok(!user.includes('<previous-summary>'));
		assert.ok(!user.includes('<focus>'));
	});

	it('Simple: truncates tool results to 400 characters by default and omits thinking', async () => {
		const { user, system } = await render({ mode: 'simple' });
		assert.ok(!user.includes('PRIVATE THOUGHT'));
		assert.ok(!user.includes(LONG_RESULT));
		const marker = `[... ${LONG_RESULT.length - 400} characters of tool output truncated ...]`;
		assert.ok(user.includes(`<tool-result name="readFile">\n${LONG_RESULT.slice(0, 240)}\n${marker}\n${LONG_RESULT.slice(-160)}\n</tool-result>`));
		assert.ok(user.includes('result of t0r1-c0'), 'short results stay whole');
		assert.match(system, /shortened/);
	});

	it('Simple: honours simpleToolResultChars', async () => {
		const { user } = await render({ mode: 'simple', simpleToolResultChars: 50 });
		assert.ok(user.includes(`[... ${LONG_RESULT.length - 50} characters of tool output truncated ...]`));
	});

	it('throws BudgetExceededError when it does not fit; Simple can fit where Full does not', async () => {
		const bulky: SummarizerEntry[] = Array.from({ length: 20 }, (_, i) => ({
			kind: 'round',
			round: round(`r${i}`, { toolCalls: [call(`c${i}`, LONG_RESULT)] }),
		}));
		const full = await renderSummarizerPrompt({ mode: 'full', rounds: bulky }, { tokenizer, budget: BIG });
		const simple = await renderSummarizerPrompt({ mode: 'simple', rounds: bulky }, { tokenizer, budget: BIG });
		assert.ok(simple.tokenCount < full.tokenCount);
		const budget = simple.tokenCount;
		await assert.rejects(renderSummarizerPrompt({ mode: 'full', rounds: bulky }, { tokenizer, budget }), (e: unknown) => e instanceof BudgetExceededError);
		const fitting = await renderSummarizerPrompt({ mode: 'simple', rounds: bulky }, { tokenizer, budget });
		assert.equal(fitting.tokenCount, budget);
	});
});

describe('SummarizerPrompt: the length it asks for', () => {
	it('states the target in tokens and words, and what to shorten first, when given a length', async () => {
		const length = summaryLength(2_989);
		assert.equal(length.targetTokens, 2_241);
		assert.ok(length.targetWords > 1_000 && length.targetWords < length.targetTokens);
		const { system, user } = await render({ length });
		assert.match(system, /must stay under 2241 tokens, about \d+ words/);
		assert.match(system, /shorten first the raw output of older tool calls/);
		assert.match(system, /Keep to the end the user's requests/);
		assert.match(user, /must stay under 2241 tokens/);
		assert.equal(statedTarget(system + user), 2_241, 'the stand-ins read the stated target');
	});

	it('states no length without one (the stand-ins then write their default length)', async () => {
		const { system, user } = await render();
		assert.doesNotMatch(system + user, /must stay under/);
		assert.equal(statedTarget(system + user), undefined);
	});
});

describe('CondensePrompt', () => {
	it('carries the too-long summary alone, the target and the rule, and is not a summarization request', async () => {
		const length = summaryLength(1_000);
		const { messages } = await renderCondensePrompt({ summary: 'SUMMARY-BODY with facts', length }, { tokenizer, budget: BIG });
		const system = textOf(messages[0]);
		const user = textOf(messages[1]);
		assert.match(user, /<summary-to-condense>\nSUMMARY-BODY with facts\n<\/summary-to-condense>/);
		assert.match(system, new RegExp(`must stay under ${length.targetTokens} tokens`));
		assert.equal(statedTarget(system + user), length.targetTokens);
		assert.doesNotMatch(system + user, /conversation-transcript/);
	});

	it('throws when it does not fit', async () => {
		await assert.rejects(renderCondensePrompt({ summary: 'x '.repeat(2000), length: summaryLength(100) }, { tokenizer, budget: 50 }), BudgetExceededError);
	});
});
