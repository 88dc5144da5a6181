// End-to-end: a person opens the workbench with the Longhaul VSIX and the scripted model
// installed, types `@longhaul hello` in the Chat view and reads the answer.
import assert from 'node:assert/strict';
import { screenshot } from '../harness/browser.mjs';
import { sendChatMessage, waitForChatModel, waitForChatResponse, waitForWorkbench, workbenchUrl } from '../harness/workbench.mjs';

export const tests = [
	{
		name: 'typing "@longhaul hello" in the Chat view shows the scripted model\'s reply',
		async run({ page, server, workspace }) {
			await page.goto(workbenchUrl(server, { folder: workspace }));
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted');
			await sendChatMessage(page, '@longhaul hello');
			const text = await waitForChatResponse(page);
			await screenshot(page, 'e2e-chat.png');
			assert.match(text, /Longhaul/, `the response should come from Longhaul; it shows: ${JSON.stringify(text)}`);
			assert.match(text, /Scripted reply to: hello/, `the response should hold the scripted reply; it shows: ${JSON.stringify(text)}`);
		},
	},
];
