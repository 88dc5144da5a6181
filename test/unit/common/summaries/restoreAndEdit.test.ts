import * as assert from 'node:assert/strict';
import { layoutPrompt } from '../../../../src/common/conversation/promptLayout';
import { summaryBlocks } from '../../../../src/common/conversation/summaryBlocks';
import { encodeTurnRecord, rebuildConversation } from '../../../../src/common/persistence/metadata';
import { applyRestore, parseRestoreArgs, restorePlan, targetBlock } from '../../../../src/common/summaries/restoreBlocks';
import { applySummaryEdit, checkSummaryEdit } from '../../../../src/common/summaries/summaryEdit';
import { summaryDocument, summaryTextOf, textHash, withSummaryText } from '../../../../src/common/summaries/summaryDocument';
import { TiktokenTokenizer } from '../../../../src/common/tokens/tokenizer';
import { deepFreeze, makeConversation } from '../../helpers/conversations';

const tokenizer = new TiktokenTokenizer();
const count = (text: string) => tokenizer.countTokens(text);

/** Three past turns: turn 0's rounds summarized (S0), turn 1's 0–2 (S1, which absorbed an older S1a on round 0), turn 1's round 3 and turn 2 verbatim. */
function chat() {
	return deepFreeze(makeConversation({ turns: [5, 4, 2], summaries: { t0r4: 'S0', t1r0: 'S1a', t1r2: 'S1' } }));
}

const verbatim = (conversation: ReturnType<typeof chat>) => layoutPrompt(conversation).flatMap(e => (e.kind === 'round' ? [e.round.id] : []));
const shownBlocks = (conversation: ReturnType<typeof chat>) => summaryBlocks(conversation).map(b => `${b.roundId}:${b.text}`);

/** The conversation as the next request rebuilds it from this turn's stored summary changes. */
function afterReload(conversation: ReturnType<typeof chat>, changes: Parameters<typeof encodeTurnRecord>[0]['summaryBlocks']) {
	const history = conversation.turns.map(turn => ({ user: turn.user, metadata: { longhaul: encodeTurnRecord({ rounds: turn.rounds }) } }));
	history.push({ user: '', metadata: { longhaul: encodeTurnRecord({ rounds: [], summaryBlocks: changes }) } });
	const rebuilt = rebuildConversation(history).conversation;
	return { turns: rebuilt.turns.slice(0, conversation.turns.length), activeRounds: [] };
}

describe('restoring a summary block', () => {
	it('brings the newest block’s rounds back word for word, absorbed summaries included, and the stored record does the same on reload', () => {
		const conversation = chat();
		const block = targetBlock(conversation, { kind: 'newest' })!;
		assert.equal(block.roundId, 't1r2');
		const plan = restorePlan(conversation, block);
		assert.deepEqual(plan.restoredRoundIds, ['t1r0', 't1r1', 't1r2']);
		const { conversation: restored, changes } = applyRestore(conversation, plan);
		assert.deepEqual(shownBlocks(restored), ['t0r4:S0']);
		assert.deepEqual(verbatim(restored), ['t1r0', 't1r1', 't1r2', 't1r3', 't2r0', 't2r1']);
		assert.deepEqual(changes, [
			{ roundId: 't1r0', text: '', removed: true },
			{ roundId: 't1r2', text: '', removed: true },
		]);
		const reloaded = afterReload(conversation, changes);
		assert.deepEqual(shownBlocks(reloaded), ['t0r4:S0']);
		assert.deepEqual(verbatim(reloaded), verbatim(restored));
	});

	it('restores an older block together with every newer one (compactions are undone newest first)', () => {
		const conversation = chat();
		const plan = restorePlan(conversation, targetBlock(conversation, { kind: 'request', request: 1 })!);
		assert.deepEqual(
			plan.blocks.map(b => b.roundId),
			['t0r4', 't1r2'],
		);
		const { conversation: restored } = applyRestore(conversation, plan);
		assert.deepEqual(shownBlocks(restored), []);
		assert.equal(verbatim(restored).length, 11, 'every round is back');
	});

	it('restores only the newest rounds when asked, the block re-anchored on the newest round that stays summarized', () => {
		const conversation = chat();
		const plan = restorePlan(conversation, targetBlock(conversation, { kind: 'request', request: 1 })!, 4);
		assert.deepEqual(plan.restoredRoundIds, ['t0r4', 't1r0', 't1r1', 't1r2']);
		assert.deepEqual(plan.keep && { round: plan.keep.roundId, text: plan.keep.block.text }, { round: 't0r3', text: 'S0' });
		const partial = applyRestore(conversation, plan);
		assert.deepEqual(shownBlocks(partial.conversation), ['t0r3:S0']);
		assert.deepEqual(verbatim(partial.conversation), ['t0r4', 't1r0', 't1r1', 't1r2', 't1r3', 't2r0', 't2r1']);
		assert.deepEqual(shownBlocks(afterReload(conversation, partial.changes)), ['t0r3:S0']);
		// The newest two rounds of turn 1's block: the older S1 text stays, on round 0 (where S1a was).
		const newest2 = restorePlan(conversation, targetBlock(conversation, { kind: 'newest' })!, 2);
		assert.deepEqual(newest2.restoredRoundIds, ['t1r1', 't1r2']);
		const { conversation: restored, changes } = applyRestore(conversation, newest2);
		assert.deepEqual(shownBlocks(restored), ['t0r4:S0', 't1r0:S1']);
		assert.deepEqual(verbatim(restored), ['t1r1', 't1r2', 't1r3', 't2r0', 't2r1']);
		assert.deepEqual(shownBlocks(afterReload(conversation, changes)), ['t0r4:S0', 't1r0:S1']);
	});

	it('finds the block a round belongs to, and reads /restore arguments', () => {
		assert.equal(targetBlock(chat(), { kind: 'round', roundId: 't1r1' })?.roundId, 't1r2');
		assert.equal(targetBlock(chat(), { kind: 'round', roundId: 't1r3' }), undefined);
		assert.equal(targetBlock(chat(), { kind: 'request', request: 3 }), undefined);
		assert.deepEqual(parseRestoreArgs(''), { target: { kind: 'newest' } });
		assert.deepEqual(parseRestoreArgs(' 2 '), { target: { kind: 'request', request: 2 } });
		assert.deepEqual(parseRestoreArgs('id:t1r2 newest:3'), { target: { kind: 'round', roundId: 't1r2' }, newest: 3 });
		assert.match((parseRestoreArgs('everything') as { error: string }).error, /"everything" is not something \/restore understands/);
	});
});

describe('editing a summary', () => {
	const document = summaryDocument({ roundId: 't1r2', text: 'S1', location: { source: 'history', turnIndex: 1, roundIndex: 2 } });

	it('reads the text below the line and refuses a missing line, an empty text or one over the budget', () => {
		const edited = document.content.replace(/\nS1\n$/, '\nS1, corrected: the tests pass on main.\n');
		assert.deepEqual(checkSummaryEdit(edited, 'S1', 100, count), { kind: 'ok', text: 'S1, corrected: the tests pass on main.' });
		assert.deepEqual(checkSummaryEdit(document.content, 'S1', 100, count), { kind: 'unchanged' });
		assert.match((checkSummaryEdit('just text', 'S1', 100, count) as { message: string }).message, /keep the line "---"/);
		assert.match((checkSummaryEdit(document.content.replace(/\nS1\n$/, '\n\n'), 'S1', 100, count) as { message: string }).message, /cannot be empty/);
		const long = document.content.replace(/\nS1\n$/, `\n${'word '.repeat(300)}\n`);
		assert.match((checkSummaryEdit(long, 'S1', 100, count) as { message: string }).message, /it is 30\d tokens, and a summary may take at most 100/);
	});

	it('replaces the block at the next request, marked as edited, and keeps it so across a reload', () => {
		const conversation = chat();
		const outcome = applySummaryEdit(conversation, { roundId: 't1r2', base: textHash('S1'), text: 'S1 by hand' }, 100, count);
		assert.equal(outcome.kind, 'applied');
		if (outcome.kind !== 'applied') return;
		assert.deepEqual(shownBlocks(outcome.conversation), ['t0r4:S0', 't1r2:S1 by hand']);
		assert.equal(summaryBlocks(outcome.conversation)[1].edited, true);
		assert.deepEqual(outcome.block, { roundId: 't1r2', text: 'S1 by hand', edited: true });
		const reloaded = afterReload(conversation, [outcome.block]);
		assert.deepEqual(shownBlocks(reloaded), ['t0r4:S0', 't1r2:S1 by hand']);
		assert.equal(summaryBlocks(reloaded)[1].edited, true);
		// A second edit of the user's own text goes through even though the document was opened on the model's.
		assert.equal(applySummaryEdit(outcome.conversation, { roundId: 't1r2', base: textHash('S1'), text: 'again' }, 100, count).kind, 'applied');
	});

	it('does not overwrite a block that changed since, nor one over the budget, and leaves other chats’ edits alone', () => {
		const conversation = chat();
		assert.equal(applySummaryEdit(conversation, { roundId: 't1r2', base: textHash('older text'), text: 'x' }, 100, count).kind, 'dropped');
		assert.equal(applySummaryEdit(conversation, { roundId: 't1r0', base: textHash('S1a'), text: 'x' }, 100, count).kind, 'dropped');
		assert.equal(applySummaryEdit(conversation, { roundId: 't1r2', base: textHash('S1'), text: 'word '.repeat(300) }, 100, count).kind, 'dropped');
		assert.equal(applySummaryEdit(conversation, { roundId: 'other-chat-round', base: 'x', text: 'x' }, 100, count).kind, 'elsewhere');
	});

	it('says in the document that the user edited it', () => {
		const edited = summaryDocument({ roundId: 't1r2', text: 'mine', location: { source: 'history', turnIndex: 1, roundIndex: 2 }, edited: true });
		assert.match(edited.content, /You edited this summary: the model remembers your text\./);
		assert.doesNotMatch(document.content, /You edited/);
		const saved = withSummaryText(document, 'new text', 'SAVED.');
		assert.equal(summaryTextOf(saved.content), 'new text');
		assert.match(saved.content, /round 3\. SAVED\.\n/);
	});
});
