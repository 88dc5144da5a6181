import * as assert from 'node:assert/strict';
import { layoutPrompt, SHORTENED_REQUEST_TOKENS, type PromptEntry } from '../../../../src/common/conversation/promptLayout';
import { blockRows } from '../../../../src/common/conversation/blockListing';
import { planHalfContext } from '../../../../src/common/planning/halfContextPlanner';
import { applySummaryBlocks } from '../../../../src/common/summaries/applySummary';
import { summaryBlocks } from '../../../../src/common/conversation/summaryBlocks';
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

	it("a block stands right after its turn's user message, replacing its turn's rounds up to its anchor; user requests stay verbatim", () => {
		const c = makeConversation({ turns: [2, 3], active: 1, summaries: { t0r1: 'S0', t1r1: 'S1' } });
		assert.deepEqual(shape(layoutPrompt(c)), ['U0', 'S:t0r1', 'U1', 'S:t1r1', 't1r2', 'REQ', 'a0']);
	});

	it("a split inside a turn keeps that turn's user message ahead of its block and its kept rounds", () => {
		const c = makeConversation({ turns: [3, 4, 3] });
		const plan = planHalfContext(c);
		const entries = layoutPrompt(applySummaryBlocks(c, plan, ['S0', 'S1']));
		assert.equal(plan.splitInsideTurnIndex, 1);
		assert.deepEqual(shape(entries), ['U0', 'S:t0r2', 'U1', 'S:t1r1', 't1r2', 't1r3', 'U2', 't2r0', 't2r1', 't2r2', 'REQ']);
		const user1 = entries.findIndex(e => e.kind === 'user' && e.turnIndex === 1);
		const firstKept = entries.findIndex(e => e.kind === 'round' && e.round.id === plan.keepRoundIds[0]);
		assert.ok(user1 < firstKept);
		assert.equal((entries[user1] as { text: string }).text, 'request 1');
	});

	it('every turn keeps its own block (decision 3, root cause 1); within one turn only the newest, which absorbed the older', () => {
		const c = makeConversation({ turns: [3, 3], active: 4, summaries: { t0r1: 'S0-old', t0r2: 'S0', t1r2: 'S1', a1: 'Sa' } });
		const summaries = layoutPrompt(c).filter(e => e.kind === 'summary');
		assert.deepEqual(
			summaries.map(e => (e as { text: string }).text),
			['S0', 'S1', 'Sa'],
		);
		assert.deepEqual(shape(layoutPrompt(c)), ['U0', 'S:t0r2', 'U1', 'S:t1r2', 'REQ', 'S:a1', 'a2', 'a3']);
		assert.deepEqual(
			summaryBlocks(c).map(b => [b.turnIndex, b.roundIds.join(',')]),
			[
				[0, 't0r0,t0r1,t0r2'],
				[1, 't1r0,t1r1,t1r2'],
				[2, 'a0,a1'],
			],
		);
	});

	it('a compaction spanning turns 1-3 renders [u1] [S1] [u2] [S2] [u3] [S3] [recent], not [u1] [u2] [u3] [S] (decision 3, root cause 2)', () => {
		const c = makeConversation({ turns: [2, 2, 4], active: 2 });
		const plan = planHalfContext(c);
		assert.deepEqual(plan.summarizeRoundIds, ['t0r0', 't0r1', 't1r0', 't1r1', 't2r0']);
		const entries = layoutPrompt(applySummaryBlocks(c, plan, ['S0', 'S1', 'S2']));
		assert.deepEqual(shape(entries), ['U0', 'S:t0r1', 'U1', 'S:t1r1', 'U2', 'S:t2r0', 't2r1', 't2r2', 't2r3', 'REQ', 'a0', 'a1']);
	});

	it('a summary written by 0.1.0 (spanning turns) stands for everything before it; blocks before it are not shown, later ones are', () => {
		const base = makeConversation({ turns: [2, 3, 2], active: 3, summaries: { t0r1: 'old', t1r1: 'V1', t2r1: 'S2' } });
		const c = {
			...base,
			turns: base.turns.map((t, i) => (i === 1 ? { ...t, rounds: t.rounds.map(r => (r.id === 't1r1' ? { ...r, summarySpansTurns: true } : r)) } : t)),
		};
		assert.deepEqual(shape(layoutPrompt(c)), ['U0', 'U1', 'S:t1r1', 'U2', 'S:t2r1', 'REQ', 'a0', 'a1', 'a2']);
		const blocks = summaryBlocks(c);
		assert.deepEqual(
			blocks.map(b => [b.turnIndex, b.roundIds.join(','), b.spansTurns]),
			[
				[1, 't0r0,t0r1,t1r0,t1r1', true],
				[2, 't1r2,t2r0,t2r1', false],
			],
		);
	});

	it('an active anchor puts the block right after the request', () => {
		const c = makeConversation({ turns: [2], active: 4, summaries: { t0r1: 'S0', a1: 'S' } });
		assert.deepEqual(shape(layoutPrompt(c)), ['U0', 'S:t0r1', 'REQ', 'S:a1', 'a2', 'a3']);
		assert.deepEqual(
			summaryBlocks(c).map(b => [b.turnIndex, b.roundIds]),
			[
				[0, ['t0r0', 't0r1']],
				[1, ['a0', 'a1']],
			],
		);
	});

	it('blockRows: what /context lists for each block (request, rounds within it, size)', () => {
		const base = makeConversation({ turns: [3, 4], active: 3, summaries: { t0r2: 'S0', t1r3: 'S1', a0: 'Sa' } });
		const rows = blockRows(base, b => b.text.length);
		assert.deepEqual(
			rows.map(r => [r.request, r.current, r.firstRound, r.lastRound, r.roundCount, r.fromEarlier, r.tokens]),
			[
				[1, false, 1, 3, 3, false, 2],
				[2, false, 1, 4, 4, false, 2],
				[3, true, 1, 1, 1, false, 2],
			],
		);
	});

	it('marks a condensed block', () => {
		const base = makeConversation({ turns: [2], active: 2, summaries: { t0r1: 'S0' } });
		const c = { ...base, turns: [{ ...base.turns[0], rounds: [base.turns[0].rounds[0], { ...base.turns[0].rounds[1], summaryCondensed: true }] }] };
		const entry = layoutPrompt(c).find(e => e.kind === 'summary');
		assert.equal(entry?.kind === 'summary' && entry.condensed, true);
		assert.equal(summaryBlocks(c)[0].condensed, true);
	});

	describe('requests of summarized turns, when older requests crowd the window', () => {
		const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
		const long = (t: number) => Array.from({ length: 30 }, (_, i) => `request ${t} line ${i} ` + 'word '.repeat(20)).join('\n');
		const c = (summaries: Record<string, string>) => {
			const base = makeConversation({ turns: [2, 2, 2], active: 2, summaries });
			return { ...base, turns: base.turns.map((turn, t) => ({ ...turn, user: long(t) })) };
		};

		it('are shortened to their first lines, oldest first, with a note, only as far as needed', () => {
			const conversation = c({ t0r1: 'S0', t1r1: 'S1', t2r0: 'S2' });
			const total = conversation.turns.reduce((n, t) => n + words(t.user), 0);
			// Room for all but about one request: only the oldest is shortened.
			const entries = layoutPrompt(conversation, { olderRequestsMaxTokens: total - 400, countTokens: words });
			const users = entries.filter((e): e is Extract<PromptEntry, { kind: 'user' }> => e.kind === 'user');
			assert.deepEqual(
				users.map(u => u.shortened === true),
				[true, false, false],
			);
			assert.ok(users[0].text.length < conversation.turns[0].user.length);
			assert.ok(conversation.turns[0].user.startsWith(users[0].text.slice(0, users[0].text.lastIndexOf('\n'))));
			assert.match(
				users[0].text,
				/\[Request shortened to fit the context window: \d+ more tokens left out\. The work done for it is summarized right after it\.\]$/,
			);
			assert.ok(words(users[0].text) <= SHORTENED_REQUEST_TOKENS + 30);
			assert.deepEqual(shape(entries), ['U0', 'S:t0r1', 'U1', 'S:t1r1', 'U2', 'S:t2r0', 't2r1', 'REQ', 'a0', 'a1']);
		});

		it('never the request of a turn with verbatim rounds, nor the request in progress; never without a budget', () => {
			const conversation = c({ t0r1: 'S0', t1r0: 'S1' });
			const users = layoutPrompt(conversation, { olderRequestsMaxTokens: 1, countTokens: words }).filter(e => e.kind === 'user');
			assert.deepEqual(
				users.map(u => u.kind === 'user' && u.shortened === true),
				[true, false, false],
				'turn 1 still shows t1r1 verbatim, turn 2 has no block',
			);
			assert.ok(layoutPrompt(conversation).every(e => e.kind !== 'user' || !e.shortened));
		});
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
