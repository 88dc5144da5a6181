// Issue 7 in the real extension host: the done-ledger in the agent's prompts and in /context,
// cheap-first compaction (masking old tool results before summarizing), summaries prepared in the
// background, and the loop breaker. Scripted model, 16k window (sessionScript.ts).
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ScriptedReply, ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { resetSession, say, scriptedModel, sendChat, setHandler, smallWindowSessions, suiteSettings, withSetting } from './helpers';
import { waitFor } from './faultScript';
import { DATA_FILE, SMALL_WINDOW, allText, createSessionScript, isSummarizationRequest, pairingProblems, summaryNumbersIn } from './sessionScript';

interface Metadata {
	summarizations: number;
	toolCalls: number;
	loopBreaker?: string;
	droppedRounds: number;
	masking: { maskings: number; maskedResults: number; freedTokens: number };
	background: { started: number; readyAtOverflow: number; awaitedAtOverflow: number; used: number; discarded: number; carriedIn: number; handedOver: number };
	longhaul: { summaryBlocks: { roundId: string; text: string }[]; doneLedger?: { requests: string[]; reads: { path: string; count: number }[] } };
}

const meta = (handled: { metadata: unknown }) => handled.metadata as unknown as Metadata;
const LEDGER_OPEN = '<done-ledger>';
const MASKED = /^\[output of longhaul_readFile [^\n]* elided \([\d,]+ tokens\)/;

function toolResults(request: ScriptedRequest): string[] {
	return request.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'toolResult' ? [p.text] : [])));
}

describe('Continuity: what was done stays in view after summaries, in the real VS Code', function () {
	this.timeout(120_000);
	smallWindowSessions();

	describe('done-ledger and cheap-first compaction (summaries made at the overflow)', () => {
		suiteSettings({ backgroundSummarizationThreshold: 0, halfContextSummarization: true });

		it('after a summary every prompt shows the done-ledger with the request and the file read; it is stored, survives the next request, and /context shows it', async () => {
			const script = createSessionScript({ toolCalls: n => (n === 1 ? 30 : 2), dataFile: DATA_FILE });
			await setHandler(script.handler);
			const first = await sendChat('@longhaul LEDGER-TASK-ONE: read the data file', { timeoutMs: 60_000 });
			assert.strictEqual(first.errorMessage, undefined);
			assert.ok(meta(first).summarizations >= 1, 'the session should summarize');
			let seenSummary = false;
			for (const request of script.agentRequests) {
				const text = allText(request);
				if (summaryNumbersIn(text).length) seenSummary = true;
				if (!seenSummary) {
					assert.ok(!text.includes(LEDGER_OPEN), 'no ledger while every round is verbatim');
					continue;
				}
				const ledger = text.slice(text.indexOf(LEDGER_OPEN), text.indexOf('</done-ledger>'));
				assert.ok(text.includes(LEDGER_OPEN), 'every prompt after a summary shows the ledger');
				assert.ok(text.indexOf('<conversation-summary>') < text.indexOf(LEDGER_OPEN), 'the ledger comes right after the summary');
				assert.match(ledger, /LEDGER-TASK-ONE: read the data file/);
				assert.match(ledger, new RegExp(DATA_FILE.replace('.', '\\.')));
			}
			assert.ok(seenSummary);
			const stored = meta(first).longhaul.doneLedger;
			assert.ok(stored, 'the ledger is stored in the turn metadata');
			assert.deepStrictEqual(stored.requests, ['LEDGER-TASK-ONE: read the data file']);
			assert.ok(
				stored.reads.some(r => r.path === DATA_FILE && r.count >= 20),
				`the reads are recorded: ${JSON.stringify(stored.reads)}`,
			);

			const before = script.agentRequests.length;
			const second = await sendChat('@longhaul LEDGER-TASK-TWO: two more reads', { timeoutMs: 60_000 });
			assert.strictEqual(second.errorMessage, undefined);
			const next = allText(script.agentRequests[before]);
			const ledger = next.slice(next.indexOf(LEDGER_OPEN));
			assert.match(ledger, /LEDGER-TASK-ONE/, 'the stored ledger comes back in the next request');
			assert.match(ledger, /LEDGER-TASK-TWO/);
			assert.deepStrictEqual(meta(second).longhaul.doneLedger?.requests, ['LEDGER-TASK-ONE: read the data file', 'LEDGER-TASK-TWO: two more reads']);

			const context = await sendChat('@longhaul /context');
			assert.match(context.markdown, /\| Done-ledger \| [1-9][\d,]* \|/);
			assert.match(context.markdown, /\*\*Done-ledger:\*\* 2 requests, 1 file read, 0 files created or edited/);
			assert.match(context.markdown, /LEDGER-TASK-TWO/);
		});

		it('with longhaul.doneLedger off no prompt shows a ledger and /context says it is off', async () => {
			const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE });
			await setHandler(script.handler);
			await withSetting('doneLedger', false, async () => {
				const handled = await sendChat('@longhaul read the data file without a ledger', { timeoutMs: 60_000 });
				assert.ok(meta(handled).summarizations >= 1);
				for (const request of script.agentRequests) assert.ok(!allText(request).includes(LEDGER_OPEN));
				const context = await sendChat('@longhaul /context');
				assert.match(context.markdown, /not shown to the model \(`longhaul.doneLedger` is off\)/);
			});
		});

		it('with longhaul.maskOldToolResults on, old results are masked first: fewer summarizer requests, every call still paired', async () => {
			const run = async (mask: boolean) => {
				await resetSession();
				await (await scriptedModel()).setMaxInputTokens(SMALL_WINDOW);
				const script = createSessionScript({ toolCalls: 40, dataFile: DATA_FILE });
				await setHandler(script.handler);
				const handled = await withSetting('maskOldToolResults', mask, () =>
					sendChat('@longhaul read the data file, masking ' + (mask ? 'on' : 'off'), { timeoutMs: 90_000 }),
				);
				assert.strictEqual(handled.errorMessage, undefined);
				assert.strictEqual(meta(handled).toolCalls, 40);
				for (const request of script.agentRequests) assert.deepStrictEqual(pairingProblems(request), []);
				return { handled, script };
			};
			const off = await run(false);
			const on = await run(true);
			const masked = on.script.agentRequests.flatMap(toolResults).filter(t => MASKED.test(t));
			say(
				`      masking off: ${off.script.summarizerRequests.length} summarizer requests; on: ${on.script.summarizerRequests.length} summarizer requests, ${meta(on.handled).masking.maskedResults} results masked in ${meta(on.handled).masking.maskings} steps, ${meta(on.handled).masking.freedTokens} tokens freed`,
			);
			assert.strictEqual(meta(off.handled).masking.maskedResults, 0);
			assert.ok(meta(on.handled).masking.maskedResults > 0, 'results should be masked');
			assert.ok(masked.length > 0, 'a masked placeholder should reach the model');
			assert.match(on.handled.markdown, /Replaced \d+ older tool results? with short placeholders/);
			assert.ok(
				on.script.summarizerRequests.length < off.script.summarizerRequests.length,
				`masking should save summarizer requests: ${on.script.summarizerRequests.length} vs ${off.script.summarizerRequests.length}`,
			);
		});
	});

	describe('summaries prepared in the background (default threshold 80%)', () => {
		suiteSettings({ halfContextSummarization: true });

		it('the next summary is prepared while the agent works and used at the overflow; summaries stay in order, nothing is lost', async () => {
			const script = createSessionScript({ toolCalls: 50, dataFile: DATA_FILE });
			await setHandler(script.handler);
			const handled = await sendChat('@longhaul BACKGROUND-TASK read the data file', { timeoutMs: 90_000 });
			const m = meta(handled);
			say(`      background: ${JSON.stringify(m.background)}, ${m.summarizations} summaries, ${script.summarizerRequests.length} summarizer requests`);
			assert.strictEqual(handled.errorMessage, undefined);
			assert.strictEqual(m.toolCalls, 50);
			assert.ok(m.background.started >= 1, 'a summary should be prepared in the background');
			assert.ok(m.background.used >= 1, 'a background summary should be used');
			assert.strictEqual(
				m.background.used + m.background.discarded + m.background.handedOver,
				m.background.started + m.background.carriedIn,
				'each background summary is used, discarded or handed on to the next request',
			);
			assert.match(handled.markdown, /Prepared in the background\./);
			assert.strictEqual(m.longhaul.summaryBlocks.length, m.summarizations);
			// Each agent prompt shows one summary, the newest attached so far, and never an older one after a newer.
			let newest = 0;
			for (const request of script.agentRequests) {
				const seen = summaryNumbersIn(allText(request));
				assert.ok(seen.length <= 1, `one summary block at most: ${seen}`);
				if (seen.length) {
					assert.ok(seen[0] >= newest, `summaries never go back: ${seen[0]} after ${newest}`);
					newest = seen[0];
				}
				assert.ok(allText(request).includes('BACKGROUND-TASK read the data file'));
				assert.deepStrictEqual(pairingProblems(request), []);
			}
		});

		it('cancelling the request while a background summary is pending stops it: the request ends promptly, nothing is stored, the next request works', async () => {
			const script = createSessionScript({ toolCalls: n => (n === 1 ? 60 : 2), dataFile: DATA_FILE, summaryDelayMs: n => (n === 1 ? 30_000 : undefined) });
			await setHandler(script.handler);
			const started = Date.now();
			const pending = sendChat('@longhaul BACKGROUND-CANCEL read the data file', { timeoutMs: 60_000 });
			await waitFor(() => script.summarizerRequests.length > 0, 40_000, 'no background summarization started');
			await vscode.commands.executeCommand('workbench.action.chat.cancel');
			const handled = await pending;
			const m = meta(handled);
			const elapsed = Date.now() - started;
			say(`      cancelled after ${elapsed} ms: background ${JSON.stringify(m.background)}, ${m.toolCalls} tool calls kept`);
			assert.ok(elapsed < 25_000, `the request should end soon after the cancellation, not after the 30 s summary (${elapsed} ms)`);
			assert.strictEqual(handled.errorMessage, undefined, 'a cancellation is not an error');
			assert.strictEqual(m.background.started, 1, 'one background summary at a time');
			assert.strictEqual(m.background.used, 0);
			// Jobs an earlier test's chat handed on are carried in and dropped: this is another chat.
			assert.strictEqual(m.background.discarded - m.background.carriedIn, 1, 'the pending summary is discarded');
			assert.strictEqual(m.background.handedOver, 0, 'a cancelled request hands nothing on');
			assert.deepStrictEqual(m.longhaul.summaryBlocks, [], 'no summary is stored');
			assert.strictEqual(script.summarizerRequests.length, 1, 'no second summarizer request');
			const next = await sendChat('@longhaul BACKGROUND-CANCEL-NEXT two more reads', { timeoutMs: 60_000 });
			assert.strictEqual(next.errorMessage, undefined);
			assert.match(next.markdown, /Finished after 2 tool calls\./);
			const prompt = allText(script.agentRequests[script.agentRequests.length - 1]);
			assert.ok(
				prompt.includes('BACKGROUND-CANCEL read the data file') && prompt.includes('BACKGROUND-CANCEL-NEXT two more reads'),
				'both requests stay in the prompt',
			);
		});

		it('with the threshold at 0 nothing is prepared in the background', async () => {
			const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE });
			await setHandler(script.handler);
			const handled = await withSetting('backgroundSummarizationThreshold', 0, () => sendChat('@longhaul read without background', { timeoutMs: 60_000 }));
			assert.ok(meta(handled).summarizations >= 1);
			assert.strictEqual(meta(handled).background.started, 0);
		});
	});

	describe('loop breaker', () => {
		suiteSettings({ backgroundSummarizationThreshold: 0, halfContextSummarization: true });

		it('the same call with the same result three times right after a summary stops model summaries for the request; the request still completes', async () => {
			const script = createSessionScript({ toolCalls: 200, dataFile: DATA_FILE });
			let summaries = 0;
			let repeats = 0;
			let afterBreak = 0;
			let calls = 0;
			await setHandler(async (request): Promise<ScriptedReply> => {
				if (isSummarizationRequest(request)) {
					summaries++;
					return script.handler(request);
				}
				calls++;
				if (summaries > 0 && repeats < 3) {
					repeats++;
					return {
						text: 'Reading it again.',
						toolCalls: [{ callId: `repeat-${repeats}`, name: 'longhaul_readFile', input: { path: DATA_FILE, startLine: 1, endLine: 25 } }],
					};
				}
				if (repeats === 3) afterBreak++;
				if (afterBreak > 30) return { text: 'LOOP-BREAKER-DONE' };
				const reply = await script.handler(request);
				return { ...reply, toolCalls: reply.toolCalls?.map(c => ({ ...c, callId: `c-${calls}` })) };
			});
			const handled = await sendChat('@longhaul LOOP-TASK read the data file', { timeoutMs: 90_000 });
			const m = meta(handled);
			say(`      loop breaker: ${m.loopBreaker}; summaries ${m.summarizations}, dropped rounds ${m.droppedRounds}`);
			assert.strictEqual(handled.errorMessage, undefined, `the request should complete: ${handled.errorMessage}`);
			assert.ok(handled.markdown.includes('LOOP-BREAKER-DONE'));
			assert.match(m.loopBreaker ?? '', /same arguments and got the same result 3 times/);
			assert.match(handled.markdown, /Loop breaker: /);
			assert.strictEqual(summaries, 1, 'no summarizer request after the loop breaker');
			assert.strictEqual(m.summarizations, 1);
			assert.match(handled.markdown, /Removed \d+ old tool results?/, 'truncation takes over when the window fills again');
			for (const request of script.agentRequests) assert.deepStrictEqual(pairingProblems(request), []);
		});
	});
});
