// End-to-end: the agent's final answer is in view without unfolding anything. VS Code 1.139 folds a
// finished response into "Completed N steps" up to what it takes for the final answer
// (src/common/response/finalAnswer.ts). A long scripted session (the fixture's long-session mode,
// 30 tool calls in a 16k window, so it summarizes) is sent with each combination of what can follow
// the answer, and the response's visible text (only text laid out on the page, nothing inside the
// closed fold) must hold the answer and what follows it:
//   1. the token line on (longhaul.showTokenCount), summaries with their recap and buttons;
//   2. the same, stopped at the tool-call limit (the stop notice is the answer then);
//   3. the token line off, background summaries from 30% of the window on.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { screenshot } from '../harness/browser.mjs';
import { waitForChatModel, waitForWorkbench, workbenchUrl } from '../harness/workbench.mjs';
import { DATA_FILE, dataFileContent, send, setUserSettings, visibleResponseText, writeUserSettings } from './chatSession.mjs';

const MARKER = 'LONG-SESSION-E2E';
const ANSWER = 'Long session finished after 30 tool calls.';
const RECAP = /This response summarized the conversation (once|\d+ times)/;
const TOKEN_LINE = /Prompt: [\d,]+ of [\d,]+ tokens \(\d+%\)/;

async function checkVisible(page, label, response, expected, absent = []) {
	const seen = await visibleResponseText(response);
	console.log(`    ${label}: fold ${JSON.stringify(seen.folded)}; in view: …${JSON.stringify(seen.text.slice(-260))}`);
	assert.ok(seen.folded, `${label}: VS Code should fold the steps (otherwise this checks nothing): ${seen.text.slice(0, 300)}`);
	assert.equal(seen.foldOpen, false, `${label}: the fold is closed`);
	for (const pattern of expected) {
		assert.ok(
			typeof pattern === 'string' ? seen.text.includes(pattern) : pattern.test(seen.text),
			`${label}: ${pattern} should be in view without unfolding; in view: ${JSON.stringify(seen.text.slice(-600))}`,
		);
	}
	for (const pattern of absent) assert.doesNotMatch(seen.text, pattern, `${label}: ${pattern} should not be shown`);
	return seen;
}

export const tests = [
	{
		name: 'the final answer is in view without unfolding: token line, recap and buttons, stop notice, background summaries',
		async run({ page, server, workspace }) {
			writeFileSync(join(workspace, DATA_FILE), dataFileContent());
			// Read by the workbench when it loads.
			writeUserSettings(server, { 'longhaul.showTokenCount': true, 'longhaul.backgroundSummarizationThreshold': 0 });
			await page.goto(workbenchUrl(server, { folder: workspace }), { timeout: 120_000 });
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted', 120_000);
			const setup = await send(page, `@longhaul ${MARKER} setup`, { timeoutMs: 30_000 });
			assert.match(setup.text, /long-session mode, window set to/);
			await page.waitForTimeout(1500); // the new window travels to the workbench's model list

			// 1. Token line on, a summarizing request: answer, recap, token line, then the buttons.
			const first = await send(page, `@longhaul ${MARKER} read the data file piece by piece`, { timeoutMs: 240_000 });
			await checkVisible(page, 'token line on', first.response, [ANSWER, RECAP, TOKEN_LINE]);
			const button = first.response.locator('.chat-command-button .monaco-button', { hasText: /^Open summary/ }).last();
			assert.ok(await button.isVisible(), 'the recap buttons are in view too');
			await screenshot(page, 'e2e-final-answer-token-line.png');

			// 2. Stopped at the tool-call limit: the stop notice, the recap and the token line are in view.
			await setUserSettings(page, server, { 'longhaul.maxToolCallsPerRequest': 20 });
			const second = await send(page, `@longhaul ${MARKER} read it once more`, { timeoutMs: 240_000 });
			await checkVisible(page, 'stopped at the limit', second.response, [/Stopped after 20 tool calls/, RECAP, TOKEN_LINE]);

			// 3. Token line off, background summaries (one may still run when the answer comes).
			await setUserSettings(page, server, {
				'longhaul.maxToolCallsPerRequest': 200,
				'longhaul.showTokenCount': false,
				'longhaul.backgroundSummarizationThreshold': 30,
			});
			const third = await send(page, `@longhaul ${MARKER} and read it a third time`, { timeoutMs: 240_000 });
			await checkVisible(page, 'token line off, background summaries', third.response, [ANSWER, RECAP], [TOKEN_LINE]);
			await screenshot(page, 'e2e-final-answer-background.png');
		},
	},
];
