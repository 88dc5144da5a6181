import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Conversation } from '../../../../src/common/conversation/conversation';
import { emptyLedger, extendLedger, type DoneLedger } from '../../../../src/common/ledger/doneLedger';
import { standsFor } from '../../../../src/common/ledger/standInCalls';
import { recall } from '../../../../src/common/recall/recall';
import { TiktokenTokenizer } from '../../../../src/common/tokens/tokenizer';
import { loadReplayScript, REPLAY_TOOL, storedConversation } from '../../../fixtures/scripted-model/src/replayScript';
import { conversationFromSessionJson } from '../../../../src/common/persistence/corpusFormat';
import { readFileSync } from 'node:fs';

const corpus = resolve(__dirname, '../../../../../../shared/corpus');
const SESSION = 'oh-ponyc-4588';

function ledgerOf(conversation: Conversation): DoneLedger {
	let ledger = emptyLedger();
	for (const turn of conversation.turns) for (const round of turn.rounds) ledger = extendLedger(ledger, round);
	return ledger;
}

/** The ledger without the round ids it stamps (the replay's rounds have other ids). */
function facts(ledger: DoneLedger) {
	const strip = <T extends { round: string }>(list: readonly T[]) => list.map(({ round: _round, ...rest }) => rest);
	return { reads: strip(ledger.reads), edits: strip(ledger.edits), commands: strip(ledger.commands), searches: strip(ledger.searches), steps: ledger.steps };
}

describe('stand-in tool calls (the scripted model replaying a recorded session)', () => {
	it('reads a replay_tool call as the call it carries', () => {
		const replayed = { id: 'c1', name: REPLAY_TOOL, arguments: JSON.stringify({ tool: 'bash', arguments: { command: 'make test' } }), result: 'exit code 0' };
		assert.deepEqual(standsFor(replayed), { id: 'c1', name: 'bash', arguments: '{"command":"make test"}', result: 'exit code 0' });
		const text = { ...replayed, arguments: JSON.stringify({ tool: 'think', arguments: 'plain text' }) };
		assert.equal(standsFor(text).arguments, 'plain text');
	});

	it('leaves other calls and malformed stand-in calls as they are', () => {
		for (const call of [
			{ id: 'a', name: 'bash', arguments: '{"tool":"x"}' },
			{ id: 'b', name: REPLAY_TOOL, arguments: 'not json' },
			{ id: 'c', name: REPLAY_TOOL, arguments: '{"arguments":{}}' },
			{ id: 'd', name: REPLAY_TOOL, arguments: '[1,2]' },
		]) {
			assert.equal(standsFor(call), call);
		}
	});

	it('gives a replayed corpus session the done-ledger of the recorded one', function () {
		const file = join(corpus, `${SESSION}.json`);
		if (!existsSync(file)) this.skip();
		const recorded = conversationFromSessionJson(JSON.parse(readFileSync(file, 'utf8')));
		const replayed = storedConversation(loadReplayScript(file));
		assert.ok(
			replayed.turns[0].rounds.every(r => r.toolCalls.every(c => c.name === REPLAY_TOOL)),
			'the replay calls one tool',
		);
		const expected = facts(ledgerOf(recorded));
		assert.ok(expected.commands.length > 0 && expected.reads.length + expected.edits.length > 0, 'the session runs commands and touches files');
		assert.deepEqual(facts(ledgerOf(replayed)), expected);
	});

	it('lets recall find replayed calls by the recorded tool name', async () => {
		const tokenizer = new TiktokenTokenizer();
		const options = { currentRequest: 'next', maxTokens: 4000, countTokens: (t: string) => tokenizer.countTokens(t), now: () => Date.now(), timeLimitMs: 5000 };
		const call = { id: 'c1', name: REPLAY_TOOL, arguments: JSON.stringify({ tool: 'bash', arguments: { command: 'ls src' } }), result: 'main.c' };
		const conversation: Conversation = {
			turns: [{ user: 'go', rounds: [{ id: 'r1', response: '', toolCalls: [call], summary: 'summary' }] }],
			activeRounds: [],
		};
		const found = await recall(conversation, { query: 'main', tool: 'bash' }, options);
		assert.match(found, /call 1 bash \{"command":"ls src"\}/);
		const none = await recall(conversation, { query: 'main', tool: REPLAY_TOOL }, options);
		assert.match(none, /No /);
	});
});
