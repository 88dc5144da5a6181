// npm run demo            VS Code in the browser with Longhaul and a scripted test model; Ctrl-C stops it
// npm run demo -- --check start, load the workbench in headless Chromium, ask `@longhaul hello`,
//                         check the answer, stop (a quick smoke test); with --replay also play
//                         the recorded session the instructions name and check it summarizes; with --command
//                         also ask for a command and check Longhaul's confirmation and its sandbox line
// Installs what it needs once per machine (Node 24, code-server; see test/harness/install.mjs),
// packages the VSIX, installs it and the scripted-model fixture into a throwaway code-server that
// listens on 127.0.0.1 only (port: $PORT, else a free one) with a copy of test/fixtures/workspace.
// The scripted model can also replay a recorded session of the corpus ($LONGHAUL_CORPUS, else
// ../shared/corpus next to the repository): see the printed instructions.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchBrowser, screenshot } from '../test/harness/browser.mjs';
import { packageExtension, packageFixture } from '../test/harness/build.mjs';
import { ensureTestHost } from '../test/harness/install.mjs';
import { runMain } from '../test/harness/processes.mjs';
import { installExtensions, makeServerDirs, startCodeServer } from '../test/harness/server.mjs';
import { log, repoRoot } from '../test/harness/util.mjs';
import { sendChatMessage, waitForChatModel, waitForChatResponse, waitForWorkbench, workbenchUrl } from '../test/harness/workbench.mjs';
import { copyWorkspace } from '../test/harness/workspace.mjs';

const check = process.argv.includes('--check');
/** The message that makes the scripted model ask for a command (test/fixtures/scripted-model/src/runCommandMode.ts). */
const RUN_COMMAND = 'RUN-COMMAND: ls -la && echo written in the sandbox > demo-command.txt';

async function main() {
	const host = await ensureTestHost();
	const vsix = await packageExtension();
	const fixtureVsix = await packageFixture(join(repoRoot, 'out', 'fixtures'));
	const dirs = makeServerDirs('demo');
	await installExtensions(host, dirs, [vsix, fixtureVsix]);
	const workspace = copyWorkspace(dirs.root);
	const port = process.env.PORT ? Number(process.env.PORT) : undefined;
	const corpus = resolve(process.env.LONGHAUL_CORPUS ?? join(repoRoot, '..', 'shared', 'corpus'));
	const sessions = existsSync(corpus)
		? readdirSync(corpus)
				.filter(f => f.endsWith('.json'))
				.map(f => f.replace(/\.json$/, ''))
		: [];
	const server = await startCodeServer(host, { name: 'demo', dirs, workspace, port, env: { LONGHAUL_CORPUS: corpus } });
	const url = workbenchUrl(server, { folder: workspace });

	if (check) {
		const { page } = await launchBrowser();
		await page.goto(url);
		await waitForWorkbench(page);
		await waitForChatModel(page, 'Scripted');
		await sendChatMessage(page, '@longhaul hello');
		const text = await waitForChatResponse(page);
		await screenshot(page, 'demo-check.png');
		if (!text.includes('Scripted reply to: hello')) {
			throw new Error(`@longhaul did not answer as expected; the response shows: ${JSON.stringify(text)}`);
		}
		console.log('demo check: ok (workbench loaded, @longhaul answered with the scripted model)');
		if (process.argv.includes('--replay') && sessions.length) {
			// What the printed instructions tell a user to do: the marker twice, then watch it play.
			const name = sessions.includes('msa-marshmallow-1343-dschat') ? 'msa-marshmallow-1343-dschat' : sessions[0];
			await sendChatMessage(page, `@longhaul LONGHAUL-REPLAY ${name}`);
			const first = await waitForChatResponse(page);
			if (!/window set to/.test(first))
				throw new Error(`the first replay message should switch the window; the response shows: ${JSON.stringify(first.slice(0, 300))}`);
			await page.waitForTimeout(1500); // the new window reaches the workbench's model list
			await sendChatMessage(page, `@longhaul LONGHAUL-REPLAY ${name}`);
			const played = await waitForChatResponse(page, 10 * 60_000);
			await screenshot(page, 'demo-check-replay.png');
			// VS Code 1.139 folds the summarization notices into "Completed N steps"; the recap after
			// the final answer says how often the response summarized.
			if (!/Summarized \d+ older rounds?|This response summarized the conversation (once|\d+ times)/.test(played))
				throw new Error(`the replay should summarize; the response ends with: ${JSON.stringify(played.slice(-400))}`);
			console.log(`demo check: ok (the replay of ${name} played in the Chat view, summarizations included)`);
		}
		if (process.argv.includes('--command')) {
			// What the printed instructions tell a user to do to see a command's confirmation.
			await sendChatMessage(page, `@longhaul ${RUN_COMMAND}`);
			const title = page.getByText("Run command in Longhaul's sandbox?", { exact: true }).filter({ visible: true }).first();
			await title.waitFor({ state: 'visible', timeout: 60_000 });
			const widget = page.locator('div', { has: title }).filter({ hasText: 'Longhaul runs this command' }).last();
			const text = (await widget.innerText()).replace(/\s+/g, ' ');
			await screenshot(page, 'demo-check-command.png');
			if (!/Longhaul runs this command in its sandbox\./.test(text))
				throw new Error(`the confirmation should name Longhaul's sandbox; it shows: ${text.slice(0, 500)}`);
			await widget
				.locator('.monaco-button', { hasText: /^Allow/ })
				.filter({ visible: true })
				.first()
				.click();
			const ran = await waitForChatResponse(page, 60_000);
			if (!/The command finished: exit code 0/.test(ran)) throw new Error(`the command should run; the response ends with: ${JSON.stringify(ran.slice(-400))}`);
			console.log("demo check: ok (the agent's command showed Longhaul's sandboxed confirmation and ran after Allow)");
		}
		return 0;
	}

	console.log(`
Longhaul demo is running. Open this in a browser on this machine:

  ${url}

Then open the Chat view (the chat icon in the title bar, or Ctrl+Alt+I), make sure the model
picker under the input says "Scripted", and type:

  @longhaul hello

The "Scripted" model is a test model: it answers "Scripted reply to: <your message>".

To see the agent run a command, and the confirmation that says where it runs (Longhaul's sandbox
where bubblewrap works, with what the sandbox keeps out of reach), type:

  @longhaul ${RUN_COMMAND}

The test model calls the command tool it was offered with everything after "RUN-COMMAND:";
press Allow, and the command's output is in the "Longhaul" terminal.
${
	sessions.length
		? `
To watch a recorded agent session play out (a real session of the corpus, its tool calls and
results replayed through @longhaul in a 16k window, summarizations included), start a new chat
and type, twice (the first time switches the model's window to 16k tokens):

  @longhaul LONGHAUL-REPLAY ${sessions.includes('msa-marshmallow-1343-dschat') ? 'msa-marshmallow-1343-dschat' : sessions[0]}

The answer plays the session's first recorded request, every round of it; in sessions with more
requests each further message in that chat plays the next one. Once every recorded request is
played, a further message in that chat only says that the replay has ended: start a new chat to
play it again. The window stays at 16k for the rest of the demo, so in a new chat the first message
starts the replay at once, and typing it twice there plays the first request and then the next one
(or, for a one-request session, says the replay has ended). In a chat already near 16k, Longhaul
summarizes older rounds before it answers a further message; the test model writes those summaries
from the recording, in every request as in the first. Other sessions: ${sessions.join(', ')}.
Toggle "Longhaul: Half Context Summarization" in the settings to compare the two modes, and
type @longhaul /context at any point to see what fills the window.
`
		: `
(No recorded sessions found in ${corpus}: set LONGHAUL_CORPUS to replay one.)
`
}
The workspace is a throwaway copy in ${workspace}.
Press Ctrl-C to stop.
`);
	await new Promise(() => {}); // until Ctrl-C; runMain cleans up
}

runMain('demo', main, {
	signalExitCode: 0,
	timeoutMs: check ? 5 * 60 * 1000 : undefined,
	onFailure: () => log('demo failed; nothing is left running'),
});
