// Readable summaries: what the model remembers in place of the older rounds can be opened from the
// chat as a read-only `longhaul-summary:` document, from the "Open summary" button under each
// summarization notice and from the links /context prints for every summary block.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { HandledRequest } from '../../src/agent/api';
import { sendChat, setHandler, smallWindowSessions } from './helpers';
import { DATA_FILE, createSessionScript } from './sessionScript';

interface Metadata {
	summarizations: number;
	longhaul: { summaries: { roundId: string; text: string }[] };
}

/** The arguments of every `command:longhaul.openSummary?…` link in `markdown`. */
function openSummaryLinks(markdown: string): { label: string; args: unknown[] }[] {
	return [...markdown.matchAll(/\[([^\]]+)\]\(command:longhaul\.openSummary\?([^)\s]+)\)/g)].map(m => ({
		label: m[1],
		args: JSON.parse(decodeURIComponent(m[2])) as unknown[],
	}));
}

/** Runs the command and returns the text of the editor it opened. */
async function openedText(command: string, args: readonly unknown[]): Promise<{ uri: vscode.Uri; text: string }> {
	await vscode.commands.executeCommand(command, ...args);
	const editor = vscode.window.activeTextEditor;
	assert.ok(editor, `${command} should open an editor`);
	return { uri: editor.document.uri, text: editor.document.getText() };
}

async function closeEditors(): Promise<void> {
	await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

describe('Readable summaries', function () {
	this.timeout(120_000);
	smallWindowSessions();
	afterEach(closeEditors);

	it('/context links every summary block, and each link opens the summary the next prompt holds', async () => {
		const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE, finalText: 'DONE' });
		await setHandler(script.handler);
		const session = await sendChat('@longhaul read the data file', { timeoutMs: 60_000 });
		const metadata = session.metadata as unknown as Metadata;
		assert.ok(metadata.summarizations >= 1, 'the session should summarize');
		const newest = metadata.longhaul.summaries[metadata.longhaul.summaries.length - 1];

		const report: HandledRequest = await sendChat('@longhaul /context');
		const links = openSummaryLinks(report.markdown);
		assert.ok(links.length >= 1, `/context should link the summary blocks: ${report.markdown}`);
		const opened = await openedText('longhaul.openSummary', links[links.length - 1].args);
		assert.strictEqual(opened.uri.scheme, 'longhaul-summary');
		assert.ok(opened.text.includes(newest.text), `the document should hold the newest summary; it shows ${JSON.stringify(opened.text.slice(0, 300))}`);
		assert.match(opened.text, /^# Longhaul summary\n/);
	});

	it('each summarization notice is followed by an Open summary button, and the end of the response offers the newest summaries again', async () => {
		const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE, finalText: 'DONE' });
		await setHandler(script.handler);
		const session = await sendChat('@longhaul read the data file', { timeoutMs: 60_000 });
		const metadata = session.metadata as unknown as Metadata;
		const n = metadata.summarizations;
		const notices = session.markdown.match(/Summarized \d+ older rounds?, kept \d+ recent rounds? verbatim/g) ?? [];
		assert.ok(n >= 2, 'the session should summarize at least twice');
		assert.strictEqual(notices.length, n, 'one notice per summarization');
		const buttons = session.buttons.filter(b => b.command === 'longhaul.openSummary');
		const inPlace = buttons.slice(0, n);
		const recap = buttons.slice(n);
		assert.ok(inPlace.every(b => b.title === 'Open summary'));
		assert.strictEqual(recap.length, Math.min(n, 3), 'the newest summaries, at most three, again at the end');
		assert.deepStrictEqual(
			recap.map(b => b.title),
			recap.map((_, i) => `Open summary ${n - recap.length + i + 1} of ${n}`),
		);
		assert.match(session.markdown, new RegExp(`This response summarized the conversation ${n} times`));
		assert.ok(session.markdown.lastIndexOf('DONE') < session.markdown.lastIndexOf('summarized the conversation'), 'the recap comes after the final answer');

		const summaries = metadata.longhaul.summaries;
		const expected = [
			...summaries.map((s, i) => ({ button: inPlace[i], text: s.text })),
			...recap.map((b, i) => ({ button: b, text: summaries[n - recap.length + i].text })),
		];
		for (const [i, { button, text }] of expected.entries()) {
			const opened = await openedText(button.command, button.arguments ?? []);
			assert.strictEqual(opened.uri.scheme, 'longhaul-summary');
			assert.ok(opened.text.includes(text), `button ${i + 1} (${button.title}) should open its summary; it shows ${JSON.stringify(opened.text.slice(0, 300))}`);
			assert.match(opened.text, /It was made from \d+ older rounds?\./);
		}
	});

	it('a link the window no longer knows opens a document that says how to get it back', async () => {
		const opened = await openedText('longhaul.openSummary', [{ key: 'no-such-round-00000000' }]);
		assert.match(opened.text, /not loaded in this window\. Run `@longhaul \/context`/);
	});
});
