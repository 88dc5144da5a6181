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
	longhaul: { summaryBlocks: { roundId: string; text: string }[] };
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
		const newest = metadata.longhaul.summaryBlocks[metadata.longhaul.summaryBlocks.length - 1];

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

		// Each button opens the summary the model wrote at that point, in the order written (a
		// background summary the loop discarded has no button). Per-turn blocks: the turn's stored
		// block is the newest summary, which absorbed the earlier ones.
		const newest = metadata.longhaul.summaryBlocks[metadata.longhaul.summaryBlocks.length - 1].text;
		const openedInPlace: string[] = [];
		let lastWritten = -1;
		for (const [i, button] of inPlace.entries()) {
			const opened = await openedText(button.command, button.arguments ?? []);
			assert.strictEqual(opened.uri.scheme, 'longhaul-summary');
			assert.match(opened.text, /It was made from \d+ older rounds?\./);
			const written = script.summaries.findIndex((text, k) => k > lastWritten && opened.text.includes(text));
			assert.ok(
				written > lastWritten,
				`button ${i + 1} should open a summary the model wrote after the previous button's; it shows ${JSON.stringify(opened.text.slice(0, 300))}`,
			);
			lastWritten = written;
			openedInPlace.push(opened.text);
		}
		assert.ok(openedInPlace[n - 1].includes(newest), 'the last button opens the block the next prompt holds');
		for (const [i, button] of recap.entries()) {
			const opened = await openedText(button.command, button.arguments ?? []);
			assert.strictEqual(opened.text, openedInPlace[n - recap.length + i], `${button.title} opens the same summary as its notice's button`);
		}
	});

	it('a link the window no longer knows opens a document that says how to get it back', async () => {
		const opened = await openedText('longhaul.openSummary', [{ key: 'no-such-round-00000000' }]);
		assert.match(opened.text, /not loaded in this window\. Run `@longhaul \/context`/);
	});
});
