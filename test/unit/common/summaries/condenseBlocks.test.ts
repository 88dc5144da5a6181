import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { CONDENSED_NOTE, summaryBlocks } from '../../../../src/common/conversation/summaryBlocks';
import {
	CONDENSED_FLOOR_TOKENS,
	blockTokens,
	condenseOldestBlocks,
	prepareCondensations,
	rememberCondensations,
	CONDENSED_AHEAD_MEMORY,
	usingPreparedCondensations,
} from '../../../../src/common/summaries/condenseBlocks';
import { firstLines } from '../../../../src/common/text/cutText';
import { summaryChanges } from '../../../../src/common/persistence/metadata';
import { makeConversation } from '../../helpers/conversations';

/** One token per word: easy to reason about. */
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const text = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
const lines = (n: number, perLine: number, tag: string) => Array.from({ length: n }, (_, i) => text(perLine, `${tag}${i}-`)).join('\n');

/** Turns 0..k-1 with a block of the given size each (in words), and two active rounds. */
function withBlocks(sizes: readonly number[], spans = false): Conversation {
	const summaries: Record<string, string> = {};
	sizes.forEach((n, t) => (summaries[`t${t}r1`] = lines(Math.ceil(n / 10), 10, `b${t}`)));
	const c = makeConversation({ turns: sizes.map(() => 2), active: 2, summaries });
	return spans ? { ...c, turns: c.turns.map((t, i) => (i === 0 ? { ...t, rounds: [t.rounds[0], { ...t.rounds[1], summarySpansTurns: true }] } : t)) } : c;
}

describe('condenseOldestBlocks: bounded growth of summary blocks', () => {
	const note = words(CONDENSED_NOTE);

	it('does nothing while all blocks fit the budget, or when there is only one block', async () => {
		const c = withBlocks([100, 100]);
		const same = await condenseOldestBlocks(c, 200, words, async () => 'x');
		assert.equal(same.conversation, c);
		assert.deepEqual(same.condensed, []);
		const one = withBlocks([500]);
		assert.equal((await condenseOldestBlocks(one, 10, words)).conversation, one, 'the newest block is never condensed');
	});

	it('condenses oldest first, never the newest, until the total fits; the model text is used when short enough', async () => {
		const c = withBlocks([400, 400, 400, 400]);
		const asked: number[] = [];
		const result = await condenseOldestBlocks(c, 1100, words, async (t, target) => {
			asked.push(target);
			return text(target, 'short');
		});
		const blocks = summaryBlocks(result.conversation);
		assert.deepEqual(
			blocks.map(b => b.condensed),
			[true, true, false, false],
		);
		// The oldest as far as the excess asks (down to the floor), the next to a quarter.
		assert.deepEqual(asked, [CONDENSED_FLOOR_TOKENS, 100]);
		assert.ok(result.totalTokens <= 1100, `${result.totalTokens}`);
		assert.equal(
			result.totalTokens,
			blocks.reduce((n, b) => n + blockTokens(b, words), 0),
		);
		assert.equal(blocks[1].text, text(100, 'short'));
		assert.deepEqual(
			result.condensed.map(b => [b.turnIndex, b.fromTokens, b.toTokens, b.by]),
			[
				[0, 400, CONDENSED_FLOOR_TOKENS, 'model'],
				[1, 400, 100, 'model'],
			],
		);
		// What the turn records store: exactly the condensed blocks, marked.
		assert.deepEqual(
			summaryChanges(c, result.conversation).map(s => [s.roundId, s.condensed]),
			[
				['t0r1', true],
				['t1r1', true],
			],
		);
	});

	it('a model that fails or writes too much: the block is cut to its first lines', async () => {
		const c = withBlocks([400, 400]);
		for (const condense of [async () => undefined, async () => text(300, 'long'), undefined]) {
			const result = await condenseOldestBlocks(c, 300, words, condense);
			const [first] = summaryBlocks(result.conversation);
			assert.equal(first.condensed, true);
			assert.equal(result.condensed[0].by, 'first-lines');
			assert.ok(words(first.text) <= CONDENSED_FLOOR_TOKENS && words(first.text) > 0, `${words(first.text)}`);
			assert.ok(summaryBlocks(c)[0].text.startsWith(first.text) || condense !== undefined, 'the first lines of the block');
		}
	});

	it('a block already condensed is only cut further, without the model, never below the floor; none is removed', async () => {
		const c = withBlocks([400, 400, 400]);
		const once = await condenseOldestBlocks(c, 1000, words, async (_t, target) => text(target, 's'));
		let calls = 0;
		const again = await condenseOldestBlocks(once.conversation, 10, words, async () => {
			calls++;
			return 'x';
		});
		const blocks = summaryBlocks(again.conversation);
		assert.equal(blocks.length, 3);
		assert.ok(blocks.slice(0, 2).every(b => b.condensed && words(b.text) > 0 && words(b.text) <= CONDENSED_FLOOR_TOKENS));
		assert.equal(calls, 1, 'only the block condensed for the first time asks the model');
		assert.equal(blocks[2].condensed, false);
		assert.ok(again.totalTokens > 10, 'the budget cannot be met at the floor: blocks stay');
		assert.ok(note > 0);
	});

	it('keeps the spans-turns mark of a 0.1.0 summary it condenses', async () => {
		const result = await condenseOldestBlocks(withBlocks([400, 400], true), 300, words);
		assert.deepEqual(
			summaryBlocks(result.conversation).map(b => [b.condensed, b.spansTurns]),
			[
				[true, true],
				[false, false],
			],
		);
	});

	it("the user's edited block goes last, and only by its first lines: the model never rewrites it, and it stays marked as theirs", async () => {
		const base = withBlocks([400, 400, 400, 400]);
		const editedRound = summaryBlocks(base)[0].roundId;
		const edit = (r: Round) => (r.id === editedRound ? { ...r, summaryEdited: true } : r);
		const c: Conversation = { ...base, turns: base.turns.map(t => ({ ...t, rounds: t.rounds.map(edit) })) };
		const asked: string[] = [];
		const model = async (t: string, target: number) => {
			asked.push(t.slice(0, 3));
			return text(target, 'short');
		};
		// One block's worth of excess: the oldest unedited block (turn 1) is condensed, the edited one (turn 0) is not.
		const one = await condenseOldestBlocks(c, 1400, words, model);
		assert.deepEqual(
			summaryBlocks(one.conversation).map(b => [b.turnIndex, b.condensed, b.edited]),
			[
				[0, false, true],
				[1, true, false],
				[2, false, false],
				[3, false, false],
			],
		);
		assert.deepEqual(asked, ['b10']);
		// Far over: every other older block first, then the edited one, cut to its first lines without the model.
		asked.length = 0;
		const all = await condenseOldestBlocks(c, 300, words, model);
		const blocks = summaryBlocks(all.conversation);
		assert.deepEqual(
			blocks.map(b => [b.turnIndex, b.condensed, b.edited]),
			[
				[0, true, true],
				[1, true, false],
				[2, true, false],
				[3, false, false],
			],
		);
		assert.deepEqual(asked, ['b10', 'b20'], 'the model is asked for the unedited blocks only');
		assert.ok(summaryBlocks(c)[0].text.startsWith(blocks[0].text.replace(/…$/, '')), 'the edited block keeps its first lines word for word');
		assert.deepEqual(
			all.condensed.map(b => [b.turnIndex, b.by]),
			[
				[1, 'model'],
				[2, 'model'],
				[0, 'first-lines'],
			],
		);
	});

	it('firstLines: whole lines while they fit; the start of the first line when none does', () => {
		assert.equal(firstLines('a b\nc d\ne f', 5, words), 'a b\nc d');
		assert.equal(firstLines(text(50, 'w'), 10, words).split(' ').length <= 10, true);
		assert.ok(firstLines(text(50, 'w'), 10, words).endsWith('…'));
		assert.ok(firstLines('x', 0, words).length > 0, 'never empty');
	});

	describe('condensed ahead (a background summary prepares what attaching it will condense)', () => {
		// A model that writes a quarter more than asked, as the benchmark's stand-in does.
		const overshooting = (calls: string[]) => async (t: string, target: number) => {
			calls.push(t.slice(0, 8));
			return text(Math.round(target * 1.25), 'prep');
		};

		it('at the overflow the prepared texts are used without a model call, and the blocks come out as a fresh condense would make them', async () => {
			const c = withBlocks([400, 400, 400, 400]);
			const aheadCalls: string[] = [];
			const prepared = await prepareCondensations(c, 1100, words, overshooting(aheadCalls));
			assert.equal(aheadCalls.length, 2, 'the two oldest blocks are condensed ahead');
			assert.equal(
				summaryBlocks(c).every(b => !b.condensed),
				true,
				'preparing changes nothing',
			);

			const freshCalls: string[] = [];
			const fresh = await condenseOldestBlocks(c, 1100, words, overshooting(freshCalls));
			const atOverflow: string[] = [];
			const taken = await condenseOldestBlocks(
				c,
				1100,
				words,
				usingPreparedCondensations(prepared, async (t, target) => {
					atOverflow.push(t);
					return text(target, 'late');
				}),
			);
			assert.deepEqual(atOverflow, [], 'no model call at the overflow');
			assert.deepEqual(summaryBlocks(taken.conversation), summaryBlocks(fresh.conversation));
			assert.deepEqual(
				taken.condensed.map(b => b.by),
				['first-lines', 'first-lines'],
				'over its target, a prepared text is cut to its first lines, as a fresh one is',
			);
		});

		it('asks the model when a block changed since, or when the target is tighter than the one prepared for', async () => {
			const c = withBlocks([400, 400, 400, 400]);
			const prepared = await prepareCondensations(c, 1100, words, overshooting([]));
			const asked: number[] = [];
			const step = usingPreparedCondensations(prepared, async (t, target) => {
				asked.push(target);
				return text(target, 'late');
			})!;
			const ask = async (text: string, target: number) => (await step(text, target)) ?? 'nothing';
			const oldest = summaryBlocks(c)[0].text;
			const [forOldest] = [...prepared.values()];
			assert.match(await ask(oldest, forOldest.targetTokens + 10), /prep/, 'a looser target takes the prepared text');
			assert.match(await ask(oldest, forOldest.targetTokens - 1), /late/, 'a tighter one asks again');
			assert.match(await ask('a block written since', 50), /late/);
			assert.deepEqual(asked, [forOldest.targetTokens - 1, 50]);
			assert.equal(usingPreparedCondensations(undefined, undefined), undefined, 'nothing prepared, no step: the deterministic cut');
		});

		it('a later job of the chain takes what an earlier one condensed instead of asking again; the memory keeps the newest entries', async () => {
			const c = withBlocks([400, 400, 400, 400]);
			const memory = new Map<string, { text: string; targetTokens: number }>();
			const first: string[] = [];
			rememberCondensations(memory, await prepareCondensations(c, 1100, words, overshooting(first)));
			const second: string[] = [];
			const again = await prepareCondensations(c, 1100, words, usingPreparedCondensations(memory, overshooting(second))!);
			assert.deepEqual([first.length, second.length, again.size], [2, 0, 2], 'the same blocks and targets: no second request, and the job still brings them');

			for (let i = 0; i < CONDENSED_AHEAD_MEMORY + 5; i++) rememberCondensations(memory, new Map([[`block ${i}`, { text: `short ${i}`, targetTokens: 10 }]]));
			assert.equal(memory.size, CONDENSED_AHEAD_MEMORY);
			assert.ok(memory.has(`block ${CONDENSED_AHEAD_MEMORY + 4}`) && !memory.has('block 0'), 'the oldest entries go first');
		});
	});
});
