// Seed 004: summaries accumulate, in conversation order. A long session of requests of very
// different lengths is compacted many times; after each compaction the prompt must read
// `[user0] [summary0] [user1] [summary1] … [userN] [live rounds]`: one block per turn with
// summarized rounds, right after that turn's user message, earlier blocks never dropped or moved,
// nothing (no round, no user request, no block) disappearing without being absorbed into its own
// turn's newer block. The session is persisted and rebuilt turn by turn, as the extension does
// through ChatResult.metadata.
import * as assert from 'node:assert/strict';
import type { Conversation, Turn } from '../../../../src/common/conversation/conversation';
import { flattenRounds } from '../../../../src/common/conversation/flatten';
import { summaryBlocks, type SummaryBlock } from '../../../../src/common/conversation/summaryBlocks';
import { encodeTurnRecord, METADATA_KEY, rebuildConversation } from '../../../../src/common/persistence/metadata';
import type { StoredSummaryBlock } from '../../../../src/common/summaries/applySummary';
import type { SummarizationMode, SummarizationPlan } from '../../../../src/common/planning/plan';
import { planSummarization } from '../../../../src/common/planning/planners';
import { applySummaryBlocks, blockSegments } from '../../../../src/common/summaries/applySummary';
import { layoutPrompt, type PromptEntry } from '../../../../src/common/conversation/promptLayout';
import { makeRound } from '../../helpers/conversations';

/** Requests and how many rounds each takes: long ones, and runs of short ones a compaction spans. */
const REQUESTS: ReadonlyArray<[string, number]> = [
	['fix the parser', 10],
	['add a test', 2],
	['and another', 1],
	['run them', 3],
	['refactor the lexer', 12],
	['update the docs', 2],
	['typo', 1],
	['prepare the release', 9],
];
/** Compact whenever this many rounds are unsummarized: stands in for "the prompt no longer fits". */
const WINDOW_ROUNDS = 8;

interface Compaction {
	readonly plan: SummarizationPlan;
	readonly texts: readonly string[];
}

/** A stand-in summarizer: each block's text visibly contains what it absorbed (its turn's previous block) and its rounds, in order. */
function fakeBlocks(index: number, conversation: Conversation, plan: SummarizationPlan): string[] {
	return blockSegments(conversation, plan).map(s => `<S${index}.${s.turnIndex} absorbs [${s.absorbs?.text ?? ''}] rounds [${s.roundIds.join(',')}]>`);
}

function unsummarizedCount(c: Conversation): number {
	const flat = flattenRounds(c);
	let i = flat.length - 1;
	while (i >= 0 && flat[i].round.summary === undefined) i--;
	return flat.length - 1 - i;
}

/** Runs the session; `modeAt(k)` is the setting at the k-th compaction. `check` sees the prompt before and after each compaction. */
function runSession(
	modeAt: (k: number) => SummarizationMode,
	check: (before: Conversation, after: Conversation, done: readonly Compaction[]) => void,
): Compaction[] {
	const compactions: Compaction[] = [];
	const stored: { user: string; metadata: unknown }[] = [];
	REQUESTS.forEach(([user, roundCount], t) => {
		// Each request starts from what the chat history stored, like the extension does.
		const rebuilt = rebuildConversation(stored);
		assert.deepEqual(rebuilt.issues, []);
		let conversation: Conversation = rebuilt.conversation;
		const blocksThisTurn: StoredSummaryBlock[] = [];
		for (let r = 0; r < roundCount; r++) {
			conversation = { turns: conversation.turns, activeRounds: [...conversation.activeRounds, makeRound(`t${t}r${r}`)] };
			if (unsummarizedCount(conversation) >= WINDOW_ROUNDS) {
				const before = conversation;
				const plan = planSummarization(conversation, modeAt(compactions.length));
				const texts = fakeBlocks(compactions.length + 1, conversation, plan);
				conversation = applySummaryBlocks(conversation, plan, texts);
				compactions.push({ plan, texts });
				blockSegments(before, plan).forEach((s, i) => blocksThisTurn.push({ roundId: s.anchorRoundId, text: texts[i] }));
				check(before, conversation, compactions);
			}
		}
		// Blocks made now may anchor on earlier turns' rounds: they are stored in this turn's record.
		const ownIds = new Set(conversation.activeRounds.map(r => r.id));
		const record = encodeTurnRecord({ rounds: conversation.activeRounds, summaryBlocks: blocksThisTurn.filter(s => !ownIds.has(s.roundId)) });
		stored.push({ user, metadata: { [METADATA_KEY]: JSON.parse(JSON.stringify(record)) } });
		const finished: Turn = { user, rounds: conversation.activeRounds };
		assert.deepEqual(rebuildConversation(stored).conversation, { turns: [...conversation.turns, finished], activeRounds: [] });
	});
	return compactions;
}

type SummaryEntry = Extract<PromptEntry, { kind: 'summary' }>;

/** The invariants of docs/decisions.md decision 3, checked after every compaction. */
function checkPrompt(before: Conversation, after: Conversation, done: readonly Compaction[]): void {
	const newest = done[done.length - 1];
	const entries = layoutPrompt(after);
	const ids = flattenRounds(after).map(f => f.round.id);
	const blocks = summaryBlocks(after);
	const turnCount = after.turns.length;

	// Every user request verbatim, in order.
	assert.deepEqual(
		entries.flatMap(e => (e.kind === 'user' ? [e.text] : [])),
		after.turns.map(t => t.user),
	);
	// Each block right after its own turn's user message (root cause 2), blocks in turn order, one per turn.
	const summaries = entries.filter((e): e is SummaryEntry => e.kind === 'summary');
	assert.equal(summaries.length, blocks.length);
	summaries.forEach((s, i) => {
		const at = entries.indexOf(s);
		const previous = entries[at - 1];
		const turn = blocks[i].turnIndex;
		if (turn === turnCount) assert.equal(previous.kind, 'request', `the block of the request in progress must follow it`);
		else assert.ok(previous.kind === 'user' && previous.turnIndex === turn, `block ${i} (turn ${turn}) is not right after its user message`);
		if (i > 0) assert.ok(blocks[i - 1].turnIndex < turn, 'blocks out of order');
	});
	// One block per turn with summarized rounds (root cause 1: never a single block for everything).
	const anchorIndex = ids.indexOf(newest.plan.anchorRoundId);
	const turnOf = new Map(flattenRounds(after).map(f => [f.round.id, f.source === 'active' ? turnCount : f.turnIndex]));
	const coveredTurns = [...new Set(ids.slice(0, anchorIndex + 1).map(id => turnOf.get(id)!))];
	assert.deepEqual(
		blocks.map(b => b.turnIndex),
		coveredTurns,
	);
	// Each block covers rounds of its own turn only, and names them (directly or through what it absorbed), in order.
	for (const b of blocks) {
		assert.ok(
			b.roundIds.every(id => turnOf.get(id) === b.turnIndex),
			`block of turn ${b.turnIndex} covers ${b.roundIds}`,
		);
		assert.deepEqual(
			[...b.text.matchAll(/t\d+r\d+/g)].map(m => m[0]),
			b.roundIds,
		);
	}
	// Verbatim: every round after the newest anchor, in order.
	assert.deepEqual(
		entries.flatMap(e => (e.kind === 'round' ? [e.round.id] : [])),
		ids.slice(anchorIndex + 1),
	);
	// Nothing lost: every block before the compaction is still there, the same, or absorbed by its turn's new block.
	for (const old of summaryBlocks(before)) {
		const now = blocks.find(b => b.turnIndex === old.turnIndex) as SummaryBlock;
		assert.ok(now, `the block of turn ${old.turnIndex} vanished`);
		if (now.text !== old.text) {
			assert.ok(now.text.includes(old.text), `the block of turn ${old.turnIndex} was replaced without being absorbed`);
			assert.equal(newest.plan.previousSummary?.roundId, old.roundId);
		}
	}
	// A compaction spanning k turns made k blocks.
	assert.equal(newest.texts.length, new Set(newest.plan.summarizeRoundIds.map(id => turnOf.get(id))).size);
}

describe('summaries accumulate in conversation order across successive compactions (decision 3)', () => {
	it('half-context: many compactions, some spanning several turns, one block per turn in order, nothing dropped', () => {
		const done = runSession(() => 'half-context', checkPrompt);
		assert.ok(done.length >= 5, `only ${done.length} compactions`);
		assert.ok(
			done.some(c => c.texts.length >= 3),
			'expected a compaction spanning three or more turns',
		);
		assert.ok(
			done.some(c => c.plan.previousSummary !== undefined),
			'expected a compaction continuing a turn that already had a block',
		);
		assert.ok(
			done.some(c => c.plan.splitInsideTurnIndex !== undefined),
			'expected a split inside a past turn',
		);
	});

	it('legacy: the same guarantees', () => {
		const done = runSession(() => 'legacy', checkPrompt);
		assert.ok(done.length >= 5, `only ${done.length} compactions`);
		assert.ok(done.some(c => c.texts.length >= 2));
	});

	it('the setting toggled between compactions: the same guarantees', () => {
		const done = runSession(k => (k % 2 === 0 ? 'half-context' : 'legacy'), checkPrompt);
		assert.ok(done.length >= 5);
		assert.deepEqual(new Set(done.map(c => c.plan.mode)), new Set(['half-context', 'legacy']));
	});
});
