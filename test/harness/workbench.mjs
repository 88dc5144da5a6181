// Opening the VS Code workbench served by code-server, and driving its Chat view like a person.
import { format } from 'node:util';
import { log } from './util.mjs';

const remote = path => `vscode-remote://remote${path}`;

/**
 * The workbench URL for `folder`. `payload` entries (for the smoke-test driver) are pairs such as
 * ['extensionDevelopmentPath', '/abs/dir']; paths are turned into vscode-remote URIs. The payload
 * may hold several extensionDevelopmentPath entries.
 */
export function workbenchUrl(server, { folder, payload } = {}) {
	const params = new URLSearchParams();
	if (folder) params.set('folder', folder);
	if (payload) params.set('payload', JSON.stringify(payload.map(([key, value]) => [key, value.startsWith('/') ? remote(value) : value])));
	return `${server.url}/?${params}`;
}

/**
 * Exposes codeAutomationLog/codeAutomationExit on the page (before navigation). Resolves the
 * returned promise with the exit code the workbench reports when the extension tests finish.
 */
export async function exposeAutomation(page, { onLog }) {
	let resolveExit;
	const exited = new Promise(r => {
		resolveExit = r;
	});
	await page.exposeFunction('codeAutomationLog', (type, args) => {
		onLog(type, Array.isArray(args) ? format(...args) : format(args));
	});
	await page.exposeFunction('codeAutomationExit', code => {
		resolveExit(typeof code === 'number' ? code : 1);
	});
	return exited;
}

/** Waits until the workbench shell is on screen. */
export async function waitForWorkbench(page, timeoutMs = 60_000) {
	await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
	log('workbench is up');
}

/** The chat input editor of the Chat view (opening the view if needed). */
export async function openChat(page) {
	const input = page.locator('.interactive-input-part .monaco-editor').first();
	if (!(await input.isVisible().catch(() => false))) {
		await runCommand(page, 'Chat: Open Chat');
	}
	await input.waitFor({ state: 'visible', timeout: 30_000 });
	return input;
}

/** Runs a command through the command palette, as a person would. */
export async function runCommand(page, label) {
	await page
		.locator('.monaco-workbench')
		.click({ position: { x: 600, y: 10 } })
		.catch(() => {});
	await page.keyboard.press('F1');
	const box = page.locator('.quick-input-widget input');
	await box.waitFor({ state: 'visible', timeout: 10_000 });
	await box.fill(`>${label}`);
	const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
	await row.waitFor({ state: 'visible', timeout: 10_000 });
	await page.keyboard.press('Enter');
}

/** Types a message into the chat input and sends it with Enter. */
export async function sendChatMessage(page, text) {
	const input = await openChat(page);
	// The editor's own text layer takes the click (its hidden textarea cannot be clicked).
	await input.click({ position: { x: 30, y: 10 } });
	await page.keyboard.type(text, { delay: 20 });
	await page.keyboard.press('Enter');
}

/** Waits until the Chat view's model picker shows `label` (the model requests will use). */
export async function waitForChatModel(page, label, timeoutMs = 30_000) {
	await page.locator('.interactive-input-part').getByText(label, { exact: true }).first().waitFor({ state: 'visible', timeout: timeoutMs });
}

/**
 * Waits for the newest chat response to finish (no longer loading) and returns its visible text.
 * Fails with the text shown so far if it does not finish within `timeoutMs`.
 */
export async function waitForChatResponse(page, timeoutMs = 60_000) {
	const response = page.locator('.interactive-item-container.interactive-response').last();
	await response.waitFor({ state: 'visible', timeout: timeoutMs });
	const deadline = Date.now() + timeoutMs;
	while (/\bchat-response-loading\b/.test((await response.getAttribute('class')) ?? '')) {
		if (Date.now() > deadline) {
			throw new Error(`the chat response did not finish within ${timeoutMs} ms; it shows: ${JSON.stringify(await response.innerText())}`);
		}
		await page.waitForTimeout(100);
	}
	return (await response.innerText()).trim();
}
