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

	it('each summarization notice is followed by an Open summary button that opens that summary', async () => {
		const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE, finalText: 'DONE' });
		await setHandler(script.handler);
		const session = await sendChat('@longhaul read the data file', { timeoutMs: 60_000 });
		const metadata = session.metadata as unknown as Metadata;
		const notices = session.markdown.match(/Summarized \d+ older rounds?, kept \d+ recent rounds? verbatim/g) ?? [];
		const buttons = session.buttons.filter(b => b.command === 'longhaul.openSummary');
		assert.ok(notices.length >= 1, 'the session should summarize');
		assert.strictEqual(buttons.length, notices.length, 'one button per notice');
		assert.ok(buttons.every(b => b.title === 'Open summary'));
		const summaries = metadata.longhaul.summaryBlocks;
		for (const [i, button] of buttons.entries()) {
			const opened = await openedText(button.command, button.arguments ?? []);
			assert.strictEqual(opened.uri.scheme, 'longhaul-summary');
			assert.ok(opened.text.includes(summaries[i].text), `button ${i + 1} should open summary ${i + 1}; it shows ${JSON.stringify(opened.text.slice(0, 300))}`);
			assert.match(opened.text, /It was made from \d+ older rounds?\./);
		}
	});

	it('a link the window no longer knows opens a document that says how to get it back', async () => {
		const opened = await openedText('longhaul.openSummary', [{ key: 'no-such-round-00000000' }]);
		assert.match(opened.text, /not loaded in this window\. Run `@longhaul \/context`/);
	});
});
