// End-to-end: /context read in the Chat view at its default width, and a summary edited from it.
// A long scripted session (the fixture's long-session mode, 16k window) summarizes; /context must
// read without scrolling sideways (the done-ledger as lines of text, no code block), every column of
// its tables titled, and say whether old tool results are masked. Then the user opens the summary,
// empties it (auto-save, on by default in the web, leaves it alone) and saves: one message says why
// it was refused and the editor keeps the text (still unsaved); once fixed, the next auto-save
// saves it and says what happens from the next request on. Screenshots in test-results/.
/* global document, NodeFilter */
import assert from 'node:assert/strict';
import { screenshot } from '../harness/browser.mjs';
import { scrollChatTo, send, summarizedLongSession } from './chatSession.mjs';

const toasts = page => page.locator('.notifications-toasts .notification-toast');

/** The texts of the notification toasts on screen after `action`, once they have had time to appear. */
async function toastsAfter(page, action) {
	await page.evaluate(() => document.querySelectorAll('.notifications-toasts .notification-toast .codicon-notifications-clear').forEach(b => b.click()));
	await page.waitForTimeout(500);
	await action();
	await page.waitForTimeout(3000);
	return toasts(page).allInnerTexts();
}

/**
 * Text of the response out of sight in a box that scrolls sideways (a table's scroll wrapper, a
 * code block): what a reader would have to scroll to see. (VS Code's wrapper of a chat table is a
 * few pixels wider than the panel whatever the table holds; only text beyond its edge counts.)
 */
async function textOutOfSight(response) {
	return response.evaluate(root => {
		const out = [];
		for (const box of root.querySelectorAll('.rendered-markdown-table-scroll-wrapper, .rendered-markdown pre, .interactive-result-code-block')) {
			const visible = box.getBoundingClientRect();
			const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
			for (let node = walker.nextNode(); node; node = walker.nextNode()) {
				if (!node.textContent.trim()) continue;
				const range = document.createRange();
				range.selectNodeContents(node);
				const r = range.getBoundingClientRect();
				if (r.right > visible.right + 1)
					out.push(`${node.textContent.trim().slice(0, 40)}: ends at ${Math.round(r.right)}, the box at ${Math.round(visible.right)}`);
			}
		}
		return out;
	});
}

export const tests = [
	{
		name: '/context reads at the default chat width; a refused summary save shows one message and keeps the text',
		async run({ page, server, workspace }) {
			await summarizedLongSession(page, server, workspace);

			// 1. /context at the panel's default width.
			const context = await send(page, '@longhaul /context', { timeoutMs: 60_000 });
			// The screenshot shows the summary blocks and the start of the done-ledger.
			await scrollChatTo(page, context.response.locator('strong', { hasText: 'Summary blocks:' }).first());
			await page.waitForTimeout(500);
			await screenshot(page, 'e2e-context-narrow.png');
			const width = await context.response.evaluate(e => e.clientWidth);
			console.log(`    chat response width: ${width} px`);
			assert.equal(await context.response.locator('.interactive-result-code-block').count(), 0, 'no code block: the done-ledger reads as text');
			assert.deepEqual(await textOutOfSight(context.response), [], 'no text of /context is out of sight to the side');
			const headers = await context.response.locator('th').allInnerTexts();
			assert.ok(headers.length > 0 && headers.every(h => h.trim()), `every column is titled: ${JSON.stringify(headers)}`);
			assert.match(context.text, /Done-ledger/);
			// The long session reads the data file (it runs no command): the ledger lists it as a line of text.
			assert.match(context.text, /Files read \(\d+, newest first\):\s+long-session-data\.txt \(\d+ times\)/, 'the ledger’s entries are in view');
			assert.match(context.text, /[Mm]asking of old tool results is (on|off)/, 'it says whether masking is on');
			assert.doesNotMatch(context.text, /turn \d+, round|of this request\)/, 'places are named one way: request N, round M');

			// 2. The newest summary, opened from /context, emptied and saved: refused with one message, the text kept.
			// (The session's response locator now finds the newest response, /context's: open the summary from its link.)
			const link = context.response.locator('a', { hasText: /Summary up to|request \d+, rounds? / }).last();
			await link.scrollIntoViewIfNeeded();
			// The chat list may scroll the row away again while the pointer moves: a click on the element itself.
			await link.evaluate(a => a.click());
			const tab = page.locator('.tabs-container .tab', { hasText: 'Longhaul summary' }).first();
			await tab.waitFor({ state: 'visible', timeout: 15_000 });
			assert.match(await tab.innerText(), /request \d+, round \d+/, 'the tab names the place as /context does');
			const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
			await editor.waitFor({ state: 'visible', timeout: 15_000 });
			await editor.click();
			const lines = (await editor.innerText()).replace(/\u00a0/g, ' ').split('\n');
			assert.ok(
				lines.some(l => l.trim() === '---'),
				'the separator line is there',
			);
			// The summary is everything after the separator (line 5 of the document): go to line 6 and delete to the end.
			await page.keyboard.press('Control+G');
			await page.keyboard.type('6', { delay: 20 });
			await page.keyboard.press('Enter');
			await page.waitForTimeout(300);
			await page.keyboard.press('Control+Shift+End');
			await page.keyboard.press('Delete');
			// VS Code for the web saves after a delay by default: auto-save leaves the emptied text alone
			// (an error on it says why), so nothing appears until the user saves.
			const whileTyping = await toastsAfter(page, () => page.waitForTimeout(2500));
			assert.deepEqual(whileTyping, [], `auto-save shows nothing: ${JSON.stringify(whileTyping)}`);
			const refused = await toastsAfter(page, () => page.keyboard.press('Control+S'));
			await screenshot(page, 'e2e-summary-refused.png');
			console.log(`    refused save: ${JSON.stringify(refused)}`);
			assert.equal(refused.length, 1, `one message: ${JSON.stringify(refused)}`);
			assert.match(refused[0], /cannot be empty/, 'the message says why');
			assert.equal(await page.locator('.tabs-container .tab.dirty').count(), 1, 'the editor keeps the text, unsaved');

			// 3. Once fixed, the text is saved by the next auto-save, and the message says what happens next.
			const saved = await toastsAfter(page, () => page.keyboard.type('EDITED-BY-E2E: records 1 to 200 were read; nothing was changed.', { delay: 5 }));
			console.log(`    valid save: ${JSON.stringify(saved)}`);
			await page.waitForFunction(() => !document.querySelector('.tabs-container .tab.dirty'), undefined, { timeout: 15_000 });
			assert.equal(saved.length, 1, `one message: ${JSON.stringify(saved)}`);
			assert.match(saved[0], /from your next @longhaul request/i, 'the message says the edit is used from the next request on');
			await screenshot(page, 'e2e-summary-saved.png');
		},
	},
];
