import * as assert from 'node:assert/strict';
import { layoutPrompt, type PromptEntry } from '../../../../src/common/conversation/promptLayout';
import { planHalfContext, applySummary } from '../../../../src/common/planning/planners';
import { makeConversation, makeRound } from '../../helpers/conversations';

/** A compact picture of the layout: `U0` user of turn 0, `S:id` summary, round ids, `REQ` the request in progress. */
function shape(entries: readonly PromptEntry[]): string[] {
	return entries.map(e => {
		switch (e.kind) {
			case 'user':
				return `U${e.turnIndex}`;
			case 'request':
				return 'REQ';
			case 'summary':
				return `S:${e.roundId}`;
			case 'round':
				return e.round.id;
		}
	});
}

describe('prompt layout', () => {
	it('without summaries: every user request followed by its rounds, then the request in progress and its rounds', () => {
		assert.deepEqual(shape(layoutPrompt(makeConversation({ turns: [2, 1], active: 2 }))), ['U0', 't0r0', 't0r1', 'U1', 't1r0', 'REQ', 'a0', 'a1']);
	});

	it('the newest summary stands at its anchor, replacing it and every earlier round; user requests stay verbatim', () => {
		const c = makeConversation({ turns: [2, 3], active: 1, summaries: { t1r1: 'S' } });
		assert.deepEqual(shape(layoutPrompt(c)), ['U0', 'U1', 'S:t1r1', 't1r2', 'REQ', 'a0']);
	});

	it("a split inside a turn keeps that turn's user message ahead of the summary and its kept rounds", () => {
		const c = makeConversation({ turns: [3, 4, 3] });
		const plan = planHalfContext(c);
		const entries = layoutPrompt(applySummary(c, plan.anchorRoundId, 'S'));
		assert.equal(plan.splitInsideTurnIndex, 1);
		assert.deepEqual(shape(entries), ['U0', 'U1', 'S:t1r1', 't1r2', 't1r3', 'U2', 't2r0', 't2r1', 't2r2', 'REQ']);
		const user1 = entries.findIndex(e => e.kind === 'user' && e.turnIndex === 1);
		const firstKept = entries.findIndex(e => e.kind === 'round' && e.round.id === plan.keepRoundIds[0]);
		assert.ok(user1 < firstKept);
		assert.equal((entries[user1] as { text: string }).text, 'request 1');
	});

	it('only the newest summary is rendered: older ones were absorbed into it', () => {
		const c = makeConversation({ turns: [3, 3], active: 2, summaries: { t0r1: 'S-old', t1r0: 'S-new' } });
		const summaries = layoutPrompt(c).filter(e => e.kind === 'summary');
		assert.deepEqual(
			summaries.map(e => (e as { text: string }).text),
			['S-new'],
		);
	});

	it('an active anchor puts the summary after the request marker', () => {
		const c = makeConversation({ turns: [2], active: 4, summaries: { a1: 'S' } });
		assert.deepEqual(shape(layoutPrompt(c)), ['U0', 'REQ', 'S:a1', 'a2', 'a3']);
	});

	it('marks verbatim rounds whose calls lack results as interrupted, and records locations', () => {
		const c = makeConversation({ turns: [1] });
		const stopped = makeRound('x', { toolCalls: [{ id: 'c1', name: 'runCommand', arguments: '{}' }] });
		const entries = layoutPrompt({ turns: c.turns, activeRounds: [stopped] });
		const rounds = entries.filter(e => e.kind === 'round') as Extract<PromptEntry, { kind: 'round' }>[];
		assert.deepEqual(
			rounds.map(r => [r.round.id, r.interrupted, r.location.source, r.location.turnIndex, r.location.roundIndex]),
			[
				['t0r0', false, 'history', 0, 0],
				['x', true, 'active', -1, 0],
			],
		);
	});

	it('turns without rounds still show their user message', () => {
		assert.deepEqual(shape(layoutPrompt(makeConversation({ turns: [0, 1, 0] }))), ['U0', 'U1', 't1r0', 'U2', 'REQ']);
	});
});
