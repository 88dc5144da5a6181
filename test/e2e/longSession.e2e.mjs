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
import { waitForChatModel, waitForWorkbench, workbenchUrl } from '../harness/workbench.mjs';
import { DATA_FILE, dataFileContent, send } from './chatSession.mjs';

const MARKER = 'LONG-SESSION-E2E';
const NOTICE = /Summarized (\d+) older rounds?, kept (\d+) recent rounds? verbatim \((legacy|half-context)/;

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
			await session.response
				.getByText(NOTICE)
				.first()
				.scrollIntoViewIfNeeded()
				.catch(() => {});
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
