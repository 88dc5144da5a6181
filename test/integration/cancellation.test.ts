// Cancelling a chat request while Longhaul waits for a summary: the request ends promptly, no
// summary is stored, and the next request works with the whole conversation intact.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { sendChat, setHandler, smallWindowSessions, suiteSettings, withSetting } from './helpers';
import { waitFor } from './faultScript';
import { DATA_FILE, allText, createSessionScript, pairingProblems, summaryNumbersIn, toolCallIds } from './sessionScript';

interface Metadata {
	summarizations: number;
	toolCalls: number;
	longhaul: { rounds: { id: string; toolCalls: { id: string; result?: string }[] }[]; summaryBlocks: unknown[]; cancelled?: boolean };
}

const SUMMARY_DELAY_MS = 30_000;

describe('cancellation during a summarization', function () {
	this.timeout(60_000);
	// These tests time and count summarizer requests of summaries made at the overflow; summaries
	// prepared in the background are tested in continuity.test.ts.
	suiteSettings({ backgroundSummarizationThreshold: 0 });
	smallWindowSessions();

	for (const mode of ['legacy', 'half-context'] as const) {
		it(`cancelling while the summary is pending (${mode}) loses nothing and the next request works`, () => cancelDuringSummary(mode, false));
	}

	// Regression test: a cancelled summarizer stream ends quietly with no text; it used to count as
	// an 'empty' Full attempt and be retried in Simple mode, whose summary was stored.
	it('a cancelled summarization is not retried, counted or stored', () => cancelDuringSummary('legacy', true));

	async function cancelDuringSummary(mode: 'legacy' | 'half-context', strict: boolean): Promise<void> {
		{
			// Request 1: three calls, no summarization. Request 2: many calls; its first summary hangs.
			// Request 3: two calls, summaries answered at once.
			const script = createSessionScript({
				toolCalls: n => (n === 1 ? 3 : n === 2 ? 40 : 2),
				dataFile: DATA_FILE,
				summaryDelayMs: n => (n === 1 ? SUMMARY_DELAY_MS : undefined),
			});
			await setHandler(script.handler);
			await withSetting('halfContextSummarization', mode === 'half-context', async () => {
				const first = await sendChat('@longhaul TASK-ONE: read a little');
				assert.strictEqual((first.metadata as unknown as Metadata).summarizations, 0);

				const started = Date.now();
				const pending = sendChat('@longhaul TASK-TWO: read a lot', { timeoutMs: 45_000 });
				await waitFor(() => script.summarizerRequests.length > 0, 40_000, 'no summarization started during request 2');
				const agentsAtCancel = script.agentRequests.length;
				await vscode.commands.executeCommand('workbench.action.chat.cancel');
				const second = await pending;
				const elapsed = Date.now() - started;
				const meta = second.metadata as unknown as Metadata;

				assert.ok(elapsed < SUMMARY_DELAY_MS - 5_000, `the request should end soon after the cancellation, not after the summary delay (${elapsed} ms)`);
				assert.strictEqual(second.errorMessage, undefined, 'a cancellation is not an error');
				assert.strictEqual(meta.longhaul.cancelled, true, 'the turn is recorded as cancelled');
				assert.strictEqual(script.agentRequests.length, agentsAtCancel, 'no agent request after the cancellation');
				if (strict) {
					assert.strictEqual(script.summarizerRequests.length, 1, 'no summarizer request after the cancellation (no Simple retry)');
					assert.strictEqual(meta.summarizations, 0, 'the cancelled summarization is not counted');
					assert.deepStrictEqual(meta.longhaul.summaryBlocks, [], 'no summary is stored for a cancelled summarization');
					assert.doesNotMatch(second.markdown, /Summarized \d+ older/, 'no summarization notice after the cancellation');
				}
				const secondRounds = meta.longhaul.rounds;
				assert.ok(secondRounds.length >= 3, `request 2's rounds before the cancellation are stored (${secondRounds.length})`);
				const secondIds = secondRounds.flatMap(r => r.toolCalls.map(c => c.id));
				assert.strictEqual(secondIds.length, meta.toolCalls);
				for (const round of secondRounds) for (const call of round.toolCalls) assert.ok(call.result, `call ${call.id} keeps its result`);

				// Request 3 works and sees everything: both user requests verbatim, request 2's calls
				// either verbatim in the prompt or absorbed by a summary made now.
				const log3 = script.log.length;
				const third = await sendChat('@longhaul TASK-THREE: finish', { timeoutMs: 45_000 });
				assert.strictEqual(third.errorMessage, undefined);
				assert.ok(third.markdown.includes('Finished after 2 tool calls.'), `request 3 should finish: ${third.markdown.slice(-200)}`);
				const entries = script.log.slice(log3);
				const firstAgent = entries.find(e => e.kind === 'agent')!.request;
				const text = allText(firstAgent);
				for (const user of ['TASK-ONE: read a little', 'TASK-TWO: read a lot', 'TASK-THREE: finish']) {
					assert.ok(text.includes(user), `request 3's prompt should hold ${JSON.stringify(user)}`);
				}
				assert.deepStrictEqual(pairingProblems(firstAgent), [], 'the cancelled turn leaves no dangling call');
				// What the summary blocks shown to request 3 stand for (one block per request since summaries
				// are per turn): their transcripts and, through each <previous-summary>, the transcripts of
				// the summaries they absorbed.
				const chain: string[] = [];
				const toFollow = [...summaryNumbersIn(text)];
				const followed = new Set<number>();
				for (let n = toFollow.shift(); n !== undefined; n = toFollow.shift()) {
					if (followed.has(n)) continue;
					followed.add(n);
					const request = script.log.find(e => e.kind === 'summarizer' && e.summaryNumber === n)!.request;
					const own = allText(request);
					chain.push(own);
					toFollow.push(...summaryNumbersIn(own));
				}
				const absorbed = chain.join('\n');
				const verbatim = new Set(toolCallIds(firstAgent));
				const absorbedCalls = (absorbed.match(/<tool-call name="/g) ?? []).length;
				assert.ok(
					absorbedCalls + verbatim.size >= 3 + secondIds.length,
					`every earlier call is either verbatim (${verbatim.size}) or absorbed (${absorbedCalls}); there were ${3 + secondIds.length}`,
				);
				for (const id of secondIds) {
					// The transcript shows calls by name and arguments, not ids; ids are call-2-<n>, reading
					// lines that identify the call, so look for its arguments instead.
					const n = Number(id.split('-')[2]);
					assert.ok(
						verbatim.has(id) ||
							absorbed.includes(`"startLine":${(((n - 1) * 25) % 200) + 1},`) ||
							(n % 10 === 0 && absorbed.includes('longhaul_listDirectory')),
						`request 2's call ${id} is neither in request 3's prompt nor in a summarizer transcript`,
					);
				}
			});
		}
	}
});
