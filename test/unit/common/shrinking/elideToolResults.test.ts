import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { elideOldestToolResults } from '../../../../src/common/shrinking/elideToolResults';
import { ELIDED_PREFIX } from '../../../../src/common/conversation/toolResultPlaceholders';

const countTokens = (text: string) => Math.ceil(text.length / 4);

function round(id: string, resultChars: number, summary?: string): Round {
	return { id, response: `r ${id}`, toolCalls: [{ id: `c${id}`, name: 'read', arguments: '{}', result: 'x'.repeat(resultChars) }], summary };
}

describe('elideOldestToolResults: deterministic truncation when no summary can be made', () => {
	const conversation: Conversation = {
		turns: [{ user: 'u0', rounds: [round('1', 4000, 'old summary'), round('2', 4000), round('3', 4000)] }],
		activeRounds: [round('4', 4000), round('5', 4000)],
	};

	it('elides the oldest visible results first and stops once enough is freed', () => {
		const result = elideOldestToolResults(conversation, 900, countTokens);
		const flat = [...result.conversation.turns[0].rounds, ...result.conversation.activeRounds];
		assert.equal(flat[0].toolCalls[0].result!.length, 4000, 'round 1 is already summarized: untouched');
		assert.ok(flat[1].toolCalls[0].result!.startsWith(ELIDED_PREFIX));
		assert.equal(result.elidedCalls, 1);
		assert.ok(result.shedTokens >= 900 && result.shedTokens < 1000);
		assert.equal(flat[2].toolCalls[0].result!.length, 4000);
	});

	it('never touches the newest round, even when asked for more than there is', () => {
		const result = elideOldestToolResults(conversation, 1_000_000, countTokens);
		const active = result.conversation.activeRounds;
		assert.ok(active[0].toolCalls[0].result!.startsWith(ELIDED_PREFIX));
		assert.equal(active[1].toolCalls[0].result!.length, 4000);
		assert.equal(result.elidedCalls, 3);
	});

	it('does not mutate its input and is deterministic', () => {
		const before = JSON.stringify(conversation);
		const a = elideOldestToolResults(conversation, 3000, countTokens);
		const b = elideOldestToolResults(conversation, 3000, countTokens);
		assert.equal(JSON.stringify(conversation), before);
		assert.deepEqual(a, b);
		assert.equal(a.conversation.turns[0].rounds[0], conversation.turns[0].rounds[0], 'untouched rounds are shared');
	});

	it('keeps the call ids and names so every call stays paired with a result', () => {
		const result = elideOldestToolResults(conversation, 1_000_000, countTokens);
		const call = result.conversation.turns[0].rounds[1].toolCalls[0];
		assert.equal(call.id, 'c2');
		assert.match(call.result!, /read returned about 1000 tokens/);
	});
});
