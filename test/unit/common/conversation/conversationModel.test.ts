import * as assert from 'node:assert/strict';
import { hasUnansweredCalls, INTERRUPTED_RESULT, isInterruptedTurn, roundText, type Round } from '../../../../src/common/conversation/conversation';
import { TiktokenTokenizer } from '../../../../src/common/tokens/tokenizer';
import { toolResultForPrompt } from '../../../../src/prompts/toolResultText';

describe('conversation model helpers', () => {
	const round: Round = {
		id: 'r1',
		response: 'reading the file',
		thinking: 'plan first',
		toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}', result: 'export {}' }],
	};

	it('roundText includes response, thinking, call and result', () => {
		const text = roundText(round);
		for (const part of ['reading the file', 'plan first', 'read_file', '{"path":"a.ts"}', 'export {}']) {
			assert.ok(text.includes(part), `missing ${part}`);
		}
	});

	it('a round with a call lacking its result is unanswered', () => {
		assert.equal(hasUnansweredCalls(round), false);
		assert.equal(hasUnansweredCalls({ ...round, toolCalls: [{ id: 'c2', name: 'x', arguments: '{}' }] }), true);
	});

	it('a turn stopped by the limit or cancelled is interrupted', () => {
		assert.equal(isInterruptedTurn({ user: 'u', rounds: [] }), false);
		assert.equal(isInterruptedTurn({ user: 'u', rounds: [], maxToolCallsExceeded: true }), true);
		assert.equal(isInterruptedTurn({ user: 'u', rounds: [], cancelled: true }), true);
	});
});

describe('closing unanswered calls (toolResultForPrompt)', () => {
	it('gives every call without a result the interrupted result and leaves answered calls alone', () => {
		const round: Round = {
			id: 'r',
			response: '',
			toolCalls: [
				{ id: 'c1', name: 'a', arguments: '{}', result: 'ok' },
				{ id: 'c2', name: 'b', arguments: '{}' },
			],
		};
		const shown = round.toolCalls.map(call => toolResultForPrompt(call, 1_000, new TiktokenTokenizer()));
		assert.deepEqual(shown, ['ok', INTERRUPTED_RESULT]);
		assert.equal(round.toolCalls[1].result, undefined, 'the round itself is not changed');
	});
});
