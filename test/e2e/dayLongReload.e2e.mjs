// End-to-end, issue 14: the day-long chat survives a window reload in order. Three recorded corpus
// sessions are replayed as one chat through the Chat view (the fixture's marker mode:
// `LONGHAUL-REPLAY a+b+c`, one message per recorded turn) at a 16k window, so Longhaul summarizes
// across turns and condenses older blocks. The last prompt before the reload, and the first after
// Developer: Reload Window (rebuilt from the metadata VS Code stored), must both read
// `[request k] [summary block of request k] …`: every block right after its own request, in order,
// and the same blocks on both sides of the reload; /context lists the same blocks.
// Needs the corpus ($LONGHAUL_CORPUS, else ../shared/corpus; run-e2e.mjs passes it to the server).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { screenshot } from '../harness/browser.mjs';
import { openChat, runCommand, waitForChatModel, waitForWorkbench, workbenchUrl } from '../harness/workbench.mjs';
import { send as sendAndWait, waitForStoredChat } from './chatSession.mjs';
import { corpusDir } from '../harness/util.mjs';

const SESSIONS = ['msa-sqlfluff-2419-dsreasoner', 'oh-ponyc-4588', 'oh-ponyc-4595'];
const MARKER = `LONGHAUL-REPLAY ${SESSIONS.join('+')}`;
/** Recorded turns of the three sessions in chat order (oh-ponyc-4588 has two): session, its turn, its turns. */
const PLAYED = [
	['msa-sqlfluff-2419-dsreasoner', 1, 1],
	['oh-ponyc-4588', 1, 2],
	['oh-ponyc-4588', 2, 2],
	['oh-ponyc-4595', 1, 1],
];
const TURNS = PLAYED.length;
const CONDENSED = '[Condensed: ';

const send = async (page, text, timeoutMs = 240_000) => (await sendAndWait(page, text, { timeoutMs })).text;

function readRequestLog(file) {
	if (!existsSync(file)) return [];
	return readFileSync(file, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map(line => JSON.parse(line));
}

const textOf = message =>
	message.parts
		.filter(p => p.kind === 'text')
		.map(p => p.value)
		.join('');
const isAgentRequest = request => {
	const text = request.messages.map(textOf).join('\n');
	return !text.includes('You write the memory of a long coding-agent session') && !text.includes('<summary-block-to-condense>');
};

/**
 * The blocks of a prompt in order, each with the request it belongs to: the stand-in summary of a
 * turn starts with `user: <that turn's request>` (condensed ones after their note), and the message
 * right before it must be that request.
 */
function blocksOf(request) {
	const blocks = [];
	const problems = [];
	request.messages.forEach((message, i) => {
		const text = textOf(message);
		if (!text.startsWith('<conversation-summary>\n')) return;
		const lines = text.split('\n').slice(1);
		const condensed = lines[0].startsWith(CONDENSED);
		const first = (condensed ? lines[1] : lines[0]) ?? '';
		const request_ = /^user: (.*?)…?$/.exec(first)?.[1];
		const before = request.messages[i - 1];
		if (!request_) problems.push(`message ${i}: the block does not start with its request: ${JSON.stringify(first.slice(0, 80))}`);
		else if (!before || before.role !== 'user' || !textOf(before).startsWith(request_))
			problems.push(
				`message ${i}: the block of "${request_}" is not right after that request (after ${JSON.stringify(textOf(before ?? { parts: [] }).slice(0, 80))})`,
			);
		// A block condensed to less than its first line keeps only the start of its request (the
		// stand-in cuts by tokens); the request message right before it, checked above, names it whole.
		const named = request_ && !/request \d+$/.test(request_) && before && textOf(before).startsWith(request_) ? textOf(before).split('\n')[0] : request_;
		blocks.push({ request: named, condensed, text });
	});
	// The setup message is a turn too (its block comes first); the recorded requests follow in order.
	const order = blocks.filter(b => !/ setup$/.test(b.request ?? '')).map(b => Number(/request (\d+)$/.exec(b.request ?? '')?.[1] ?? NaN));
	if (order.some((n, i) => i > 0 && !(n > order[i - 1]))) problems.push(`blocks out of order: requests ${order.join(', ')}`);
	return { blocks, problems };
}

/** The Summary blocks table of /context: one line per block. */
function blockTable(contextText) {
	return (
		contextText
			.split('\n')
			// One entry per block, as /context lists them: "request N, rounds A–B (k rounds): T tokens · Restore".
			.filter(l => /^request \d+, (every round|rounds? \d)/.test(l.trim()))
			.map(l => l.replace(/\s+/g, ' ').trim())
	);
}

export const tests = [
	{
		name: 'the day-long chat: three corpus sessions as one chat keep every summary block after its own request, in order, across a window reload',
		async run({ page, server, workspace, requestLog }) {
			const corpus = corpusDir();
			if (!SESSIONS.every(s => existsSync(join(corpus, `${s}.json`)))) {
				console.log(`    skipped: the corpus is not at ${corpus} (set LONGHAUL_CORPUS)`);
				return;
			}
			await page.goto(workbenchUrl(server, { folder: workspace }));
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted');

			assert.match(await send(page, `@longhaul ${MARKER} setup`, 30_000), /replay mode, window set to 16000/);
			await page.waitForTimeout(1500); // the new window reaches the workbench's model list
			for (let k = 1; k <= TURNS; k++) {
				const answer = await send(page, `@longhaul ${MARKER} request ${k}`);
				// The closing round of each recorded turn names its own session (replayScript.ts closingText).
				const [name, turn, turns] = PLAYED[k - 1];
				assert.ok(
					answer.includes(`Replay of ${name}: turn ${turn} of ${turns} finished`),
					`request ${k} should play ${name} turn ${turn}: ${answer.slice(-300)}`,
				);
			}
			const contextBefore = await send(page, '@longhaul /context', 60_000);
			const before = readRequestLog(requestLog)
				.map(e => e.request)
				.filter(isAgentRequest);
			const lastBefore = before.at(-1);
			const beforeBlocks = blocksOf(lastBefore);
			if (process.env.LONGHAUL_E2E_DUMP)
				writeFileSync(process.env.LONGHAUL_E2E_DUMP, JSON.stringify(lastBefore.messages.map(m => ({ role: m.role, text: textOf(m).slice(0, 400) }))));
			assert.deepEqual(beforeBlocks.problems, [], 'the last prompt before the reload');
			assert.ok(beforeBlocks.blocks.length >= 3, `blocks of several requests expected, got ${beforeBlocks.blocks.length}`);
			// Every prompt of the chat, not only the last: blocks right after their requests, in order.
			for (const [i, request] of before.entries()) assert.deepEqual(blocksOf(request).problems, [], `prompt ${i + 1}`);

			const reloadedAt = Date.now();
			await waitForStoredChat(page, server.dirs.userData, 'Summarization mode:');
			await Promise.all([page.waitForEvent('load', { timeout: 60_000 }), runCommand(page, 'Developer: Reload Window')]);
			await waitForWorkbench(page);
			await waitForChatModel(page, 'Scripted');
			await openChat(page);
			await page
				.getByText(/Summarization mode:/)
				.first()
				.waitFor({ state: 'attached', timeout: 30_000 })
				.catch(() => {
					throw new Error('the chat session was not restored after the reload');
				});
			const contextAfter = await send(page, '@longhaul /context', 60_000);
			assert.ok(blockTable(contextBefore).length >= 3, `/context should list the blocks: ${contextBefore.slice(0, 600)}`);
			assert.deepEqual(blockTable(contextAfter), blockTable(contextBefore), '/context lists the same blocks after the reload');

			await send(page, '@longhaul after the reload ORDER-CHECK', 60_000);
			await screenshot(page, 'e2e-day-long-reload.png');
			const next = readRequestLog(requestLog)
				.filter(e => e.at >= reloadedAt)
				.map(e => e.request)
				.filter(isAgentRequest)
				.find(r => r.messages.some(m => textOf(m).includes('ORDER-CHECK')));
			assert.ok(next, 'the model should have received the request sent after the reload');
			const afterBlocks = blocksOf(next);
			assert.deepEqual(afterBlocks.problems, [], 'the first prompt after the reload');
			assert.deepEqual(
				afterBlocks.blocks.map(b => b.text),
				beforeBlocks.blocks.map(b => b.text),
				'the same blocks, in the same order, after the reload',
			);
			console.log(
				`    ${before.length} prompts checked before the reload; ${afterBlocks.blocks.length} blocks (${afterBlocks.blocks.filter(b => b.condensed).length} condensed) rebuilt in order after it`,
			);
		},
	},
];
