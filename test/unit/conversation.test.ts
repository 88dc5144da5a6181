import * as assert from 'node:assert/strict';
import { hasUnansweredCalls, isInterruptedTurn, roundText, type Round } from '../../src/common/conversation';

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
