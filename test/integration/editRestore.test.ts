// The user in charge of the summaries: a summary opened from the chat can be edited and saved, and
// the next prompt holds the saved text (stored like any block, marked as edited); a save that is
// empty or over the summary budget changes nothing. /restore and the Restore buttons bring back the
// rounds a block stood for, word for word, when they fit, and otherwise offer the newest part.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { HandledRequest } from '../../src/agent/api';
import type { ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { isSummarizerRequest, lastAgentRequest } from './faultScript';
import { longhaul, scriptedModel, sendChat, setHandler, smallWindowSessions, withSetting } from './helpers';
import { DATA_FILE, createSessionScript } from './sessionScript';

interface Metadata {
	summarizations: number;
	longhaul: { summaryBlocks: { roundId: string; text: string; edited?: boolean; buildsOnEdit?: boolean; removed?: boolean }[]; doneLedger?: { steps: number } };
}

const meta = (handled: HandledRequest) => handled.metadata as unknown as Metadata;
const textOf = (request: ScriptedRequest) => request.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'text' ? [p.value] : []))).join('\n');
/** The first agent request (not a summarizer's) after the user's message `user`: the prompt the chat had when the request started. */
function firstAgentRequest(requests: readonly ScriptedRequest[], user: string): ScriptedRequest {
	const found = requests.find(r => !isSummarizerRequest(r) && r.messages.at(-1)?.role === 'user' && textOf(r).trimEnd().endsWith(user));
	assert.ok(found, `no agent request for "${user}"`);
	return found;
}

const summariesIn = (request: ScriptedRequest) =>
	request.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'text' && p.value.startsWith('<conversation-summary>') ? [p.value] : [])));

/** A session in the small window that summarizes; its newest summary's Open summary button. */
async function summarizedSession(): Promise<{ session: HandledRequest; open: vscode.Command; restore: vscode.Command }> {
	const script = createSessionScript({ toolCalls: (n: number) => (n === 1 ? 30 : 1), dataFile: DATA_FILE, finalText: 'DONE' });
	await setHandler(script.handler);
	const session = await sendChat('@longhaul read the data file', { timeoutMs: 90_000 });
	assert.ok(meta(session).summarizations >= 1, 'the session summarizes');
	const open = session.buttons.filter(b => b.command === 'longhaul.openSummary').at(-1);
	const restore = session.buttons.filter(b => b.command === 'longhaul.restoreSummary').at(-1);
	assert.ok(open && restore, `the response offers Open summary and Restore: ${session.buttons.map(b => b.title).join(', ')}`);
	return { session, open, restore };
}

/** Runs a button's command (as a click does) and resolves with the chat request it sends. */
async function clickAndWait(button: vscode.Command): Promise<HandledRequest> {
	const { api } = await longhaul();
	return new Promise<HandledRequest>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`the ${button.title} button sent no request`)), 60_000);
		const listener = api.onDidHandleRequest(handled => {
			clearTimeout(timer);
			listener.dispose();
			resolve(handled);
		});
		vscode.commands.executeCommand(button.command, ...(button.arguments ?? [])).then(undefined, reject);
	});
}

async function openFromButton(button: vscode.Command): Promise<vscode.TextEditor> {
	await vscode.commands.executeCommand(button.command, ...(button.arguments ?? []));
	const editor = vscode.window.activeTextEditor;
	assert.ok(editor && editor.document.uri.scheme === 'longhaul-summary', 'the button opens the summary document');
	return editor;
}

/** Replaces the summary text (below the line) in the editor, without saving. */
async function replaceSummary(editor: vscode.TextEditor, text: string): Promise<void> {
	const document = editor.document;
	const line = document.getText().split('\n').indexOf('---');
	assert.ok(line > 0, 'the document has the separator line');
	const range = new vscode.Range(new vscode.Position(line + 1, 0), document.lineAt(document.lineCount - 1).range.end);
	assert.ok(await editor.edit(b => b.replace(range, `\n${text}\n`)));
}

/** Replaces the summary text (below the line) in the editor and saves; resolves with whether the save went through. */
async function editAndSave(editor: vscode.TextEditor, text: string): Promise<boolean> {
	const document = editor.document;
	await replaceSummary(editor, text);
	const refusable = text.length >= 1000 || text === '';
	// Under load VS Code may skip a save while the editor it just opened is still settling (no write
	// reaches the file system, no save error is logged); a user would save again, and so does this.
	for (let attempt = 1; ; attempt++) {
		await new Promise(r => setTimeout(r, 300 * attempt));
		const saved = await document.save();
		if (saved || refusable) return saved;
		if (attempt === 4) {
			assert.fail(
				`the save did not go through in 4 tries: dirty ${document.isDirty}, closed ${document.isClosed}, text ${JSON.stringify(document.getText().slice(-200))}`,
			);
		}
	}
}

describe('Summary edit and restore', function () {
	this.timeout(180_000);
	smallWindowSessions();
	afterEach(async () => {
		await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor').then(undefined, () => undefined);
		await vscode.commands.executeCommand('workbench.action.closeAllEditors');
	});

	it('a saved edit is what the next prompt holds, stored as edited, and marked in /context and the document', () =>
		// Background summaries off: with them, rounds still set aside when request 1 ends are summarized
		// in request 2 from the edited text (marked "builds on your edit", decision 43); here the edited
		// block itself is followed through the next requests.
		withSetting('backgroundSummarizationThreshold', 0, async () => {
			const { session, open } = await summarizedSession();
			const original = meta(session).longhaul.summaryBlocks.at(-1)!;
			const editor = await openFromButton(open);
			assert.match(editor.document.getText(), /edit the text below the line and save/);
			const corrected = 'USER-CORRECTED SUMMARY: the data file has 200 records; records 1-150 were read; nothing was changed.';
			assert.strictEqual(await editAndSave(editor, corrected), true, 'the save goes through');

			const api = await scriptedModel();
			const next = await sendChat('@longhaul go on');
			assert.match(next.markdown, /Your edit of the summary up to .* is what the model remembers from this request on/);
			const summaries = summariesIn(firstAgentRequest(api.requests, 'go on'));
			assert.ok(
				summaries.some(s => s.includes(corrected)),
				`the next prompt holds the edited text: ${summaries.map(s => s.slice(0, 120)).join(' | ')}`,
			);
			assert.ok(!summaries.some(s => s.includes(original.text)), 'and no longer the model’s text');
			assert.deepStrictEqual(
				meta(next)
					.longhaul.summaryBlocks.filter(b => b.edited)
					.map(b => b.roundId),
				[original.roundId],
				'the edit is stored with that turn',
			);

			const context = await sendChat('@longhaul /context');
			assert.match(context.markdown, /edited by you/);
			const link = /\[request \d+, rounds? [^\]]+\]\(command:longhaul\.openSummary\?([^)\s]+)\)[^\n]*edited by you/.exec(context.markdown);
			assert.ok(link, 'the /context link of the edited block says so');
			await vscode.commands.executeCommand('longhaul.openSummary', ...(JSON.parse(decodeURIComponent(link[1])) as unknown[]));
			assert.match(
				vscode.window.activeTextEditor?.document.getText() ?? '',
				/You edited this summary: the model remembers your text\.[\s\S]*USER-CORRECTED SUMMARY/,
			);
			await sendChat('@longhaul and once more');
			const later = summariesIn(lastAgentRequest(api.requests));
			assert.ok(
				later.some(s => s.includes(corrected)),
				`the edit stays in later prompts (rebuilt from the stored record): ${later.map(s => s.slice(0, 160)).join(' | ')}`,
			);
			// A /compact that absorbs the edited block writes the model's text from it: marked as building on the edit.
			const compacted = await sendChat('@longhaul /compact');
			assert.match(compacted.markdown, /Summarized \d+ older rounds?/, compacted.markdown);
			const built = meta(compacted).longhaul.summaryBlocks.filter(b => b.buildsOnEdit);
			assert.strictEqual(built.length, 1, `one new block builds on the edit: ${JSON.stringify(meta(compacted).longhaul.summaryBlocks)}`);
			const after = await sendChat('@longhaul /context');
			assert.match(after.markdown, /\[request 1, rounds? [^\]]+\]\(command:longhaul\.openSummary\?[^)\s]+\)[^\n]*builds on your edit/, after.markdown);
		}));

	it('a save that is too long or empty is refused and changes nothing', async () => {
		const { session, open } = await summarizedSession();
		const original = meta(session).longhaul.summaryBlocks.at(-1)!;
		const editor = await openFromButton(open);
		assert.strictEqual(await editAndSave(editor, 'far too long. '.repeat(3000)), false, 'a summary over the budget is not saved');
		assert.strictEqual(await editAndSave(editor, ''), false, 'an empty summary is not saved');
		await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
		const api = await scriptedModel();
		const next = await sendChat('@longhaul go on');
		assert.doesNotMatch(next.markdown, /Your edit/);
		assert.ok(
			summariesIn(firstAgentRequest(api.requests, 'go on')).some(s => s.includes(original.text)),
			'the model’s summary is unchanged',
		);
	});

	it('with auto-save on, a text that would be refused is not auto-saved: its reason is on the text, which stays unsaved until fixed', async () => {
		const { open } = await summarizedSession();
		const files = vscode.workspace.getConfiguration('files');
		await files.update('autoSave', 'afterDelay', vscode.ConfigurationTarget.Global);
		const attempts: vscode.TextDocumentSaveReason[] = [];
		const listener = vscode.workspace.onWillSaveTextDocument(e => {
			if (e.document.uri.scheme === 'longhaul-summary') attempts.push(e.reason);
		});
		try {
			const editor = await openFromButton(open);
			assert.strictEqual(editor.document.languageId, 'longhaul-summary', 'the summary documents have their own language');
			await replaceSummary(editor, '');
			// Well past the auto-save delay (1 s by default).
			await new Promise(r => setTimeout(r, 3500));
			const diagnostics = vscode.languages.getDiagnostics(editor.document.uri);
			assert.deepStrictEqual(
				diagnostics.map(d => d.severity),
				[vscode.DiagnosticSeverity.Error],
				'one error on the text',
			);
			assert.match(diagnostics[0].message, /cannot be empty/, 'it gives the reason');
			assert.deepStrictEqual(attempts, [], 'auto-save does not try to save a text that would be refused');
			assert.strictEqual(editor.document.isDirty, true, 'the text stays in the editor, unsaved');

			await replaceSummary(editor, 'AUTO-SAVED CORRECTION: the data file has 200 records; nothing was changed.');
			for (let waited = 0; editor.document.isDirty && waited < 15_000; waited += 250) await new Promise(r => setTimeout(r, 250));
			assert.strictEqual(editor.document.isDirty, false, 'the fixed text is auto-saved');
			assert.ok(attempts.length >= 1 && attempts.every(r => r !== vscode.TextDocumentSaveReason.Manual), `saved by auto-save: ${attempts.join(',')}`);
			assert.deepStrictEqual(vscode.languages.getDiagnostics(editor.document.uri), [], 'and the error is gone');
			const next = await sendChat('@longhaul go on');
			assert.match(next.markdown, /Your edit of the summary up to .* is what the model remembers from this request on/);
		} finally {
			listener.dispose();
			await files.update('autoSave', undefined, vscode.ConfigurationTarget.Global);
		}
	});

	it('/restore brings the rounds back word for word when they fit, and the block is gone from the prompt and /context', async () => {
		const { session } = await summarizedSession();
		const block = meta(session).longhaul.summaryBlocks.at(-1)!;
		const api = await scriptedModel();
		await api.setMaxInputTokens(128_000);
		const restored = await sendChat('@longhaul /restore');
		assert.match(restored.markdown, /Restored the \d+ rounds? of the summary up to/, restored.markdown);
		assert.deepStrictEqual(meta(restored).longhaul.summaryBlocks.filter(b => b.removed).length > 0, true, 'the removal is stored with the /restore turn');
		const context = await sendChat('@longhaul /context');
		assert.match(context.markdown, /\| Summaries \(0 blocks\) \| 0 \|/);
		const next = await sendChat('@longhaul go on');
		const prompt = firstAgentRequest(api.requests, 'go on');
		assert.deepStrictEqual(summariesIn(prompt), [], 'no summary in the next prompt');
		assert.ok(!textOf(prompt).includes(block.text), 'the block’s text is gone');
		const results = prompt.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'toolResult' ? [p.text] : [])));
		assert.ok(
			results.some(r => /record 0001: alpha/.test(r)),
			`the rounds it replaced are back word for word (${results.length} tool results: ${results.map(r => r.slice(0, 40)).join(' | ')})`,
		);
		// The ledger counts each tool call once: the restored rounds are not folded in again.
		assert.strictEqual(meta(next).longhaul.doneLedger?.steps, (meta(session).longhaul.doneLedger?.steps ?? 0) + 1);
	});

	it('a restore that does not fit changes nothing and offers the newest rounds that do, whose button restores them', async () => {
		const { restore } = await summarizedSession();
		const api = await scriptedModel();
		await api.setMaxInputTokens(20_000);
		const refused = await sendChat('@longhaul /restore');
		assert.match(
			refused.markdown,
			/Nothing was restored\. Bringing back the \d+ rounds of the summary up to .* would make the next prompt [\d,]+ tokens, but it may take [\d,]+ .*: [\d,]+ tokens would not fit\./,
		);
		assert.deepStrictEqual(meta(refused).longhaul.summaryBlocks, [], 'nothing is stored');
		const offer = refused.buttons.find(b => b.command === 'longhaul.restoreSummary');
		assert.ok(offer, 'a button offers the newest rounds that fit');
		const count = Number(/Restore the newest (\d+) rounds?/.exec(offer.title)?.[1]);
		assert.ok(count >= 1, offer.title);
		assert.doesNotMatch(refused.markdown, /id:/, 'the offer names no internal id');
		assert.match(refused.markdown, new RegExp(`\\(\`/restore \\d+ newest:${count}\`\\)`), 'the offer shows the request as /context numbers it');
		// The button posts `/restore N newest:M` to the chat, as the user could type it.
		const partial = await clickAndWait(offer);
		assert.match(partial.prompt, new RegExp(`^\\d+ newest:${count}$`), `the button's message: /restore ${partial.prompt}`);
		assert.match(partial.markdown, new RegExp(`Restored the newest ${count} of the \\d+ rounds`));
		const next = await sendChat('@longhaul go on');
		assert.strictEqual(next.errorMessage, undefined);
		assert.ok(summariesIn(lastAgentRequest(api.requests)).length >= 1, 'the older rounds stay summarized');
		// The notice's Restore button posts `/restore N` for its block's request.
		const whole = await clickAndWait(restore);
		assert.match(whole.prompt, /^\d+$/, `the Restore button's message: /restore ${whole.prompt}`);
	});
});
