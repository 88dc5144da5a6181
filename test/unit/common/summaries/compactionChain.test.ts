// Seed 004: summaries accumulate, in order. A long session is compacted many times; after
// each compaction nothing (no summary text, no round, no user request) may disappear from
// the prompt without having been absorbed into the newest summary, and the order stays
// chronological. The session is also persisted and rebuilt turn by turn, as the extension
// does through ChatResult.metadata.
import * as assert from 'node:assert/strict';
import type { Conversation, Turn } from '../../../../src/common/conversation/conversation';
import { flattenRounds } from '../../../../src/common/conversation/flatten';
import { encodeTurnRecord, METADATA_KEY, rebuildConversation, type StoredSummary } from '../../../../src/common/persistence/metadata';
import type { SummarizationMode, SummarizationPlan } from '../../../../src/common/planning/plan';
import { applySummary, planSummarization } from '../../../../src/common/planning/planners';
import { layoutPrompt, type PromptEntry } from '../../../../src/common/conversation/promptLayout';
import { makeRound } from '../../helpers/conversations';

const REQUESTS = ['fix the parser', 'add tests for it', 'refactor the lexer', 'update the docs', 'prepare the release'];
const ROUNDS_PER_REQUEST = 10;
/** Compact whenever this many rounds are unsummarized: stands in for "the prompt no longer fits". */
const WINDOW_ROUNDS = 8;

interface Compaction {
	readonly plan: SummarizationPlan;
	readonly text: string;
}

/** A stand-in summarizer: its text visibly contains what it absorbed, in order. */
function fakeSummary(index: number, plan: SummarizationPlan): string {
	return `<S${index} absorbs [${plan.previousSummary?.text ?? ''}] rounds [${plan.summarizeRoundIds.join(',')}]>`;
}

function unsummarizedCount(c: Conversation): number {
	const flat = flattenRounds(c);
	let i = flat.length - 1;
	while (i >= 0 && flat[i].round.summary === undefined) i--;
	return flat.length - 1 - i;
}

/** Runs the session; `modeAt(k)` is the setting at the k-th compaction. */
function runSession(modeAt: (k: number) => SummarizationMode, check: (c: Conversation, done: readonly Compaction[]) => void): Compaction[] {
	const compactions: Compaction[] = [];
	const stored: { user: string; metadata: unknown }[] = [];
	for (let t = 0; t < REQUESTS.length; t++) {
		// Each request starts from what the chat history stored, like the extension does.
		const rebuilt = rebuildConversation(stored);
		assert.deepEqual(rebuilt.issues, []);
		let conversation: Conversation = rebuilt.conversation;
		const summariesThisTurn: StoredSummary[] = [];
		for (let r = 0; r < ROUNDS_PER_REQUEST; r++) {
			conversation = { turns: conversation.turns, activeRounds: [...conversation.activeRounds, makeRound(`t${t}r${r}`)] };
			if (unsummarizedCount(conversation) >= WINDOW_ROUNDS) {
				const plan = planSummarization(conversation, modeAt(compactions.length));
				const text = fakeSummary(compactions.length + 1, plan);
				conversation = applySummary(conversation, plan.anchorRoundId, text);
				compactions.push({ plan, text });
				summariesThisTurn.push({ roundId: plan.anchorRoundId, text });
				check(conversation, compactions);
			}
		}
		// Summaries made now may anchor on earlier turns' rounds: they are stored in this turn's record.
		const ownIds = new Set(conversation.activeRounds.map(r => r.id));
		const record = encodeTurnRecord({
			rounds: conversation.activeRounds,
			summaries: summariesThisTurn.filter(s => !ownIds.has(s.roundId)),
		});
		stored.push({ user: REQUESTS[t], metadata: { [METADATA_KEY]: JSON.parse(JSON.stringify(record)) } });
		const finished: Turn = { user: REQUESTS[t], rounds: conversation.activeRounds };
		assert.deepEqual(rebuildConversation(stored).conversation, { turns: [...conversation.turns, finished], activeRounds: [] });
	}
	return compactions;
}

/** The invariants of seed 004, checked after every compaction. */
function checkPrompt(conversation: Conversation, done: readonly Compaction[]): void {
	const newest = done[done.length - 1];
	const entries = layoutPrompt(conversation);
	const flat = flattenRounds(conversation);
	const ids = flat.map(f => f.round.id);

	// The chain: each summary absorbed exactly the one before it.
	if (done.length > 1) {
		const previous = done[done.length - 2];
		assert.deepEqual(newest.plan.previousSummary, { roundId: previous.plan.anchorRoundId, text: previous.text });
	} else {
		assert.equal(newest.plan.previousSummary, undefined);
	}
	// Every summary text ever written is inside the newest one, nested oldest innermost.
	for (let k = 0; k < done.length - 1; k++) {
		assert.ok(done[k + 1].text.includes(done[k].text), `summary ${k + 2} lost summary ${k + 1}`);
	}
	// Older summaries are superseded in the prompt but still stored on their rounds.
	for (const c of done) {
		assert.equal(flat.find(f => f.round.id === c.plan.anchorRoundId)!.round.summary, c.text);
	}

	// The prompt: one summary, the newest, at its anchor; every user request verbatim in order.
	const summaries = entries.filter((e): e is Extract<PromptEntry, { kind: 'summary' }> => e.kind === 'summary');
	assert.deepEqual(
		summaries.map(s => s.text),
		[newest.text],
	);
	const users = entries.filter((e): e is Extract<PromptEntry, { kind: 'user' }> => e.kind === 'user');
	assert.deepEqual(
		users.map(u => u.text),
		conversation.turns.map(t => t.user),
	);
	const summaryAt = entries.indexOf(summaries[0]);
	const anchor = newest.plan.anchor;
	for (const u of users) {
		const before = entries.indexOf(u) < summaryAt;
		assert.equal(before, anchor.source === 'active' || u.turnIndex <= anchor.turnIndex, `user ${u.turnIndex} on the wrong side of the summary`);
	}

	// Every round is either verbatim after the summary, or named in it; in chronological order.
	const verbatim = entries.filter((e): e is Extract<PromptEntry, { kind: 'round' }> => e.kind === 'round').map(e => e.round.id);
	const anchorIndex = ids.indexOf(newest.plan.anchorRoundId);
	assert.deepEqual(verbatim, ids.slice(anchorIndex + 1));
	const absorbed = [...newest.text.matchAll(/t\d+r\d+/g)].map(m => m[0]);
	assert.deepEqual(absorbed, ids.slice(0, anchorIndex + 1));
}

describe('summaries accumulate across successive compactions (seed 004)', () => {
	it('half-context: at least five compactions, nothing dropped, chronological order', () => {
		const done = runSession(() => 'half-context', checkPrompt);
		assert.ok(done.length >= 5, `only ${done.length} compactions`);
		assert.ok(
			done.some(c => c.plan.anchor.source === 'history'),
			'expected a split crossing into an earlier turn',
		);
		assert.ok(
			done.some(c => c.plan.splitInsideTurnIndex !== undefined),
			'expected a split inside a past turn',
		);
	});

	it('legacy: the same guarantees', () => {
		const done = runSession(() => 'legacy', checkPrompt);
		assert.ok(done.length >= 5, `only ${done.length} compactions`);
	});

	it('the setting toggled between compactions: the same guarantees', () => {
		const done = runSession(k => (k % 2 === 0 ? 'half-context' : 'legacy'), checkPrompt);
		assert.ok(done.length >= 5);
		assert.deepEqual(new Set(done.map(c => c.plan.mode)), new Set(['half-context', 'legacy']));
	});
});
