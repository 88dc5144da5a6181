// End-to-end: the user in charge of what the agent remembers, by clicking through the Chat view.
// A long scripted session (the fixture's long-session mode, 16k window) summarizes; the status bar's
// context meter shows the share of the window and the summary block. The user opens the summary from
// the response's recap, edits it in the editor and saves; the next request's prompt (the scripted
// model's request log) holds the edited text. Then Restore: in the small window the rounds do not
// fit, the response says so and offers the newest rounds that do, and its button restores them; with
// a larger window, /restore brings every round of the block back, /context no longer lists it, and
// the next prompt holds those rounds word for word and only the blocks /context lists.
/* global document */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { screenshot } from '../harness/browser.mjs';
import { LONG_SESSION_MARKER as MARKER, newestResponseText, send, summarizedLongSession, waitForNewResponse } from './chatSession.mjs';

const EDIT = 'EDITED-BY-E2E: records 1 to 200 hold ten words each; nothing was changed.';
const SUMMARY_MESSAGE = '<conversation-summary>';

const requestsIn = file =>
	existsSync(file)
		? readFileSync(file, 'utf8')
				.split('\n')
				.filter(Boolean)
				.map(line => JSON.parse(line).request)
		: [];
const textOf = message => message.parts.map(p => (p.kind === 'text' ? p.value : p.kind === 'toolResult' ? p.text : '')).join('');
const isSummarizer = request => request.messages.some(m => textOf(m).includes('You write the memory of a long coding-agent session'));

/** The first agent request whose last message is the user's `text`: the prompt as the request started. */
function firstPromptOf(file, text) {
	const request = requestsIn(file).find(r => !isSummarizer(r) && textOf(r.messages.at(-1) ?? { parts: [] }).includes(text));
	assert.ok(request, `the model received no request for ${JSON.stringify(text)}`);
	return request;
}
const summariesOf = request => request.messages.map(textOf).filter(t => t.startsWith(SUMMARY_MESSAGE));

/** Clicks a button of the newest response and waits for the chat request it sends. */
async function clickAndWait(page, response, title) {
	const button = response.locator('.chat-command-button .monaco-button', { hasText: title }).last();
	await button.waitFor({ state: 'visible', timeout: 15_000 });
	const previous = await newestResponseText(page);
	await button.click();
	return waitForNewResponse(page, previous, { what: `the ${JSON.stringify(title)} button`, timeoutMs: 120_000 });
}

export const tests = [
	{
		name: 'the user edits a summary and the next prompt holds it; Restore brings the rounds back; the context meter shows in the status bar',
		async run({ page, server, workspace, requestLog }) {
			// 1. A session that summarizes; the context meter in the status bar.
			const first = await summarizedLongSession(page, server, workspace);
			const meter = page.locator('.statusbar-item', { hasText: /\d+% · [1-9]\d* summar(y|ies)/ }).first();
			await meter.waitFor({ state: 'visible', timeout: 15_000 });
			console.log(`    status bar: ${JSON.stringify((await meter.innerText()).trim())}`);
			await screenshot(page, 'e2e-context-meter.png');

			// 2. Open the newest summary from the recap, edit it, save.
			await first.response
				.locator('.chat-command-button .monaco-button', { hasText: /^Open summary/ })
				.last()
				.click();
			const tab = page.locator('.tabs-container .tab', { hasText: 'Longhaul summary' }).first();
			await tab.waitFor({ state: 'visible', timeout: 15_000 });
			const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
			await editor.waitFor({ state: 'visible', timeout: 15_000 });
			// The editor wraps long lines: read its text as one line of words.
			assert.match((await editor.innerText()).replace(/\s+/g, ' '), /edit the text below the line and save/);
			await editor.click();
			await page.keyboard.press('Control+End');
			await page.keyboard.press('Enter');
			await page.keyboard.type(EDIT, { delay: 5 });
			await page.keyboard.press('Control+S');
			await page.waitForFunction(() => !document.querySelector('.tabs-container .tab.dirty'), undefined, { timeout: 15_000 });
			await screenshot(page, 'e2e-summary-edited.png');
			await page.keyboard.press('Control+W');

			// 3. The next request's prompt holds the edited text.
			await send(page, `@longhaul ${MARKER} go on with the file`, { timeoutMs: 240_000 });
			const edited = summariesOf(firstPromptOf(requestLog, 'go on with the file'));
			assert.ok(
				edited.some(s => s.includes(EDIT)),
				`the next prompt holds the edited summary: ${edited.map(s => s.slice(0, 200)).join(' | ')}`,
			);
			console.log(`    the next prompt holds the edit in one of its ${edited.length} summary block(s)`);

			// 4. Restore, from the recap's button: right after a long request the window is full, so
			// nothing fits. With a somewhat larger window /restore offers the newest rounds that fit,
			// and the offer's button restores them.
			const full = await clickAndWait(page, page.locator('.interactive-item-container.interactive-response').last(), 'Restore newest summary');
			assert.match(full.text, /Nothing was restored\. Bringing back the \d+ rounds of the summary up to/, full.text.slice(0, 500));
			assert.match((await send(page, `@longhaul ${MARKER} window 24000`, { timeoutMs: 30_000 })).text, /window set to 24000/);
			await page.waitForTimeout(1500);
			const refused = await send(page, '@longhaul /restore', { timeoutMs: 60_000 });
			assert.match(refused.text, /Nothing was restored\..*The newest \d+ rounds? fit/s, refused.text.slice(0, 600));
			const partial = await clickAndWait(page, refused.response, /^Restore the newest \d+ rounds?$/);
			assert.match(partial.text, /Restored the newest \d+ of the \d+ rounds/, partial.text.slice(0, 500));

			// 5. A larger window: /restore brings the whole block back, and /context no longer lists it.
			assert.match((await send(page, `@longhaul ${MARKER} window 128000`, { timeoutMs: 30_000 })).text, /window set to 128000/);
			await page.waitForTimeout(1500);
			const before = await send(page, '@longhaul /context', { timeoutMs: 60_000 });
			const blocksBefore = Number(/Summaries \((\d+) blocks?\)/.exec(before.text)?.[1]);
			const restored = await send(page, '@longhaul /restore', { timeoutMs: 60_000 });
			assert.match(restored.text, /Restored the \d+ rounds? of the summary up to/, restored.text.slice(0, 500));
			const after = await send(page, '@longhaul /context', { timeoutMs: 60_000 });
			const blocksAfter = Number(/Summaries \((\d+) blocks?\)/.exec(after.text)?.[1]);
			assert.equal(blocksAfter, blocksBefore - 1, `/context lists one block less: ${blocksBefore} → ${blocksAfter}`);
			await screenshot(page, 'e2e-restored.png');

			// 6. The next prompt holds no summary of that request, and its rounds word for word.
			await send(page, `@longhaul ${MARKER} after the restore`, { timeoutMs: 240_000 });
			const prompt = firstPromptOf(requestLog, 'after the restore');
			assert.equal(summariesOf(prompt).length, blocksAfter, 'the prompt holds only the blocks /context lists');
			assert.ok(
				prompt.messages.some(m => m.parts.some(p => p.kind === 'toolResult' && /record \d{4}: alpha/.test(p.text))),
				'the restored rounds are back with their tool results',
			);
		},
	},
];
