// Issue 14, the day-long chat in the real VS Code: three recorded corpus sessions replayed as one
// chat (their turns one after the other, the fixture's replay mode) through the real @longhaul at a
// 16k window, in half-context mode (the e2e test plays the same chat in legacy mode, the default,
// through the Chat view: test/e2e/dayLongReload.e2e.mjs). After every compaction, the prompt the
// model receives must read
// `[user0] [summary0] [user1] [summary1] … [userN] [live rounds]` (docs/decisions.md decision 3): each summary block
// right after its own turn's user message (or that message shortened, with its note), blocks in turn
// order, one per turn, and no turn's block gone once it was there. The number of summarizations must
// be what the Node replay (bench --concat) predicts for the same chat and window.
//
// Needs the corpus ($LONGHAUL_CORPUS, else ../shared/corpus); skipped with a message without it.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import Mocha = require('mocha');
import type { HandledRequest } from '../../src/agent/api';
import { CONDENSED_NOTE } from '../../src/common/conversation/summaryBlocks';
import type { ReplayReport } from '../fixtures/scripted-model/src/replayMode';
import type { ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { loadReplayScripts } from '../fixtures/scripted-model/src/replayScript';
import { resetSession, scriptedModel, sendChat, withSetting } from './helpers';
import { assertWithinPredictedRange, benchEquivalent, predictedRange, predictReplay } from './replayExpectation';
import { isSummarizationRequest } from './sessionScript';
import { summaryLength } from '../../src/common/summaries/summaryLength';

/** Three sessions, four turns, 127 recorded rounds; at 16k they compact across turns and condense older blocks. */
const SESSIONS = ['msa-sqlfluff-2419-dsreasoner', 'oh-ponyc-4588', 'oh-ponyc-4595'];
const WINDOW = 16000;

function corpusDir(): string {
	return process.env.LONGHAUL_CORPUS ?? path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'corpus');
}

function say(line: string): void {
	(Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void }).consoleLog(line);
}

const messageText = (m: ScriptedRequest['messages'][number]) => m.parts.flatMap(p => (p.kind === 'text' ? [p.value] : [])).join('');

/**
 * The blocks of one prompt and what is wrong with their order. A block's turn is the turn of the
 * stand-in summary it is (or, condensed, begins like); the fixture knows which turn each belongs to.
 */
function checkBlockOrder(request: ScriptedRequest, report: ReplayReport): { turns: number[]; problems: string[] } {
	const texts = request.messages.map(messageText);
	const problems: string[] = [];
	const turns: number[] = [];
	texts.forEach((text, i) => {
		if (!text.startsWith('<conversation-summary>\n')) return;
		let body = text.slice('<conversation-summary>\n'.length, text.length - '\n</conversation-summary>'.length);
		const condensed = body.startsWith(CONDENSED_NOTE + '\n');
		if (condensed) body = body.slice(CONDENSED_NOTE.length + 1);
		const head = body.replace(/…$/, '');
		const candidates: { text: string; turn?: number }[] = [
			...report.summaries.map((s, k) => ({ text: s, turn: report.summaryTurns[k] })),
			...report.condensed,
		].reverse();
		const turn = candidates.find(c => (condensed ? c.text.startsWith(head) : c.text === body))?.turn;
		if (turn === undefined || turn < 0) {
			problems.push(`message ${i}: a summary block the fixture did not write (${JSON.stringify(body.slice(0, 60))})`);
			return;
		}
		const before = request.messages[i - 1];
		const user = report.userTexts[turn];
		const isUser =
			before?.role === 'user' && (texts[i - 1] === user || (texts[i - 1].includes('[Request shortened') && user.startsWith(texts[i - 1].split('\n')[0])));
		if (!isUser) problems.push(`message ${i}: the block of turn ${turn} is not right after that turn's user message`);
		if (turns.length && turns[turns.length - 1] >= turn) {
			problems.push(`message ${i}: the block of turn ${turn} comes after the block of turn ${turns[turns.length - 1]}`);
		}
		turns.push(turn);
	});
	return { turns, problems };
}

describe('The day-long chat: corpus sessions as one chat', function () {
	const files = SESSIONS.map(name => path.join(corpusDir(), `${name}.json`));
	beforeEach(resetSession);
	after(resetSession);

	for (const mode of ['half-context'] as const) {
		it(`${mode}: ${SESSIONS.length} sessions as one chat at 16k; after every compaction each block is right after its own turn's request, in order, none lost`, async function () {
			if (!files.every(f => fs.existsSync(f))) {
				say(`      skipped: the corpus is not at ${corpusDir()} (set LONGHAUL_CORPUS)`);
				this.skip();
			}
			this.timeout(15 * 60_000);
			const script = loadReplayScripts(files);
			const scripted = await scriptedModel();
			await scripted.setMaxInputTokens(WINDOW);
			scripted.startReplay(files, { summaryTarget: seen => summaryLength(benchEquivalent(seen).summaryTokens).targetTokens });
			const handled: HandledRequest[] = [];
			await withSetting('backgroundSummarizationThreshold', 0, () =>
				withSetting('halfContextSummarization', mode === 'half-context', async () => {
					for (const turn of script.turns) handled.push(await sendChat(`@longhaul ${turn.user}`, { timeoutMs: 8 * 60_000 }));
				}),
			);
			const report = scripted.replay;
			assert.ok(report?.seen, 'the fixture should report the replay');

			// The prompts right after a compaction: the first agent request after summarizer (or condense) requests.
			const checked: { turns: number[]; problems: string[] }[] = [];
			let compacted = false;
			for (const request of scripted.requests) {
				const text = request.messages.map(messageText).join('\n');
				if (isSummarizationRequest(request) || text.includes('<summary-block-to-condense>')) {
					compacted = true;
					continue;
				}
				if (compacted) checked.push(checkBlockOrder(request, report));
				compacted = false;
			}
			const summarizations = handled.reduce((n, h) => n + ((h.metadata as { summarizations?: number })?.summarizations ?? 0), 0);
			const prediction = await predictReplay(script, report.userTexts, report.seen, mode);
			const predicted = prediction.result.metrics;
			const ratios = handled.map(h => (h.metadata as { tokenRatio?: { start: number; end: number } })?.tokenRatio);
			say(
				`      budget as seen: ${prediction.equivalent.toolTokens} tool tokens, instructions ${prediction.equivalent.instructionsDelta >= 0 ? '+' : ''}${prediction.equivalent.instructionsDelta} over the benchmark's, Node replay window ${prediction.equivalent.benchWindow}; token ratio by turn (start-end): ${ratios.map(r => (r ? `${r.start}-${r.end}` : '?')).join(', ')}`,
			);
			const condenseRequests = report.events.filter(e => e.kind === 'condense').length;
			const maxBlocks = Math.max(0, ...checked.map(c => c.turns.length));
			say(
				`      ${mode}: ${checked.length} compactions checked, up to ${maxBlocks} blocks in a prompt (turns ${checked.at(-1)?.turns.join(',')}), ${report.summaries.length} summarizer requests, ${condenseRequests} condense requests, summarizations ${summarizations} (Node replay predicts ${predicted.summarizations}, its orderViolations ${predicted.orderViolations}, summariesLost ${predicted.summariesLost})`,
			);

			assert.deepStrictEqual(
				handled.map(h => h.errorMessage),
				script.turns.map(() => undefined),
				'no turn may fail',
			);
			assert.deepStrictEqual(report.problems, [], 'the replay should follow the recording');
			assert.ok(report.finished, 'every turn played to its end');
			assert.ok(checked.length >= 3, `expected several compactions, got ${checked.length}`);
			assert.deepStrictEqual(
				checked.flatMap(c => c.problems),
				[],
				'every block right after its own turn, in order',
			);
			// Never fewer turns with a block than before: earlier blocks are never dropped.
			for (let i = 1; i < checked.length; i++) {
				for (const turn of checked[i - 1].turns) assert.ok(checked[i].turns.includes(turn), `compaction ${i + 1}: the block of turn ${turn} vanished`);
			}
			assert.ok(maxBlocks >= 3, `the chat should end with blocks of several turns, got ${maxBlocks}`);
			// The count moves by several summarizations within a few tokens of window (predictedRange), so the
			// participant is held to the Node replay's range around the equivalent window, not to one window's count.
			const range = await predictedRange(script, report.userTexts, prediction, mode);
			say(`      Node replay around that window: ${range.byWindow}`);
			assertWithinPredictedRange(summarizations, range, 'summarizations, same chat and window');
			assert.strictEqual(predicted.orderViolations, 0);
			assert.strictEqual(predicted.summariesLost, 0);
		});
	}
});
