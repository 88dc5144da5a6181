// The /compact and /context commands in a real chat session with the scripted model.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { resetSession, sendChat, setHandler, withSetting } from './helpers';
import { scriptedModel } from './helpers';
import { DATA_FILE, SMALL_WINDOW, allText, createSessionScript, dataFileContent, summaryMarker, summaryNumbersIn, toolCallIds } from './sessionScript';

async function writeDataFile(): Promise<vscode.Uri> {
	const folder = vscode.workspace.workspaceFolders?.[0];
	assert.ok(folder, 'the integration host has no workspace folder');
	const uri = vscode.Uri.joinPath(folder.uri, DATA_FILE);
	await vscode.workspace.fs.writeFile(uri, Buffer.from(dataFileContent(), 'utf8'));
	return uri;
}

interface Metadata {
	summarizations: number;
	longhaul: { rounds: { id: string; toolCalls: { id: string }[] }[]; summaryBlocks: { roundId: string; text: string }[] };
}

describe('/compact and /context', function () {
	this.timeout(60_000);
	let dataFile: vscode.Uri | undefined;
	before(async () => {
		dataFile = await writeDataFile();
	});
	after(async () => {
		if (dataFile) await vscode.workspace.fs.delete(dataFile).then(undefined, () => undefined);
	});
	beforeEach(resetSession);
	afterEach(async () => (await scriptedModel()).reset());

	it('/compact <focus> summarizes the earlier rounds with the focus in the summarizer request, and the next request sees the summary', async () => {
		const script = createSessionScript({ toolCalls: 4, finalText: 'FIRST-DONE' });
		await setHandler(script.handler);
		const first = await sendChat('@longhaul TASK-ONE: look at the workspace');
		assert.strictEqual((first.metadata as unknown as Metadata).longhaul.rounds.length, 5);
		const firstCallIds = (first.metadata as unknown as Metadata).longhaul.rounds.flatMap(r => r.toolCalls.map(c => c.id));
		assert.strictEqual(script.summarizerRequests.length, 0, 'nothing is summarized in a large window');

		const compacted = await sendChat('@longhaul /compact keep every detail about greet() in src/greeting.js');
		assert.strictEqual(compacted.command, 'compact');
		assert.strictEqual(compacted.errorMessage, undefined);
		assert.match(compacted.markdown, /Summarized 5 older rounds, kept 0 recent rounds verbatim \(legacy\)/, `got ${JSON.stringify(compacted.markdown)}`);
		assert.strictEqual((compacted.metadata as unknown as Metadata).summarizations, 1);
		assert.strictEqual(script.summarizerRequests.length, 1, 'one summarizer request');
		const summarizerText = allText(script.summarizerRequests[0]);
		assert.ok(summarizerText.includes('<focus>\nkeep every detail about greet() in src/greeting.js\n</focus>'), 'the focus text should reach the summarizer');
		assert.ok(summarizerText.includes('TASK-ONE: look at the workspace'), 'the summarizer should see the user request it absorbs');
		for (const id of ['README.md', 'src/greeting.js', 'notes.txt']) assert.ok(summarizerText.includes(id), `the transcript should hold the ${id} call`);

		// The summary made by /compact (stored on the command's turn, anchored on TASK-ONE's last round) is used next.
		const agentsBefore = script.agentRequests.length;
		const next = await sendChat('@longhaul TASK-TWO: go on');
		assert.strictEqual(next.errorMessage, undefined);
		const prompt = script.agentRequests[agentsBefore];
		const text = allText(prompt);
		assert.ok(text.includes(`<conversation-summary>\n${summaryMarker(1)}`), 'the next request should see the /compact summary');
		assert.deepStrictEqual(summaryNumbersIn(text), [1]);
		assert.ok(text.includes('TASK-ONE: look at the workspace') && text.includes('TASK-TWO: go on'), 'user requests stay verbatim');
		assert.ok(!text.includes('keep every detail about greet()'), 'the /compact command turn is not a user request of the conversation');
		for (const id of firstCallIds) assert.ok(!toolCallIds(prompt).includes(id), `summarized call ${id} should not come back verbatim`);
	});

	it('/compact with nothing to summarize says so and sends no summarizer request', async () => {
		const script = createSessionScript({ toolCalls: 0 });
		await setHandler(script.handler);
		const handled = await sendChat('@longhaul /compact');
		assert.match(handled.markdown, /nothing to summarize/i);
		assert.strictEqual(script.summarizerRequests.length, 0);
		assert.strictEqual((handled.metadata as unknown as Metadata).summarizations, 0);
	});

	it('/context shows the parts of the next prompt and the active mode, with summaries counted after summarization', async () => {
		const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE, finalText: 'DONE' });
		await setHandler(script.handler);
		await (await scriptedModel()).setMaxInputTokens(SMALL_WINDOW);
		await withSetting('halfContextSummarization', true, async () => {
			const before = await sendChat('@longhaul /context');
			assert.match(before.markdown, /\| Summaries \(0 blocks\) \| 0 \|/, 'no summary yet');
			assert.match(before.markdown, /\| Verbatim rounds \(0\) \| 0 \|/);
			assert.match(before.markdown, /Summarization mode: \*\*half-context\*\*/);
			assert.match(before.markdown, /16,000 tokens/, 'the window of the selected model');

			const session = await sendChat('@longhaul read the data file', { timeoutMs: 50_000 });
			assert.ok((session.metadata as unknown as Metadata).summarizations >= 1);

			const report = await sendChat('@longhaul /context');
			assert.strictEqual(script.agentRequests.length, 31, '/context sends nothing to the model');
			for (const row of ['Summaries', 'Verbatim rounds', 'Free', 'Tool definitions', 'Reserve']) {
				assert.match(report.markdown, new RegExp(`\\| ${row}`), `the table should have a ${row} row`);
			}
			const summaries = Number(/\| Summaries \(\d+ blocks?\) \| ([\d,]+) \|/.exec(report.markdown)?.[1].replace(/,/g, ''));
			assert.ok(summaries > 0, `the summary should count in /context: ${report.markdown}`);
			const verbatim = /\| Verbatim rounds \((\d+)\) \| ([\d,]+) \|/.exec(report.markdown);
			assert.ok(verbatim && Number(verbatim[1]) > 0, 'rounds after the summary are listed as verbatim');
			assert.match(report.markdown, /Summarization mode: \*\*half-context\*\*/);
		});
		await withSetting('halfContextSummarization', false, async () => {
			const report = await sendChat('@longhaul /context');
			assert.match(report.markdown, /Summarization mode: \*\*legacy\*\*/);
		});
	});
});
