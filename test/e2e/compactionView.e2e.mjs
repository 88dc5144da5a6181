// End-to-end, issue 40: what a user sees of compaction, in a 1280×800 window, with screenshots in
// test-results/ whose texts are checked.
//   1. Half-context with slow summaries (the fixture's SLOW-SUMMARIES: 40 s each, the agent's replies
//      at once): a step says rounds were set aside; the response ends, in view, with the mode line;
//      the status bar meter and /context at the same moment show one share. Then legacy on the same
//      chat: its own mode line.
//   2. A window reload: the summary tab reopens with its text; the recap of the earlier response says
//      why its buttons are off and what still works; /context's link opens the summary.
/* global document */
import assert from 'node:assert/strict';
import { screenshot } from '../harness/browser.mjs';
import { openChat, runCommand, waitForChatModel, waitForWorkbench, workbenchUrl } from '../harness/workbench.mjs';
import {
	DATA_FILE,
	LONG_SESSION_MARKER as MARKER,
	dataFileContent,
	scrollChatTo,
	send,
	setUserSettings,
	summarizedLongSession,
	visibleResponseText,
	waitForStoredChat,
	writeUserSettings,
} from './chatSession.mjs';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VIEWPORT = { width: 1280, height: 800 };
const SET_ASIDE = /(\d+) older rounds? set aside while their summary is written; the agent did not wait\./;
const HALF_LINE = /Half-context mode: \d+ summar(y|ies) made, \d+(–\d+)? recent rounds? kept verbatim, [^.]*set aside while their summary was written[^.]*\./;
const LEGACY_LINE = /Legacy mode: \d+ summar(y|ies) made, \d+(–\d+)? recent rounds? kept verbatim[^.]*\./;

/** The meter in the status bar: its text (`52% · 2 summary blocks`). */
async function meterText(page) {
	const meter = page.locator('.statusbar-item', { hasText: /\d+%.* · \d+ summary blocks?/ }).first();
	await meter.waitFor({ state: 'visible', timeout: 15_000 });
	return (await meter.innerText()).trim();
}

export const tests = [
	{
		name: 'compaction in view: a set-aside step, the mode line in both modes, the meter and /context with one share',
		async run({ page, server, workspace }) {
			await page.setViewportSize(VIEWPORT);
			writeFileSync(join(workspace, DATA_FILE), dataFileContent());
			writeUserSettings(server, { 'longhaul.halfContextSummarization': true });
			await page.goto(workbenchUrl(server, { folder: workspace }), { timeout: 120_000 });
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted', 120_000);
			assert.match((await send(page, `@longhaul ${MARKER} setup`, { timeoutMs: 30_000 })).text, /long-session mode, window set to/);
			await page.waitForTimeout(1500);

			// 1. Half-context, summaries slower than the agent: rounds are set aside, nobody waits.
			const half = await send(page, `@longhaul ${MARKER} SLOW-SUMMARIES read the data file piece by piece`, { timeoutMs: 240_000 });
			const seen = await visibleResponseText(half.response);
			console.log(`    half-context, in view: …${JSON.stringify(seen.text.slice(-400))}`);
			assert.match(seen.text, HALF_LINE, 'the mode line is in view without unfolding');
			await half.response.scrollIntoViewIfNeeded();
			await screenshot(page, 'e2e-mode-line-half-context.png');

			// The step that set rounds aside: one line, inside the folded steps.
			const fold = half.response.locator('details.completed-response-disclosure > summary').first();
			if (await fold.count()) await fold.click();
			const notice = half.response.getByText(SET_ASIDE).first();
			await notice.waitFor({ state: 'visible', timeout: 15_000 });
			await notice.scrollIntoViewIfNeeded();
			const noticeText = await notice.innerText();
			console.log(`    set-aside notice: ${JSON.stringify(noticeText)}`);
			assert.match(noticeText, SET_ASIDE);
			assert.ok(
				await half.response.locator('.chat-command-button .monaco-button', { hasText: 'Open what the agent sees' }).first().isVisible(),
				'the step offers what the agent sees in place of those rounds',
			);
			await screenshot(page, 'e2e-set-aside-notice.png');

			// 2. The meter and /context at the same moment: one share.
			const meter = await meterText(page);
			const context = await send(page, '@longhaul /context', { timeoutMs: 60_000 });
			const meterAfter = await meterText(page);
			await scrollChatTo(page, context.response.getByText(/the next prompt takes/).first());
			await screenshot(page, 'e2e-meter-and-context.png');
			console.log(`    meter: ${JSON.stringify(meter)} → ${JSON.stringify(meterAfter)}; /context: ${JSON.stringify(context.text.slice(0, 160))}`);
			const share = Number(/the next prompt takes (\d+)% of it/.exec(context.text)?.[1]);
			assert.ok(share > 0, `/context gives the share: ${context.text.slice(0, 300)}`);
			assert.equal(Number(/(\d+)%/.exec(meter)[1]), share, `the meter (${meter}) and /context (${share}%) show one share`);
			assert.equal(meterAfter, meter, 'the meter does not jump after /context');
			const held = /· (\d+) rounds? set aside/.exec(meter);
			if (held) assert.match(context.text, new RegExp(`Set aside while their summary is written \\(${held[1]} rounds?\\)`), 'both count the rounds set aside');

			// 3. Legacy on the same chat: its own line.
			await setUserSettings(page, server, { 'longhaul.halfContextSummarization': false });
			const legacy = await send(page, `@longhaul ${MARKER} read it once more`, { timeoutMs: 240_000 });
			const legacySeen = await visibleResponseText(legacy.response);
			console.log(`    legacy, in view: …${JSON.stringify(legacySeen.text.slice(-300))}`);
			assert.match(legacySeen.text, LEGACY_LINE, 'the legacy mode line is in view without unfolding');
			await legacy.response.scrollIntoViewIfNeeded();
			await screenshot(page, 'e2e-mode-line-legacy.png');
		},
	},
	{
		name: 'after a window reload the summary tab shows its text, the recap says why its buttons are off, and /context opens the summary',
		async run({ page, server, workspace }) {
			await page.setViewportSize(VIEWPORT);
			const first = await summarizedLongSession(page, server, workspace);
			assert.match(first.text, /After a window reload VS Code turns these buttons off; @longhaul \/context lists every summary/);
			await first.response
				.locator('.chat-command-button .monaco-button', { hasText: /^Open summary/ })
				.last()
				.click();
			const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
			await editor.waitFor({ state: 'visible', timeout: 15_000 });
			const before = (await editor.innerText()).replace(/\s+/g, ' ');
			assert.match(before, /The model sees this text in place of the conversation up to/);

			await waitForStoredChat(page, server.dirs.userData, 'This response summarized');
			await Promise.all([page.waitForEvent('load', { timeout: 60_000 }), runCommand(page, 'Developer: Reload Window')]);
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted', 120_000);
			// The tab VS Code restores: its text, not "The editor could not be opened".
			const tab = page.locator('.tabs-container .tab', { hasText: 'Longhaul summary' }).first();
			await tab.waitFor({ state: 'visible', timeout: 30_000 });
			await tab.click();
			const reopened = page.locator('.editor-instance .monaco-editor .view-lines').first();
			await reopened.waitFor({ state: 'visible', timeout: 30_000 });
			const after = (await reopened.innerText()).replace(/\s+/g, ' ');
			await screenshot(page, 'e2e-summary-after-reload.png');
			console.log(`    after the reload the tab shows: ${JSON.stringify(after.slice(0, 160))}`);
			assert.doesNotMatch(await page.locator('.editor-instance').first().innerText(), /could not be opened/);
			assert.match(after, /The model sees this text in place of the conversation up to/);
			assert.match(after, /SUMMARY-\d+:/, 'the summary text itself');

			// The earlier response's buttons are off (VS Code's doing); the recap says what works; /context's link opens the summary.
			await openChat(page);
			const context = await send(page, '@longhaul /context', { timeoutMs: 60_000 });
			const link = context.response.locator('a', { hasText: /^request \d+, rounds? / }).first();
			await link.waitFor({ state: 'attached', timeout: 15_000 });
			// The chat list scrolls on its own: a click dispatched on the link, as the mouse would.
			await link.dispatchEvent('click');
			await page.waitForFunction(
				() => [...document.querySelectorAll('.tabs-container .tab')].some(t => /Longhaul summary/.test(t.textContent ?? '')),
				undefined,
				{
					timeout: 15_000,
				},
			);
			const opened = (await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText()).replace(/\s+/g, ' ');
			assert.match(opened, /SUMMARY-\d+:/, `the link opens the summary after the reload: ${opened.slice(0, 200)}`);
			await screenshot(page, 'e2e-context-link-after-reload.png');
		},
	},
];
