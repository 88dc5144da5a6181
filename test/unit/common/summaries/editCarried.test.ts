import * as assert from 'node:assert/strict';
import { summaryBlocks } from '../../../../src/common/conversation/summaryBlocks';
import { encodeTurnRecord, rebuildConversation, summaryChanges } from '../../../../src/common/persistence/metadata';
import { applySummaryBlocks } from '../../../../src/common/summaries/applySummary';
import { condenseOldestBlocks } from '../../../../src/common/summaries/condenseBlocks';
import { applyRestore, restorePlan, targetBlock } from '../../../../src/common/summaries/restoreBlocks';
import { applySummaryEdit } from '../../../../src/common/summaries/summaryEdit';
import { summaryDocument, textHash } from '../../../../src/common/summaries/summaryDocument';
import type { Conversation } from '../../../../src/common/conversation/conversation';
import { deepFreeze, makeConversation } from '../../helpers/conversations';

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Turn 0 summarized (S0), turn 1's rounds 0–2 summarized and then edited by the user, turn 1's round 3 and turn 2 verbatim. */
function editedChat(): Conversation {
	const base = deepFreeze(makeConversation({ turns: [5, 4, 2], summaries: { t0r4: 'S0', t1r2: 'S1' } }));
	const outcome = applySummaryEdit(base, { roundId: 't1r2', base: textHash('S1'), text: 'S1 corrected by hand' }, 100, words);
	assert.equal(outcome.kind, 'applied');
	return (outcome as { conversation: Conversation }).conversation;
}

const marks = (c: Conversation) => summaryBlocks(c).map(b => [b.roundId, b.edited, b.buildsOnEdit]);

/** A summary text of `n` words. */
const long = (head: string, n: number) => `${head} ${'word '.repeat(n)}`.trim();

/** /compact in the next request: turn 1's last round and turn 2, absorbing turn 1's edited block. */
function compacted(c: Conversation): Conversation {
	const previousSummary = { roundId: 't1r2', text: 'S1 corrected by hand' };
	return applySummaryBlocks(c, { summarizeRoundIds: ['t1r3', 't2r0'], previousSummary }, [long('S1 new', 200), long('S2', 200)]);
}

describe('a summary written from the user’s edit keeps a mark (decision 35)', () => {
	it('a new block that absorbed an edited block builds on the edit; the other new block does not', () => {
		assert.deepEqual(marks(compacted(editedChat())), [
			['t0r4', false, false],
			['t1r3', false, true],
			['t2r0', false, false],
		]);
	});

	it('the mark is carried by every later summary that absorbs that block, and by its condensation', async () => {
		let c = compacted(editedChat());
		c = applySummaryBlocks(c, { summarizeRoundIds: ['t2r1'], previousSummary: { roundId: 't2r0', text: long('S2', 200) } }, ['S2 again']);
		assert.deepEqual(marks(c).at(-1), ['t2r1', false, false], 'a block that never saw the edit is not marked');
		const condensed = await condenseOldestBlocks(c, 100, words);
		const t1 = summaryBlocks(condensed.conversation).find(b => b.turnIndex === 1)!;
		assert.deepEqual([t1.condensed, t1.buildsOnEdit], [true, true]);
	});

	it('a block that only sits beside an edited block is not marked, and the edited block stays edited', () => {
		const c = applySummaryBlocks(editedChat(), { summarizeRoundIds: ['t2r0'] }, ['S2']);
		assert.deepEqual(marks(c), [
			['t0r4', false, false],
			['t1r2', true, false],
			['t2r0', false, false],
		]);
	});

	it('is stored with the request and read back after a reload', () => {
		const before = editedChat();
		const after = compacted(before);
		const changes = summaryChanges(before, after);
		assert.ok(changes.some(b => b.roundId === 't1r3' && b.buildsOnEdit === true));
		const history = before.turns.map(turn => ({ user: turn.user, metadata: { longhaul: encodeTurnRecord({ rounds: turn.rounds }) } }));
		history.push({ user: '/compact', metadata: { longhaul: encodeTurnRecord({ rounds: [], summaryBlocks: changes }) } });
		const rebuilt = rebuildConversation(JSON.parse(JSON.stringify(history)) as typeof history).conversation;
		assert.deepEqual(summaryBlocks(rebuilt).find(b => b.roundId === 't1r3')?.buildsOnEdit, true);
	});

	it('an edit of a block that built on an edit makes it the user’s own', () => {
		const c = compacted(editedChat());
		const outcome = applySummaryEdit(c, { roundId: 't1r3', base: textHash(long('S1 new', 200)), text: 'mine again' }, 100, words);
		assert.equal(outcome.kind, 'applied');
		const block = summaryBlocks((outcome as { conversation: Conversation }).conversation).find(b => b.roundId === 't1r3')!;
		assert.deepEqual([block.edited, block.buildsOnEdit], [true, false]);
	});

	it('a partial restore that re-anchors the block keeps its mark', () => {
		const c = compacted(editedChat());
		const block = targetBlock(c, { kind: 'request', request: 2 })!;
		const plan = restorePlan(c, block, 2);
		assert.ok(plan.keep, 'the block is re-anchored');
		const { conversation, changes } = applyRestore(c, plan);
		assert.equal(summaryBlocks(conversation).find(b => b.turnIndex === 1)?.buildsOnEdit, true);
		assert.ok(changes.some(b => b.buildsOnEdit === true));
	});

	it('the document says it was written from the user’s edit', () => {
		const location = { source: 'history' as const, turnIndex: 1, roundIndex: 3 };
		const doc = summaryDocument({ roundId: 't1r3', text: 'S1 new', location, buildsOnEdit: true });
		assert.match(doc.content, /written from a summary you edited/);
		assert.doesNotMatch(summaryDocument({ roundId: 't1r3', text: 'S1 new', location }).content, /you edited/);
	});
});
