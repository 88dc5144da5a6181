// End-to-end: a person reads what the model remembers. A long scripted session (the fixture's
// long-session mode, see longSession.e2e.mjs) summarizes in the Chat view; the "Open summary"
// button under a notice, visible without unfolding the response's steps, opens the summary in an
// editor. The same session checks telemetry in the real product, where VS Code calls
// extension telemetry senders: with the telemetry level `off` (the test profile's setting) the
// Longhaul log gets no telemetry line; at `all` it gets one per summarization, holding exactly the
// fields docs/telemetry.md lists.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { screenshot } from '../harness/browser.mjs';
import { repoRoot } from '../harness/util.mjs';
import { waitForChatModel, waitForWorkbench, workbenchUrl } from '../harness/workbench.mjs';
import { DATA_FILE, dataFileContent, send, setUserSetting } from './chatSession.mjs';

const MARKER = 'LONG-SESSION-E2E';
const SUMMARY_TEXT = /SUMMARY-(\d+): scripted summary number \1 of the long session/;
const EVENT_PREFIX = 'telemetry longhaul-dev.longhaul/summarization ';

/** Every 'Longhaul.log' of the server (the extension host writes it under the user data folder). */
function longhaulLog(root) {
	const found = [];
	const walk = (dir, depth) => {
		if (depth > 10 || !existsSync(dir)) return;
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			const full = join(dir, entry.name);
			if (entry.isDirectory() && !['extensions', 'node_modules', 'workspace'].includes(entry.name)) walk(full, depth + 1);
			else if (entry.isFile() && entry.name === 'Longhaul.log') found.push(full);
		}
	};
	walk(root, 0);
	return found.map(f => readFileSync(f, 'utf8')).join('\n');
}

const lines = (text, prefix) => text.split('\n').filter(line => line.includes(prefix));

/** The summarization event's fields as docs/telemetry.md lists them. */
function documentedSummarizationFields() {
	const doc = readFileSync(join(repoRoot, 'docs', 'telemetry.md'), 'utf8');
	const section = doc.split('## `longhaul-dev.longhaul/summarization`')[1].split('\n## ')[0];
	return [...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map(m => m[1]).sort();
}

/** How often a response says it summarized the conversation (the recap after its final answer). */
function summarizedTimes(text) {
	const times = /summarized the conversation (once|(\d+) times)/.exec(text);
	assert.ok(times, `the response should say how often it summarized: ${JSON.stringify(text.slice(-600))}`);
	return times[2] ? Number(times[2]) : 1;
}

async function waitFor(what, check, timeoutMs = 15_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = check();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise(r => setTimeout(r, 250));
	}
}

export const tests = [
	{
		name: 'a summary opens from the chat in an editor; telemetry is written only at the all level',
		async run({ page, server, workspace }) {
			writeFileSync(join(workspace, DATA_FILE), dataFileContent());
			await page.goto(workbenchUrl(server, { folder: workspace }), { timeout: 120_000 }); // generous: the machine may be loaded
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted', 120_000); // the fixture activates on startup finished, slow on a loaded machine
			const setup = await send(page, `@longhaul ${MARKER} setup`, { timeoutMs: 30_000 });
			assert.match(setup.text, /long-session mode, window set to/);
			await page.waitForTimeout(1500); // the new window travels to the workbench's model list

			// 1. Telemetry off: the session summarizes, and the button opens the newest summary.
			const first = await send(page, `@longhaul ${MARKER} read the data file piece by piece`);
			// The last button is the newest summary's, offered again after the final answer.
			// (A chat button's accessible name is its tooltip, so it is found by its text.)
			const openSummary = first.response.locator('.chat-command-button .monaco-button', { hasText: /^Open summary/ });
			const button = openSummary.last();
			await button.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => {});
			assert.ok(await button.isVisible(), 'the Open summary button should be visible without unfolding the steps');
			const buttons = await openSummary.count();
			const made = summarizedTimes(first.text);
			await button.click();
			const tab = page.locator('.tabs-container .tab', { hasText: 'Longhaul summary' }).first();
			await tab.waitFor({ state: 'visible', timeout: 15_000 });
			const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
			await editor.waitFor({ state: 'visible', timeout: 15_000 });
			const shown = (await editor.innerText()).replace(/\u00a0/g, ' ');
			await screenshot(page, 'e2e-readable-summary.png');
			assert.match(shown, /# Longhaul summary/, `the editor should show the summary document; it shows ${JSON.stringify(shown.slice(0, 400))}`);
			const number = SUMMARY_TEXT.exec(shown);
			assert.ok(number, `the editor should show the scripted summary's text; it shows ${JSON.stringify(shown.slice(0, 400))}`);
			console.log(`    ${made} summarizations, ${buttons} Open summary buttons (folded and visible); the last one opened SUMMARY-${number[1]}`);
			// Scripted summaries are numbered as the model writes them; a background summary the loop
			// discarded has a number but no button, so the newest one used is at least the made-th.
			// (test/integration/readableSummaries.test.ts maps every button to its summary exactly.)
			// (A background summary cancelled when its turn ended is answered but never logged.)
			assert.ok(Number(number[1]) >= made, `the last button opens the newest summary: SUMMARY-${number[1]}, ${made} used`);
			// (Editing and saving it: editRestore.e2e.mjs.)

			const summarizationLines = await waitFor('the summarization log lines', () => {
				const found = lines(longhaulLog(server.dirs.root), 'summarization {');
				return found.length >= made ? found : undefined;
			});
			await page.waitForTimeout(2000); // a telemetry line would follow its summarization line at once
			assert.deepEqual(
				lines(longhaulLog(server.dirs.root), 'telemetry '),
				[],
				`telemetry off: no telemetry line (${summarizationLines.length} summarizations logged)`,
			);

			assert.match((await send(page, '@longhaul /context')).text, /Statistics: not recorded/);

			// 2. Telemetry at `all` (the user setting, read live): one event per summarization, documented fields only.
			await setUserSetting(page, server, 'telemetry.telemetryLevel', 'all');
			const context = await send(page, '@longhaul /context');
			assert.match(context.text, /Statistics: each summarization is recorded in the Longhaul log/, 'the new telemetry level should reach the extension');
			const second = await send(page, `@longhaul ${MARKER} and once more from the start`);
			const notices = summarizedTimes(second.text);
			const events = await waitFor('the telemetry lines', () => {
				const found = lines(longhaulLog(server.dirs.root), EVENT_PREFIX);
				return found.length >= notices ? found : undefined;
			});
			const fields = documentedSummarizationFields();
			for (const line of events) {
				const data = JSON.parse(line.slice(line.indexOf(EVENT_PREFIX) + EVENT_PREFIX.length));
				assert.deepEqual(Object.keys(data).sort(), fields, `an event holds exactly the documented fields: ${line}`);
			}
			const overflow = events.map(line => JSON.parse(line.slice(line.indexOf('{')))).filter(d => d.trigger !== 'background' && d.outcome === 'summarized');
			console.log(`    telemetry at all: ${events.length} summarization event(s), ${overflow.length} made at an overflow; ${notices} notice(s) shown`);
		},
	},
];
