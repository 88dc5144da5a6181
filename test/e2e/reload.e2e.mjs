// End-to-end, issue 6 fault 8: the window reloads in the middle of a long session. A session that
// summarized (the scripted model's long-session mode, see longSession.e2e.mjs) is followed by
// Developer: Reload Window, which restarts the extension host. The next request must rebuild the conversation
// from the metadata VS Code stored: the same /context breakdown as before the reload, and a prompt
// that holds the stored summaries, the rounds kept verbatim, and every user request. Prompts are
// read from the scripted model's request log file (LONGHAUL_FIXTURE_REQUEST_LOG, set by run-e2e.mjs).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { screenshot } from '../harness/browser.mjs';
import { resultsDir } from '../harness/util.mjs';
import { openChat, runCommand, waitForChatModel, waitForWorkbench, workbenchUrl } from '../harness/workbench.mjs';
import { DATA_FILE, dataFileContent, send as sendAndWait, waitForStoredChat } from './chatSession.mjs';

/** The response's visible text. */
const send = async (page, text, timeoutMs) => (await sendAndWait(page, text, { timeoutMs })).text;

const MARKER = 'LONG-SESSION-E2E';
const SETUP = `${MARKER} setup`;
const SESSION = `${MARKER} read the data file piece by piece`;
const AFTER = `${MARKER} after the reload RELOAD-FOLLOWUP`;

/** The scripted model's requests so far: { at, request } per line. */
function readRequestLog(file) {
	if (!existsSync(file)) return [];
	return readFileSync(file, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map(line => JSON.parse(line));
}

const partsOf = request => request.messages.flatMap(m => m.parts.map(p => ({ ...p, role: m.role })));
const allText = request =>
	partsOf(request)
		.map(p => (p.kind === 'text' ? p.value : p.kind === 'toolResult' ? p.text : ''))
		.join('\n');
const userText = request =>
	partsOf(request)
		.filter(p => p.role === 'user' && p.kind === 'text')
		.map(p => p.value)
		.join('\n');
const isSummarizer = request => allText(request).includes('You write the memory of a long coding-agent session');
const summaryNumbers = text => [...new Set([...text.matchAll(/SUMMARY-(\d+):/g)].map(m => Number(m[1])))].sort((a, b) => a - b);
const toolCalls = request =>
	partsOf(request)
		.filter(p => p.kind === 'toolCall')
		.map(p => p.callId);
const toolResultsById = request =>
	new Map(
		partsOf(request)
			.filter(p => p.kind === 'toolResult')
			.map(p => [p.callId, p.text]),
	);

/** The rows of a /context table that depend only on the stored conversation, not on the window. */
function conversationRows(contextText) {
	const row = label => {
		const line = contextText.split('\n').find(l => l.includes(label));
		assert.ok(line, `/context shows no "${label}" row: ${JSON.stringify(contextText.slice(0, 800))}`);
		return line
			.replace(/\s+\d+(\.\d+)?%\s*$/, '')
			.replace(/\s+/g, ' ')
			.trim();
	};
	return { summaries: row('Summaries'), rounds: row('Verbatim rounds'), requests: row('User requests') };
}

export const tests = [
	{
		name: 'after a window reload in a long session, the next request rebuilds history, summaries and kept rounds from the stored metadata',
		async run({ page, server, workspace, requestLog }) {
			assert.ok(requestLog, "run-e2e.mjs should pass the scripted model's request log file");
			writeFileSync(join(workspace, DATA_FILE), dataFileContent());
			const url = workbenchUrl(server, { folder: workspace });
			await page.goto(url);
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted');

			assert.match(await send(page, `@longhaul ${SETUP}`, 30_000), /long-session mode, window set to/);
			await page.waitForTimeout(1500); // the new window reaches the workbench's model list
			const session = await send(page, `@longhaul ${SESSION}`);
			assert.match(session, /Long session finished after 30 tool calls\./, 'the session should run to its end');
			const contextBefore = await send(page, '@longhaul /context', 30_000);

			const beforeReload = readRequestLog(requestLog);
			const sessionAgent = beforeReload.map(e => e.request).filter(r => !isSummarizer(r) && userText(r).includes(SESSION));
			const last = sessionAgent[sessionAgent.length - 1];
			assert.ok(last, "the request log should hold the session's agent requests");
			const summariesBefore = summaryNumbers(allText(last));
			assert.ok(summariesBefore.length >= 1, "the session's last prompt should carry a summary (the session must have summarized)");
			const keptCalls = toolCalls(last);
			assert.ok(keptCalls.length >= 1, "the session's last prompt should keep some rounds verbatim");
			const keptResults = toolResultsById(last);
			const summaryText = n => {
				const line = allText(last)
					.split('\n')
					.find(l => l.includes(`SUMMARY-${n}:`));
				return line
					.slice(line.indexOf(`SUMMARY-${n}:`))
					.replace(/<\/summary>.*$/, '')
					.trim();
			};
			const storedSummaries = summariesBefore.map(summaryText);

			// The reload: the extension host (Longhaul and the scripted model) restarts.
			const reloadedAt = Date.now();
			// Through the command, as a person would: a graceful shutdown lets the workbench store the
			// chat session first (a bare page reload may lose its newest responses, which is VS Code's
			// persistence, not Longhaul's).
			await waitForStoredChat(page, server.dirs.userData, 'Summarization mode:');
			await Promise.all([page.waitForEvent('load', { timeout: 60_000 }), runCommand(page, 'Developer: Reload Window')]);
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted');
			await openChat(page);
			// The chat list is virtualized and restored scrolled to the end: look for the newest response (/context's).
			await page
				.getByText(/Summarization mode:/)
				.first()
				.waitFor({ state: 'attached', timeout: 30_000 })
				.catch(() => {
					throw new Error('the chat session was not restored after the reload');
				});

			const contextAfter = await send(page, '@longhaul /context', 30_000);
			assert.deepStrictEqual(
				conversationRows(contextAfter),
				conversationRows(contextBefore),
				'/context after the reload should show the same summaries, verbatim rounds and user requests as before',
			);

			await send(page, `@longhaul ${AFTER}`, 30_000);
			await screenshot(page, 'e2e-reload.png');
			const afterReload = readRequestLog(requestLog)
				.filter(e => e.at >= reloadedAt)
				.map(e => e.request);
			const next = afterReload.find(r => !isSummarizer(r) && userText(r).includes('RELOAD-FOLLOWUP'));
			assert.ok(next, 'the model should have received the request sent after the reload');
			const text = allText(next);
			for (const request of [SETUP, SESSION, AFTER]) {
				assert.ok(userText(next).includes(request), `the prompt after the reload should hold the user request ${JSON.stringify(request)}`);
			}
			for (const summary of storedSummaries) {
				assert.ok(text.includes(summary), `the prompt after the reload should hold the stored summary ${JSON.stringify(summary.slice(0, 60))}`);
			}
			const nextResults = toolResultsById(next);
			for (const id of keptCalls) {
				assert.ok(toolCalls(next).includes(id), `the kept round with call ${id} should be verbatim after the reload`);
				assert.equal(nextResults.get(id), keptResults.get(id), `call ${id} should keep its result after the reload`);
			}
			assert.ok(
				!toolCalls(next).some(id => !keptCalls.includes(id)),
				`no round the summaries absorbed may come back verbatim: ${toolCalls(next)
					.filter(id => !keptCalls.includes(id))
					.join(', ')}`,
			);
			assert.match(text, /Long session finished after 30 tool calls\./, 'the final answer of the session is in the prompt');

			const result = {
				id: '8',
				fault: 'the window reloads after a long session that summarized',
				test: 'test/e2e/reload.e2e.mjs › after a window reload in a long session, the next request rebuilds…',
				survived: true,
				requestsLost: 0,
				detail: `summaries ${summariesBefore.map(n => `SUMMARY-${n}`).join(', ')} and ${keptCalls.length} verbatim call(s) rebuilt after the reload; /context rows identical; all 3 user requests in the prompt`,
				at: new Date().toISOString(),
			};
			mkdirSync(resultsDir, { recursive: true });
			writeFileSync(join(resultsDir, 'fault-results-e2e.json'), JSON.stringify({ [result.id]: result }, null, 2) + '\n');
			console.log(`    ${result.detail}`);
		},
	},
];
