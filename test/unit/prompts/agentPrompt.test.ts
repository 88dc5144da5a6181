import * as assert from 'node:assert/strict';
import { Raw } from '@vscode/prompt-tsx';
import { BudgetExceededError } from '@vscode/prompt-tsx/dist/base/materialized';
import { INTERRUPTED_RESULT, type Conversation } from '../../../src/common/conversation/conversation';
import { measureAgentPrompt, renderAgentPrompt } from '../../../src/prompts/render';
import { EMPTY_TOOL_RESULT } from '../../../src/prompts/toolResultText';
import { isStateCarrier } from '../../../src/common/provider/providerState';
import { agentProps, call, conversation, interruptedCall, outline, round, roundOutline, textOf, tokenizer } from './fixtures';

const BIG = 1_000_000;

async function render(conv: Conversation, extra: Parameters<typeof agentProps>[1] = {}) {
	return renderAgentPrompt(agentProps(conv, extra), { tokenizer, budget: BIG });
}

describe('AgentPrompt', () => {
	it('starts with the system instructions naming the workspace and the tools', async () => {
		const { messages } = await render(conversation([], 0));
		assert.equal(messages[0].role, Raw.ChatRole.System);
		const system = textOf(messages[0]);
		assert.match(system, /Longhaul/);
		assert.match(system, /Workspace folder: \/work\/demo/);
		assert.match(system, /readFile, runCommand/);
		assert.match(system, /<conversation-summary>/);
		assert.deepEqual(outline(messages).slice(1), ['user:current request']);
	});

	it("carries a round's provider state as an opaque part of no tokens, the round's text unchanged", async () => {
		const state = { model: 'copilot/gpt', prefix: 'fp', parts: [{ mimeType: 'stateful_marker', data: 'bQ==' }] };
		const plain = conversation([], 1);
		const withState: Conversation = {
			turns: [],
			activeRounds: [{ ...plain.activeRounds[0], response: '  two spaces, a trailing newline\n', providerState: state }],
		};
		const without: Conversation = { turns: [], activeRounds: [{ ...withState.activeRounds[0], providerState: undefined }] };
		const a = await render(withState);
		const b = await render(without);
		assert.equal(a.tokenCount, b.tokenCount);
		const assistant = a.messages.find(m => m.role === Raw.ChatRole.Assistant)!;
		assert.equal(textOf(assistant), '  two spaces, a trailing newline\n');
		const opaque = assistant.content.filter(p => p.type === Raw.ChatCompletionContentPartKind.Opaque);
		assert.equal(opaque.length, 1);
		assert.ok(opaque[0].type === Raw.ChatCompletionContentPartKind.Opaque && isStateCarrier(opaque[0].value) && opaque[0].value.state === state);
		assert.deepEqual(outline(a.messages), outline(b.messages));
	});

	it('renders a conversation without summaries verbatim, in order, request before the active rounds', async () => {
		const { messages } = await render(conversation([2, 1], 2));
		assert.deepEqual(outline(messages).slice(1), [
			'user:request 0',
			...roundOutline('t0r0'),
			...roundOutline('t0r1'),
			'user:request 1',
			...roundOutline('t1r0'),
			'user:current request',
			...roundOutline('a0'),
			...roundOutline('a1'),
		]);
	});

	it("renders each turn's summary block once, right after its user message, in order; within a turn only the newest", async () => {
		const conv = conversation([2, 3], 2, { t0r1: 'BLOCK 0', t1r0: 'OLD 1', t1r1: 'NEW 1' });
		const { messages } = await render(conv);
		assert.deepEqual(outline(messages).slice(1), [
			'user:request 0',
			'user:<conversation-summary>\nBLOCK 0\n</conversation-summary>',
			'user:request 1',
			'user:<conversation-summary>\nNEW 1\n</conversation-summary>',
			...roundOutline('t1r2'),
			'user:current request',
			...roundOutline('a0'),
			...roundOutline('a1'),
		]);
		const all = messages.slice(1).map(textOf).join('\n');
		assert.equal(all.split('<conversation-summary>').length - 1, 2);
		assert.ok(!all.includes('OLD 1'));
	});

	it('a condensed block says so', async () => {
		const base = conversation([2], 1, { t0r1: 'SHORT' });
		const conv: Conversation = {
			...base,
			turns: [{ ...base.turns[0], rounds: [base.turns[0].rounds[0], { ...base.turns[0].rounds[1], summaryCondensed: true }] }],
		};
		const { messages } = await render(conv);
		const block = messages.map(textOf).find(t => t.startsWith('<conversation-summary>'))!;
		assert.match(block, /^<conversation-summary>\n\[Condensed: this older summary was shortened[^\n]*\]\nSHORT\n<\/conversation-summary>$/);
	});

	it('keeps the user requests of summarized turns verbatim and in order when the summary is in the active rounds', async () => {
		const conv = conversation([2, 2, 2], 4, { a1: 'SUMMARY' });
		const { messages } = await render(conv, { request: 'the request in progress' });
		assert.deepEqual(outline(messages).slice(1), [
			'user:request 0',
			'user:request 1',
			'user:request 2',
			'user:the request in progress',
			'user:<conversation-summary>\nSUMMARY\n</conversation-summary>',
			...roundOutline('a2'),
			...roundOutline('a3'),
		]);
	});

	it('renders the rounds after the summary exactly as stored: text, arguments, results', async () => {
		const kept = round('t0r1', {
			response: '  Reading two files.\n',
			toolCalls: [
				{ id: 'x1', name: 'readFile', arguments: '{"path":"src/a.ts","startLine":3}', result: 'line 1\n\tline 2\n' },
				{ id: 'x2', name: 'searchText', arguments: '{"query":"foo(bar"}', result: '3 matches' },
			],
		});
		const conv: Conversation = { turns: [{ user: 'go', rounds: [round('t0r0', { summary: 'S' }), kept] }], activeRounds: [] };
		const { messages } = await render(conv);
		const assistant = messages.find(m => m.role === Raw.ChatRole.Assistant) as Raw.AssistantChatMessage;
		assert.equal(textOf(assistant), '  Reading two files.\n');
		assert.deepEqual(assistant.toolCalls, [
			{ id: 'x1', type: 'function', function: { name: 'readFile', arguments: '{"path":"src/a.ts","startLine":3}' } },
			{ id: 'x2', type: 'function', function: { name: 'searchText', arguments: '{"query":"foo(bar"}' } },
		]);
		const tools = messages.filter(m => m.role === Raw.ChatRole.Tool) as Raw.ToolChatMessage[];
		assert.deepEqual(
			tools.map(m => [m.toolCallId, textOf(m)]),
			[
				['x1', 'line 1\n\tline 2\n'],
				['x2', '3 matches'],
			],
		);
	});

	it('answers every tool call right after its assistant message, in call order', async () => {
		const many = round('a0', { toolCalls: [call('p'), call('q'), call('r')] });
		const conv: Conversation = { turns: [{ user: 'u', rounds: [round('t0r0'), round('t0r1', { toolCalls: [] })] }], activeRounds: [many, round('a1')] };
		const { messages } = await render(conv);
		for (let i = 0; i < messages.length; i++) {
			const m = messages[i];
			if (m.role !== Raw.ChatRole.Assistant || !m.toolCalls) continue;
			const answers = messages.slice(i + 1, i + 1 + m.toolCalls.length) as Raw.ToolChatMessage[];
			assert.deepEqual(
				answers.map(a => [a.role, a.toolCallId]),
				m.toolCalls.map(c => [Raw.ChatRole.Tool, c.id]),
			);
		}
		const toolMessages = messages.filter(m => m.role === Raw.ChatRole.Tool).length;
		const calls = messages.reduce((n, m) => n + (m.role === Raw.ChatRole.Assistant ? (m.toolCalls?.length ?? 0) : 0), 0);
		assert.equal(toolMessages, calls);
		assert.equal(calls, 1 + 3 + 1);
	});

	it('closes calls that never got a result with the interrupted result', async () => {
		const interrupted = round('t0r0', { toolCalls: [call('done', 'finished output'), interruptedCall('cut'), interruptedCall('never', 'runCommand')] });
		const conv: Conversation = {
			turns: [{ user: 'u', rounds: [interrupted], cancelled: true }],
			activeRounds: [round('a0', { toolCalls: [interruptedCall('live')] })],
		};
		const { messages } = await render(conv);
		const results = (messages.filter(m => m.role === Raw.ChatRole.Tool) as Raw.ToolChatMessage[]).map(m => [m.toolCallId, textOf(m)]);
		assert.deepEqual(results, [
			['done', 'finished output'],
			['cut', INTERRUPTED_RESULT],
			['never', INTERRUPTED_RESULT],
			['live', INTERRUPTED_RESULT],
		]);
		assert.equal(INTERRUPTED_RESULT, 'No result: the call was interrupted before it finished.');
	});

	it('gives an empty tool result a placeholder so its message is not dropped', async () => {
		const conv: Conversation = { turns: [], activeRounds: [round('a0', { toolCalls: [call('e', ''), call('w', '  \n')] })] };
		const { messages } = await render(conv);
		const results = (messages.filter(m => m.role === Raw.ChatRole.Tool) as Raw.ToolChatMessage[]).map(m => [m.toolCallId, textOf(m)]);
		assert.deepEqual(results, [
			['e', EMPTY_TOOL_RESULT],
			['w', EMPTY_TOOL_RESULT],
		]);
	});

	it('puts the attached references ahead of the request text in the request message', async () => {
		const { messages } = await render(conversation([1], 0), {
			request: 'explain this',
			references: [
				{ name: 'src/a.ts', text: 'export const a = 1;' },
				{ name: 'say "hi"', text: 'value' },
			],
		});
		const request = textOf(messages[messages.length - 1]);
		assert.equal(
			request,
			'<attachments>\n<attachment name="src/a.ts">\nexport const a = 1;\n</attachment>\n<attachment name="say &quot;hi&quot;">\nvalue\n</attachment>\n</attachments>\n\nexplain this',
		);
	});

	describe('done ledger', () => {
		it('goes right after the summary', async () => {
			const conv = conversation([2], 1, { t0r0: 'S' });
			const { messages, doneLedgerOmitted } = await render(conv, { doneLedger: '- edited src/a.ts' });
			assert.equal(doneLedgerOmitted, false);
			assert.deepEqual(outline(messages).slice(1, 4), [
				'user:request 0',
				'user:<conversation-summary>\nS\n</conversation-summary>',
				'user:<done-ledger>\n- edited src/a.ts\n</done-ledger>',
			]);
			assert.match(textOf(messages[0]), /<done-ledger>/);
		});

		it('goes right after the newest block when there are several', async () => {
			const conv = conversation([2, 2], 3, { t0r1: 'S0', t1r1: 'S1', a0: 'Sa' });
			const { messages } = await render(conv, { doneLedger: 'L' });
			assert.deepEqual(outline(messages).slice(1, 8), [
				'user:request 0',
				'user:<conversation-summary>\nS0\n</conversation-summary>',
				'user:request 1',
				'user:<conversation-summary>\nS1\n</conversation-summary>',
				'user:current request',
				'user:<conversation-summary>\nSa\n</conversation-summary>',
				'user:<done-ledger>\nL\n</done-ledger>',
			]);
		});

		it('goes ahead of the history when there is no summary', async () => {
			const { messages } = await render(conversation([1], 0), { doneLedger: 'L' });
			assert.deepEqual(outline(messages).slice(1, 3), ['user:<done-ledger>\nL\n</done-ledger>', 'user:request 0']);
		});

		it('is not rendered when empty, and the instructions do not mention it', async () => {
			const { messages } = await render(conversation([1], 0), { doneLedger: '  ' });
			assert.ok(!messages.map(textOf).join('\n').includes('done-ledger'));
		});
	});
});

describe('AgentPrompt budget', () => {
	it('renders every round verbatim when the prompt fits, up to exactly the budget', async () => {
		const conv = conversation([5, 5], 10, { t0r2: 'SUMMARY' });
		const props = agentProps(conv);
		const { tokenCount } = await measureAgentPrompt(props, tokenizer);
		const { messages, tokenCount: rendered } = await renderAgentPrompt(props, { tokenizer, budget: tokenCount });
		assert.equal(rendered, tokenCount);
		const expected = [
			...['t0r3', 't0r4'].flatMap(roundOutline),
			...['t1r0', 't1r1', 't1r2', 't1r3', 't1r4'].flatMap(roundOutline),
			...Array.from({ length: 10 }, (_, i) => roundOutline(`a${i}`)).flat(),
		];
		assert.deepEqual(
			outline(messages).filter(line => !line.startsWith('user:') && line !== 'system'),
			expected,
		);
	});

	it("throws prompt-tsx's BudgetExceededError when the prompt is one token over, instead of pruning", async () => {
		const props = agentProps(conversation([5, 5], 10));
		const { tokenCount } = await measureAgentPrompt(props, tokenizer);
		await assert.rejects(renderAgentPrompt(props, { tokenizer, budget: tokenCount - 1 }), (error: unknown) => {
			assert.ok(error instanceof BudgetExceededError);
			assert.equal((error as { tokenCount?: number }).tokenCount, tokenCount);
			assert.equal((error as { budget?: number }).budget, tokenCount - 1);
			assert.ok((error as BudgetExceededError).messages.length > 20, 'carries the unpruned messages');
			return true;
		});
	});

	it('by default the done ledger is required: a prompt that fits only without it is an overflow', async () => {
		const props = agentProps(conversation([3], 4, { t0r1: 'S' }), { doneLedger: 'ledger line\n'.repeat(50) });
		const withLedger = await measureAgentPrompt(props, tokenizer);
		await assert.rejects(renderAgentPrompt(props, { tokenizer, budget: withLedger.tokenCount - 1 }), { name: 'BudgetExceededError' });
		const fits = await renderAgentPrompt(props, { tokenizer, budget: withLedger.tokenCount });
		assert.equal(fits.doneLedgerOmitted, false);
	});

	it('with doneLedgerOptional, leaves out only the done ledger when the prompt fits without it', async () => {
		const props = agentProps(conversation([3], 4, { t0r1: 'S' }), { doneLedger: 'ledger line\n'.repeat(50) });
		const withLedger = await measureAgentPrompt(props, tokenizer);
		const withoutLedger = await measureAgentPrompt({ ...props, doneLedger: undefined }, tokenizer);
		const result = await renderAgentPrompt(props, { tokenizer, budget: withLedger.tokenCount - 1, doneLedgerOptional: true });
		assert.equal(result.doneLedgerOmitted, true);
		assert.equal(result.tokenCount, withoutLedger.tokenCount);
		assert.deepEqual(outline(result.messages), outline(withoutLedger.messages));
	});

	it('throws when the prompt does not fit even without the done ledger', async () => {
		const props = agentProps(conversation([3], 4), { doneLedger: 'ledger' });
		const withoutLedger = await measureAgentPrompt({ ...props, doneLedger: undefined }, tokenizer);
		await assert.rejects(renderAgentPrompt(props, { tokenizer, budget: withoutLedger.tokenCount - 1, doneLedgerOptional: true }), {
			name: 'BudgetExceededError',
		});
	});
});
