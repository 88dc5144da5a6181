// Shared by the e2e tests that drive a long scripted session in the Chat view (not a test itself:
// run-e2e.mjs runs only *.e2e.mjs): the data file the fixture's long-session mode reads, and
// sending a message and waiting for its response.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openChat, runCommand, waitForChatModel, waitForWorkbench, workbenchUrl } from '../harness/workbench.mjs';

export const DATA_FILE = 'long-session-data.txt';

/** The message prefix that switches the scripted model into its long-session mode. */
export const LONG_SESSION_MARKER = 'LONG-SESSION-E2E';

/**
 * Opens the workspace with the data file, switches the scripted model to its long-session mode and
 * sends the request that reads the file piece by piece until Longhaul summarizes; answers that
 * request's `send` result.
 */
export async function summarizedLongSession(page, server, workspace) {
	writeFileSync(join(workspace, DATA_FILE), dataFileContent());
	await page.goto(workbenchUrl(server, { folder: workspace }), { timeout: 120_000 });
	await waitForWorkbench(page);
	await waitForChatModel(page, 'Scripted', 120_000);
	const setup = await send(page, `@longhaul ${LONG_SESSION_MARKER} setup`, { timeoutMs: 30_000 });
	if (!/long-session mode, window set to/.test(setup.text)) throw new Error(`the scripted model did not switch to its long-session mode: ${setup.text}`);
	await page.waitForTimeout(1500);
	const first = await send(page, `@longhaul ${LONG_SESSION_MARKER} read the data file piece by piece`, { timeoutMs: 240_000 });
	if (!/This response summarized the conversation/.test(first.text)) throw new Error(`the long session did not summarize: ${first.text.slice(-400)}`);
	return first;
}

/** The same numbered lines the integration tests read (test/integration/sessionScript.ts dataFileContent). */
export function dataFileContent() {
	const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
	const lines = [];
	for (let i = 1; i <= 200; i++) lines.push(`record ${String(i).padStart(4, '0')}: ${words.map((w, j) => `${w}${(i * 7 + j) % 100}`).join(' ')}`);
	return lines.join('\n') + '\n';
}

const responses = page => page.locator('.interactive-item-container.interactive-response');

/**
 * Sends `text` and waits for its response to finish; calls `onProgress(text)` with the response's
 * visible text while it loads. Returns the response's locator and its final visible text.
 */
export async function send(page, text, { timeoutMs = 120_000, onProgress } = {}) {
	// The chat list is virtualized (rows scrolled away leave the DOM), so rows are found from the
	// end: the newest response is ours once it differs from the one shown before sending.
	const previous = (await responses(page).count())
		? await responses(page)
				.last()
				.innerText()
				.catch(() => '')
		: undefined;
	// Like sendChatMessage, but clears what the input holds first (the Chat view keeps `@longhaul`).
	const input = await openChat(page);
	await input.click({ position: { x: 30, y: 10 } });
	await page.keyboard.press('Control+A');
	await page.keyboard.press('Backspace');
	await page.keyboard.type(text, { delay: 10 });
	await page.keyboard.press('Enter');
	// After a slash command the suggestion list may still be open: the first Enter only accepts it.
	await page.waitForTimeout(500);
	if ((await input.innerText().catch(() => '')).includes(text.split(' ').pop())) await page.keyboard.press('Enter');
	return waitForNewResponse(page, previous, { timeoutMs, onProgress, what: JSON.stringify(text) });
}

/** The visible text of the newest response now (before an action that adds one). */
export async function newestResponseText(page) {
	return (await responses(page).count())
		? await responses(page)
				.last()
				.innerText()
				.catch(() => '')
		: undefined;
}

/**
 * Waits for a new response after `previous` (the newest response's text before the action, see
 * {@link newestResponseText}) and for it to finish.
 */
export async function waitForNewResponse(page, previous, { timeoutMs = 120_000, onProgress, what = 'the action' } = {}) {
	const text = what;
	const deadline = Date.now() + timeoutMs;
	const response = responses(page).last();
	for (;;) {
		if (Date.now() > deadline) throw new Error(`no response to ${text} within ${timeoutMs} ms`);
		if ((await responses(page).count()) > 0) {
			const loading = /\bchat-response-loading\b/.test((await response.getAttribute('class').catch(() => '')) ?? '');
			if (previous === undefined || loading || (await response.innerText().catch(() => previous)) !== previous) break;
		}
		await page.waitForTimeout(50);
	}
	while (/\bchat-response-loading\b/.test((await response.getAttribute('class')) ?? '')) {
		if (Date.now() > deadline)
			throw new Error(`the response to ${text} did not finish within ${timeoutMs} ms; it shows: ${JSON.stringify(await response.innerText())}`);
		onProgress?.(await response.innerText().catch(() => ''));
		await page.waitForTimeout(50);
	}
	return { response, text: (await response.innerText()).trim() };
}

/**
 * Waits until VS Code has written the chat session with `text` in it (workspaceStorage/…/chatSessions),
 * so that a reload right after finds the newest response. VS Code stores sessions on its own
 * schedule; a reload before that loses the newest responses, which is VS Code's persistence, not
 * Longhaul's. Gives up after `timeoutMs` and lets the caller's own check report what is missing.
 */
export async function waitForStoredChat(page, userDataDir, text, timeoutMs = 30_000) {
	const root = join(userDataDir, 'User', 'workspaceStorage');
	const stored = () => {
		if (!existsSync(root)) return false;
		for (const workspace of readdirSync(root)) {
			const sessions = join(root, workspace, 'chatSessions');
			if (!existsSync(sessions)) continue;
			for (const file of readdirSync(sessions)) if (readFileSync(join(sessions, file), 'utf8').includes(text)) return true;
		}
		return false;
	};
	const until = Date.now() + timeoutMs;
	while (Date.now() < until && !stored()) await page.waitForTimeout(500);
}

/**
 * Sets user settings as a person would, in the settings.json editor (the workbench does not notice
 * a settings file written behind its back once it runs; before the page loads, writing the file is
 * enough: see {@link writeUserSettings}).
 */
export async function setUserSetting(page, server, key, value) {
	await setUserSettings(page, server, { [key]: value });
}

export async function setUserSettings(page, server, values) {
	const file = join(server.dirs.userData, 'User', 'settings.json');
	const settings = { ...JSON.parse(readFileSync(file, 'utf8')), ...values };
	await runCommand(page, 'Preferences: Open User Settings (JSON)');
	// VS Code 1.139 opens it in a modal editor, not a tab.
	const editor = page.locator('.monaco-editor .view-lines', { hasText: 'telemetry.telemetryLevel' }).first();
	await editor.waitFor({ state: 'visible', timeout: 15_000 });
	await editor.click();
	await page.keyboard.press('Control+A');
	await page.keyboard.insertText(JSON.stringify(settings, null, 2));
	// The editor may close the opening brace on its own: whatever follows the cursor goes.
	await page.keyboard.press('Control+Shift+End');
	await page.keyboard.press('Delete');
	await page.keyboard.press('Control+S');
	const saved = () => {
		try {
			const now = JSON.parse(readFileSync(file, 'utf8'));
			return Object.entries(values).every(([key, value]) => JSON.stringify(now[key]) === JSON.stringify(value));
		} catch {
			return false;
		}
	};
	const deadline = Date.now() + 15_000;
	while (!saved()) {
		if (Date.now() > deadline) throw new Error(`timed out saving the settings ${Object.keys(values).join(', ')}`);
		await page.waitForTimeout(250);
	}
	await page.keyboard.press('Escape');
	await page.keyboard.press('Control+W');
	await page.waitForTimeout(1500);
}

/** Adds `values` to the user settings file; only before the workbench loads (it reads the file at startup). */
export function writeUserSettings(server, values) {
	const file = join(server.dirs.userData, 'User', 'settings.json');
	writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), ...values }, null, 2));
}

/**
 * The text of a chat response as a person sees it: only text that is laid out on the page, so
 * whatever VS Code folded into a closed "Completed N steps" is left out. Also says whether the
 * response was folded and what the fold's label says. VS Code folds a response only once its last
 * text has finished rendering, some time after the response completes: this waits until three
 * readings half a second apart agree.
 */
export async function visibleResponseText(response, { settleMs = 15_000 } = {}) {
	const deadline = Date.now() + settleMs;
	let last;
	let same = 0;
	for (;;) {
		const seen = await readVisible(response);
		same = last && JSON.stringify(seen) === JSON.stringify(last) ? same + 1 : 0;
		last = seen;
		if (same >= 2 || Date.now() > deadline) return seen;
		await response.page().waitForTimeout(500);
	}
}

function readVisible(response) {
	// Runs in the page.
	/* global document, NodeFilter */
	return response.evaluate(root => {
		const shown = [];
		const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
		for (let node = walker.nextNode(); node; node = walker.nextNode()) {
			if (!node.textContent.trim()) continue;
			// A closed <details> keeps its content laid out (content-visibility: hidden): only its <summary> shows.
			const closed = node.parentElement?.closest('details:not([open])');
			if (closed && !node.parentElement.closest('summary')) continue;
			if (node.parentElement && !node.parentElement.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true, opacityProperty: true })) continue;
			const range = document.createRange();
			range.selectNodeContents(node);
			const box = range.getClientRects();
			if (box.length > 0 && [...box].some(r => r.width > 0 && r.height > 0)) shown.push(node.textContent);
		}
		const fold = root.querySelector('details.completed-response-disclosure');
		return {
			text: shown.join(' ').replace(/\s+/g, ' ').trim(),
			folded: fold ? (fold.querySelector('summary')?.textContent ?? '').trim() : undefined,
			foldOpen: fold ? fold.open : undefined,
		};
	});
}

/** Scrolls the chat (a list with its own scrolling) until `target` is in view. */
export async function scrollChatTo(page, target) {
	const list = page.locator('.interactive-list').first();
	const box = await list.boundingBox().catch(() => null);
	if (!box) return;
	await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
	for (let i = 0; i < 40; i++) {
		const at = await target.boundingBox();
		if (at && at.y >= box.y && at.y + 20 <= box.y + box.height / 2) return;
		await page.mouse.wheel(0, at && at.y < box.y ? -150 : 150);
		await page.waitForTimeout(150);
	}
}
