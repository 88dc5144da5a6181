// End-to-end: a long agent session in the Chat view of a real workbench (Longhaul VSIX, scripted
// model). The scripted model's long-session mode (test/fixtures/scripted-model/src/longSessionMode.ts)
// answers any message holding LONG-SESSION-E2E with one read-only tool call per agent request and
// a deterministic summary per summarization request, after shrinking its window on the first such
// message. A person sees the "Summarizing conversation history" progress and the
// "Summarized … verbatim" notice in the response.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { screenshot } from '../harness/browser.mjs';
import { openChat, waitForChatModel, waitForWorkbench, workbenchUrl } from '../harness/workbench.mjs';

const MARKER = 'LONG-SESSION-E2E';
const DATA_FILE = 'long-session-data.txt';
const NOTICE = /Summarized (\d+) older rounds?, kept (\d+) recent rounds? verbatim \((legacy|half-context)/;

/** The same numbered lines the integration tests read (test/integration/sessionScript.ts dataFileContent). */
function dataFileContent() {
	const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
	const lines = [];
	for (let i = 1; i <= 200; i++) lines.push(`record ${String(i).padStart(4, '0')}: ${words.map((w, j) => `${w}${(i * 7 + j) % 100}`).join(' ')}`);
	return lines.join('\n') + '\n';
}

const responses = page => page.locator('.interactive-item-container.interactive-response');

/**
 * Sends `text` and waits for its response to finish; calls `onProgress(text)` with the response's
 * visible text while it loads. Returns the final visible text.
 */
async function send(page, text, { timeoutMs = 120_000, onProgress } = {}) {
	// The chat list is virtualized (rows scrolled away leave the DOM), so rows are found from the
	// end: the newest response is ours once it differs from the one shown before sending.
	const previous = (await responses(page).count()) ? await responses(page).last().innerText().catch(() => '') : undefined;
	// Like sendChatMessage, but clears what the input holds first (the Chat view keeps `@longhaul`).
	const input = await openChat(page);
	await input.click({ position: { x: 30, y: 10 } });
	await page.keyboard.press('Control+A');
	await page.keyboard.press('Backspace');
	await page.keyboard.type(text, { delay: 10 });
	await page.keyboard.press('Enter');
	const deadline = Date.now() + timeoutMs;
	const response = responses(page).last();
	for (;;) {
		if (Date.now() > deadline) throw new Error(`no response to ${JSON.stringify(text)} within ${timeoutMs} ms`);
		const count = await responses(page).count();
		if (count > 0) {
			const loading = /\bchat-response-loading\b/.test((await response.getAttribute('class').catch(() => '')) ?? '');
			if (previous === undefined || loading || (await response.innerText().catch(() => previous)) !== previous) break;
		}
		await page.waitForTimeout(50);
	}
	while (/\bchat-response-loading\b/.test((await response.getAttribute('class')) ?? '')) {
		if (Date.now() > deadline) throw new Error(`the response to ${JSON.stringify(text)} did not finish within ${timeoutMs} ms; it shows: ${JSON.stringify(await response.innerText())}`);
		onProgress?.(await response.innerText().catch(() => ''));
		await page.waitForTimeout(50);
	}
	return { response, text: (await response.innerText()).trim() };
}

export const tests = [
	{
		name: 'a long scripted session in the Chat view shows the summarization progress and notice',
		async run({ page, server, workspace }) {
			writeFileSync(join(workspace, DATA_FILE), dataFileContent());
			await page.goto(workbenchUrl(server, { folder: workspace }));
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted');

			const setup = await send(page, `@longhaul ${MARKER} setup`, { timeoutMs: 30_000 });
			assert.match(setup.text, /long-session mode, window set to/, `the fixture should switch to long-session mode; it shows: ${JSON.stringify(setup.text)}`);
			await page.waitForTimeout(1500); // the new window travels to the workbench's model list

			let sawProgress = false;
			let sawNoticeWhileRunning = false;
			const session = await send(page, `@longhaul ${MARKER} read the data file piece by piece`, {
				onProgress: text => {
					if (/Summarizing conversation history/.test(text)) sawProgress = true;
					if (NOTICE.test(text)) sawNoticeWhileRunning = true;
				},
			});
			// VS Code 1.139 folds the progress, tool invocations and interim text of a response into one
			// "Completed N steps" row; open it as a person would to read the notice.
			const steps = session.response.getByText(/Completed \d+ steps/).first();
			if (await steps.isVisible().catch(() => false)) {
				await steps.click();
				await page.waitForTimeout(500);
			}
			const expanded = (await session.response.innerText()).trim();
			const notice = NOTICE.exec(expanded);
			// Show the notice in the screenshot.
			await session.response.getByText(NOTICE).first().scrollIntoViewIfNeeded().catch(() => {});
			await screenshot(page, 'e2e-long-session.png');
			console.log(`    progress seen: ${sawProgress}; notice while running: ${sawNoticeWhileRunning}; notice: ${notice?.[0]}`);

			assert.ok(notice, `the response should show the "Summarized … verbatim" notice; it shows: ${JSON.stringify(expanded.slice(0, 1500))}`);
			assert.equal(notice[3], 'legacy', 'the default mode is legacy');
			assert.ok(sawProgress || sawNoticeWhileRunning, 'the summarization should show while the response is still running');
			const notices = expanded.match(new RegExp(NOTICE.source, 'g')) ?? [];
			assert.ok(notices.length >= 2, `30 rounds in the small window should summarize at least twice; notices: ${notices.length}`);
			assert.match(session.text, /Long session finished after 30 tool calls\./, 'the session should run to its final answer');
			assert.doesNotMatch(expanded, /could not be summarized|Removed \d+ old tool result|Longhaul hit an error/, 'no fallback and no error');
		},
	},
];
