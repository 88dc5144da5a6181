import * as assert from 'node:assert/strict';
import { planSummarization } from '../../../../src/common/planning/planners';
import { summarizerEntries } from '../../../../src/common/summaries/summarizerInput';
import { makeConversation } from '../../helpers/conversations';

describe('summarizerEntries: what the summarizer reads for a plan', () => {
	it('gives each absorbed round in order, preceded by the user message of its turn, and stops at the kept part', () => {
		// 3 + 3 past rounds and 4 active: half-context keeps the newest 5 of 10.
		const conversation = makeConversation({ turns: [3, 3], active: 4 });
		const plan = planSummarization(conversation, 'half-context');
		const entries = summarizerEntries(conversation, plan, 'current request');
		const shape = entries.map(e => (e.kind === 'user' ? `user:${e.text}` : e.round.id));
		assert.deepEqual(shape, ['user:request 0', 't0r0', 't0r1', 't0r2', 'user:request 1', 't1r0', 't1r1']);
		assert.deepEqual(plan.summarizeRoundIds, ['t0r0', 't0r1', 't0r2', 't1r0', 't1r1']);
	});

	it('names the request in progress ahead of absorbed active rounds, and skips rounds a summary already covers', () => {
		const conversation = makeConversation({ turns: [2], active: 6, summaries: { t0r1: 'earlier summary' } });
		const plan = planSummarization(conversation, 'half-context');
		const entries = summarizerEntries(conversation, plan, 'current request');
		assert.deepEqual(
			entries.map(e => (e.kind === 'user' ? `user:${e.text}` : e.round.id)),
			['user:current request', 'a0', 'a1', 'a2'],
		);
		// The summary of turn 0 is that turn's block; the request in progress gets a block of its own.
		assert.equal(plan.previousSummary, undefined);
		assert.equal(plan.newestSummaryRoundId, 't0r1');
	});

	it('marks rounds whose calls have no result as interrupted', () => {
		const base = makeConversation({ active: 5 });
		const cut = { ...base.activeRounds[0], toolCalls: [{ id: 'x', name: 'run', arguments: '{}' }] };
		const conversation = { turns: [], activeRounds: [cut, ...base.activeRounds.slice(1)] };
		const entries = summarizerEntries(conversation, planSummarization(conversation, 'legacy'), 'now');
		const first = entries.find(e => e.kind === 'round');
		assert.equal(first?.kind === 'round' && first.interrupted, true);
		assert.equal(entries.filter(e => e.kind === 'round' && e.interrupted).length, 1);
	});
});
