// The demo shows what a real session would: a recorded corpus session replayed through the real
// participant (every call through the scripted model's replay_tool) gives the done-ledger the
// recorded session has — its commands, reads and edits — and /context lists them, not
// "replay_tool (N times)".
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { emptyLedger, extendLedger } from '../../src/common/ledger/doneLedger';
import { loadBashParser } from '../../src/common/shell/bashParser';
import { conversationFromSessionJson } from '../../src/common/persistence/corpusFormat';
import { loadReplayScript } from '../fixtures/scripted-model/src/replayScript';
import { resetSession, scriptedModel, sendChat } from './helpers';

const SESSION = 'oh-ponyc-4595';

function corpusDir(): string {
	return process.env.LONGHAUL_CORPUS ?? path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'corpus');
}

describe('Replayed sessions in the done-ledger', function () {
	this.timeout(5 * 60_000);
	beforeEach(resetSession);
	after(resetSession);

	it(`${SESSION} replayed: /context reports the recorded commands, reads and edits`, async function () {
		const file = path.join(corpusDir(), `${SESSION}.json`);
		if (!fs.existsSync(file)) this.skip();
		const recorded = conversationFromSessionJson(JSON.parse(fs.readFileSync(file, 'utf8')));
		// The expectation reads the commands as the extension does, with the bash parser; without it
		// every line counts as run (a `sed -i` as a command, not an edit). The parser is loaded per
		// module copy, so this test loads its own instead of relying on an earlier test's.
		assert.ok(await loadBashParser(), 'the bash parser loads in the test too');
		let expected = emptyLedger();
		for (const turn of recorded.turns) for (const round of turn.rounds) expected = extendLedger(expected, round);
		assert.ok(expected.commands.length > 0 && expected.edits.length > 0, 'the recorded session runs commands and edits files');

		const scripted = await scriptedModel();
		await scripted.setMaxInputTokens(16_000);
		scripted.startReplay(file);
		for (const turn of loadReplayScript(file).turns) await sendChat(`@longhaul ${turn.user}`, { timeoutMs: 3 * 60_000 });
		assert.ok(scripted.replay?.finished, 'every recorded round is played');

		const context = await sendChat('@longhaul /context');
		const facts = /\*\*Done-ledger:\*\* \d+ requests?, (\d+) files? read, (\d+) files? created or edited, (\d+) commands? run, (\d+) tool calls? in all/.exec(
			context.markdown,
		);
		assert.ok(facts, context.markdown.slice(-1500));
		assert.deepStrictEqual(
			facts.slice(1).map(Number),
			[expected.reads.length, expected.edits.length, expected.commands.length, expected.steps],
			'the same reads, edits, commands and calls as the recorded session',
		);
		assert.doesNotMatch(context.markdown, /replay_tool/, 'no trace of the replay tool in /context');
	});
});
