// End-to-end: a person asks @longhaul for a command (the scripted model's RUN-COMMAND mode calls
// the command tool it was offered) and reads the confirmation in the Chat view: VS Code 1.139
// registers its own run_in_terminal, yet the confirmation is Longhaul's, titled with its sandbox,
// with the line that says what the sandbox contains. Allow runs it; the file it writes is there.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { screenshot } from '../harness/browser.mjs';
import { sendChatMessage, waitForChatModel, waitForChatResponse, waitForWorkbench, workbenchUrl } from '../harness/workbench.mjs';

const FILE = 'e2e-sandboxed.txt';

export const tests = [
	{
		name: "the agent's command shows Longhaul's confirmation with the sandbox line, and runs after Allow",
		async run({ page, server, workspace }) {
			await page.goto(workbenchUrl(server, { folder: workspace }), { timeout: 120_000 });
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted', 120_000);
			await sendChatMessage(page, `@longhaul RUN-COMMAND: echo written in the sandbox > ${FILE}`);
			// VS Code 1.139 shows a tool's confirmation in a widget above the chat input, not in the response.
			const title = page.getByText("Run command in Longhaul's sandbox?", { exact: true }).filter({ visible: true }).first();
			await title.waitFor({ state: 'visible', timeout: 60_000 });
			const widget = page.locator('div', { has: title }).filter({ hasText: 'Longhaul runs this command' }).last();
			const text = (await widget.innerText()).replace(/\s+/g, ' ');
			await screenshot(page, 'e2e-command-confirmation.png');
			assert.match(text, /Longhaul runs this command in its sandbox\. Sandboxed: writes only in the workspace and a temporary folder/, text.slice(0, 800));
			assert.match(text, /no network/, text.slice(0, 800));
			assert.doesNotMatch(text, /Run bash command\?|run_in_terminal/, 'VS Code’s own terminal confirmation must not be the one shown');
			console.log(
				`    confirmation: ${JSON.stringify(text.slice(text.indexOf('Longhaul runs this command'), text.indexOf('Longhaul runs this command') + 240))}`,
			);
			await widget
				.locator('.monaco-button', { hasText: /^Allow/ })
				.filter({ visible: true })
				.first()
				.click();
			const done = await waitForChatResponse(page, 60_000);
			assert.match(done, /The command finished: exit code 0/, done.slice(-600));
			assert.ok(existsSync(join(workspace, FILE)), 'the command should have written its file in the workspace');
			assert.equal(readFileSync(join(workspace, FILE), 'utf8'), 'written in the sandbox\n');
		},
	},
];
