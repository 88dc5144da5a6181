// What a user sees of compaction (issue 40): the meter and /context show one figure for the same
// moment, and say in words when the next prompt is over the window; rounds set aside while their
// summary is written are said in the chat at that step, listed as such in /context and in the
// meter's tooltip, and can be opened; each response that compacted ends with one line naming the
// mode; the summarizer-model fallback is said once per chat; a refused summary edit is marked where
// the structure broke.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { HandledRequest } from '../../src/agent/api';
import { longhaul, newChat, scriptedModel, sendChat, setHandler, smallWindowSessions, withSetting } from './helpers';
import { DATA_FILE, createSessionScript } from './sessionScript';

const ANSWER = 'DONE-READING';
/** The share the meter shows (`$(layers) 52% · …`). */
const meterShare = (text: string) => Number(/(\d+)%/.exec(text)?.[1]);
/** The share /context gives in its first line. */
const contextShare = (markdown: string) => Number(/the next prompt takes \*\*(\d+)%\*\* of it/.exec(markdown)?.[1]);
/** What follows the final answer: the part of the response VS Code never folds. */
const afterAnswer = (handled: HandledRequest) => handled.markdown.slice(handled.markdown.lastIndexOf(ANSWER));

async function readSession(options: { summaryDelayMs?: number; toolCalls?: (request: number) => number } = {}): Promise<HandledRequest> {
	const script = createSessionScript({
		toolCalls: options.toolCalls ?? ((n: number) => (n === 1 ? 30 : 1)),
		dataFile: DATA_FILE,
		finalText: ANSWER,
		...(options.summaryDelayMs ? { summaryDelayMs: options.summaryDelayMs } : {}),
	});
	await setHandler(script.handler);
	return sendChat('@longhaul read the data file', { timeoutMs: 120_000 });
}

describe('What a user sees of compaction', function () {
	this.timeout(240_000);
	smallWindowSessions();

	it('rounds set aside while a slow summary is written: one line in the chat at that step, listed as set aside in /context and the meter, opened read-only', async () =>
		withSetting('halfContextSummarization', true, async () => {
			const { api } = await longhaul();
			// The background summary takes 40 s; the agent's rounds come at once, so the bridge sets rounds aside.
			const session = await readSession({ summaryDelayMs: 40_000 });
			assert.strictEqual(session.errorMessage, undefined);
			const notice = /\*(\d+) older rounds? set aside while their summary is written; the agent did not wait\.\*/.exec(session.markdown);
			assert.ok(notice, `the chat says rounds were set aside: ${session.markdown.slice(0, 1500)}`);
			assert.doesNotMatch(session.markdown, /bridge/i, 'no internal name in the chat');
			const open = session.buttons.find(b => b.title === 'Open what the agent sees');
			assert.ok(open, `a button opens what the agent sees: ${session.buttons.map(b => b.title).join(', ')}`);

			// The end of the response: the mode, and the set-aside steps.
			assert.match(
				afterAnswer(session),
				/\*\*Half-context mode: \d+ summar(y|ies) made, .*up to \d+ rounds? set aside while their summary was written \(\d+ times?\), (no wait for a summary|waited for a summary .*)\.\*\*/,
				afterAnswer(session),
			);

			// The meter and /context at the same moment: the same share, the same set-aside rounds.
			const meter = api.contextMeter;
			const held = /· (\d+) rounds? set aside/.exec(meter.text);
			assert.ok(held, `the meter counts the rounds set aside: ${meter.text}`);
			assert.match(meter.tooltip, /\| Set aside while their summary is written \(\d+ rounds?\) \| [\d,]+ \|/);
			const context = await sendChat('@longhaul /context');
			assert.strictEqual(
				contextShare(context.markdown),
				meterShare(meter.text),
				`/context and the meter show one share: ${meter.text} | ${context.markdown.slice(0, 200)}`,
			);
			assert.match(context.markdown, new RegExp(`\\| Set aside while their summary is written \\(${held[1]} rounds?\\) \\|`), context.markdown);
			assert.match(context.markdown, /\*\*Set aside:\*\* rounds whose summary is still being written\. The agent did not wait/);
			assert.match(context.markdown, /set aside while their summary is written \(not a summary yet\)/);
			assert.strictEqual(meterShare(api.contextMeter.text), meterShare(meter.text), `the meter does not jump after /context: ${api.contextMeter.text}`);

			// What the agent saw in place of those rounds, read-only.
			await vscode.commands.executeCommand(open.command, ...(open.arguments ?? []));
			const editor = vscode.window.activeTextEditor;
			assert.ok(editor && editor.document.uri.scheme === 'longhaul-summary', 'the button opens a document');
			assert.match(editor.document.getText(), /the agent sees this text in place of \d+ older rounds?/);
			assert.match(editor.document.getText(), /older rounds? (is|are) set aside while their summary is written\. What they did/);
			const stat = await vscode.workspace.fs.stat(editor.document.uri);
			assert.strictEqual(stat.permissions, vscode.FilePermission.Readonly, 'it opens read-only');
			await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
		}));

	it('each response that compacted ends with one line naming the mode; one that did not, without it', async () => {
		await (await scriptedModel()).setMaxInputTokens(128_000);
		const small = await sendChat('@longhaul hello');
		assert.doesNotMatch(small.markdown, /(Legacy|Half-context) mode:/, 'a response that compacted nothing has no such line');
		await newChat();
		await (await scriptedModel()).setMaxInputTokens(16_000);
		const legacy = await withSetting('halfContextSummarization', false, () => readSession());
		assert.match(
			afterAnswer(legacy),
			/\*\*Legacy mode: \d+ summar(y|ies) made, \d+(–\d+)? recent rounds? kept verbatim, (no wait for a summary|waited for a summary \d+ times? \(<?[\d.]+ s in all\))\.\*\*/,
			afterAnswer(legacy),
		);
		await newChat();
		await (await scriptedModel()).setMaxInputTokens(16_000);
		const half = await withSetting('halfContextSummarization', true, () => withSetting('backgroundSummarizationThreshold', 0, () => readSession()));
		assert.match(afterAnswer(half), /\*\*Half-context mode: \d+ summar(y|ies) made, \d+(–\d+)? recent rounds? kept verbatim/, afterAnswer(half));
	});

	it('over the window, /context and the meter say in words that the next request summarizes first, with one share', async () => {
		const { api } = await longhaul();
		await readSession();
		// The same chat on a much smaller window: its next prompt no longer fits (at 8,000 tokens it
		// takes about 82 % since summaries take 7 % of the room, decision 49).
		await (await scriptedModel()).setMaxInputTokens(5_000);
		const context = await sendChat('@longhaul /context');
		const share = contextShare(context.markdown);
		assert.ok(share > 100, `over the window: ${context.markdown.slice(0, 200)}`);
		assert.match(context.markdown, /That is more than the window holds: the next request first summarizes older rounds/);
		assert.strictEqual(meterShare(api.contextMeter.text), share, `the meter shows /context's share: ${api.contextMeter.text}`);
		assert.match(api.contextMeter.text, /% · summarizes next · /);
		assert.match(api.contextMeter.tooltip, /more than the window holds/);
	});

	it('the summarizer-model fallback is said once per chat, in a response that summarized', async () =>
		withSetting('summarizerModel', { vendor: 'longhaul-scripted', id: 'no-such-model' }, async () => {
			const notice = 'matches no model available now';
			// Requests 1 and 3 read the file (and summarize), request 2 makes one call.
			const first = await readSession({ toolCalls: n => (n === 2 ? 1 : 30) });
			assert.strictEqual(first.markdown.split(notice).length - 1, 1, `once in the first response that summarized: ${first.markdown.slice(-600)}`);
			assert.ok(afterAnswer(first).includes(notice), 'after the answer, where it is in view');
			await (await scriptedModel()).setMaxInputTokens(128_000);
			const small = await sendChat('@longhaul thanks');
			assert.strictEqual((small.metadata as { summarizations: number }).summarizations, 0);
			assert.ok(!small.markdown.includes(notice), 'not in a response that summarized nothing');
			await (await scriptedModel()).setMaxInputTokens(16_000);
			const again = await sendChat('@longhaul read the data file again', { timeoutMs: 120_000 });
			assert.ok((again.metadata as { summarizations: number }).summarizations >= 1, 'the second request summarizes too');
			assert.ok(!again.markdown.includes(notice), 'not again in the same chat');
		}));

	it('a summary edit that removes the separator line is marked on the line where it was, not on line 1', async () => {
		const session = await readSession();
		const open = session.buttons.filter(b => b.command === 'longhaul.openSummary').at(-1);
		assert.ok(open);
		await vscode.commands.executeCommand(open.command, ...(open.arguments ?? []));
		const editor = vscode.window.activeTextEditor;
		assert.ok(editor && editor.document.uri.scheme === 'longhaul-summary');
		const separator = editor.document.getText().split('\n').indexOf('---');
		assert.ok(separator > 0);
		assert.ok(await editor.edit(b => b.delete(editor.document.lineAt(separator).rangeIncludingLineBreak)));
		let diagnostics: vscode.Diagnostic[] = [];
		for (let waited = 0; !diagnostics.length && waited < 5_000; waited += 100) {
			await new Promise(r => setTimeout(r, 100));
			diagnostics = vscode.languages.getDiagnostics(editor.document.uri);
		}
		assert.strictEqual(diagnostics.length, 1, 'one error');
		assert.match(diagnostics[0].message, /keep the line "---"/);
		assert.strictEqual(
			diagnostics[0].range.start.line,
			separator,
			`the marker is where the separator was (line ${separator + 1}), not line ${diagnostics[0].range.start.line + 1}`,
		);
		await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
	});
});
