// The context meter in the status bar: after an @longhaul request it shows the share of the window
// the chat's next prompt takes and its summary blocks; while a request runs it follows every fitted
// prompt and spins while a summary is written; a new chat does not show the previous chat's figures;
// its share is the one /context shows; after /restore it counts the blocks left.
import * as assert from 'assert';
import { longhaul, newChat, scriptedModel, sendChat, setHandler, smallWindowSessions, suiteSettings } from './helpers';
import { DATA_FILE, createSessionScript } from './sessionScript';

const METER = /^\$\(layers\) (\d+)% · (\d+) summary blocks?$/;
const SHARE = /(\d+)%(?: · summarizes next)? · (\d+) summary block/;

/** Every text the meter shows while `body` runs, polled as a user would see it (every 100 ms). */
async function watchMeter<T>(body: () => Promise<T>): Promise<{ result: T; seen: string[] }> {
	const { api } = await longhaul();
	const seen: string[] = [];
	const poll = () => {
		if (seen.at(-1) !== api.contextMeter.text) seen.push(api.contextMeter.text);
	};
	poll();
	const timer = setInterval(poll, 100);
	try {
		return { result: await body(), seen };
	} finally {
		clearInterval(timer);
	}
}

describe('Context meter', function () {
	this.timeout(150_000);
	smallWindowSessions();
	// The spinner follows a summary the user waits for; one prepared in the background would leave nothing to wait for.
	suiteSettings({ backgroundSummarizationThreshold: 0 });

	it('shows the window share and the summary blocks after a request, spins while summarizing, and follows /restore', async () => {
		const { api } = await longhaul();
		const script = createSessionScript({ toolCalls: (n: number) => (n === 1 ? 30 : 1), dataFile: DATA_FILE, finalText: 'DONE', summaryDelayMs: 800 });
		await setHandler(script.handler);
		const { result: session, seen } = await watchMeter(() => sendChat('@longhaul read the data file', { timeoutMs: 90_000 }));
		const blocks = (session.metadata as { longhaul: { summaryBlocks: unknown[] } }).longhaul.summaryBlocks.length;
		assert.ok(blocks >= 1, 'the session summarizes');
		assert.ok(
			seen.some(t => t.startsWith('$(sync~spin)')),
			`the meter spins while a summary is written: ${seen.join(' | ')}`,
		);
		// It follows the prompts of the request, not only its end: several shares, and the block before the answer.
		const during = seen.slice(0, -1);
		const shares = new Set(during.flatMap(t => SHARE.exec(t)?.[1] ?? []));
		assert.ok(shares.size >= 3, `the meter moves with the prompts of the request: ${seen.join(' | ')}`);
		assert.ok(
			during.some(t => /· 1 summary block/.test(t)),
			`the summary block shows while the request still runs: ${seen.join(' | ')}`,
		);
		const after = METER.exec(api.contextMeter.text);
		assert.ok(api.contextMeter.visible && after, `the meter shows the share and the blocks: ${api.contextMeter.text}`);
		assert.strictEqual(Number(after[2]), 1, 'one block: the request’s summaries are one block');
		const share = Number(after[1]);
		assert.ok(share > 10 && share <= 100, `a share of the 16k window: ${share}%`);
		const context = await sendChat('@longhaul /context');
		const used = /the next prompt takes \*\*(\d+)%\*\* of it\./.exec(context.markdown);
		assert.ok(used, context.markdown.slice(0, 300));
		assert.strictEqual(Number(used[1]), share, `/context (${used[1]}%) and the meter (${share}%) show the same share`);

		await (await scriptedModel()).setMaxInputTokens(128_000);
		await sendChat('@longhaul /restore');
		assert.match(api.contextMeter.text, /^\$\(layers\) \d+% · 0 summary blocks$/, 'after /restore no block is left');
	});

	it('a new chat does not show the previous chat’s figures', async () => {
		const { api } = await longhaul();
		const script = createSessionScript({ toolCalls: (n: number) => (n === 1 ? 30 : 1), dataFile: DATA_FILE, finalText: 'DONE' });
		await setHandler(script.handler);
		await sendChat('@longhaul read the data file', { timeoutMs: 90_000 });
		const first = api.contextMeter.text;
		assert.match(first, /· 1 summary block$/, 'the first chat has a summary block');

		await newChat();
		// A slow first answer in the new chat: what the meter shows while the user waits for it.
		const waiting: string[] = [];
		await setHandler(() => {
			waiting.push(api.contextMeter.text);
			setTimeout(() => waiting.push(api.contextMeter.text), 1500);
			return { text: 'NEW CHAT ANSWER', delayMs: 2500 };
		});
		await sendChat('@longhaul hello', { timeoutMs: 30_000 });
		assert.strictEqual(waiting.length, 2);
		assert.ok(
			!waiting.some(t => t === first || /· [1-9]\d* summar/.test(t)),
			`the new chat never shows the first chat's figures (${first}): ${waiting.join(' | ')}`,
		);
		assert.match(api.contextMeter.text, /^\$\(layers\) \d+% · 0 summary blocks$/, 'after its request, the new chat’s own figures');
	});

	it('a minute after its last request it says its figures are the last chat’s, until the next request', async function () {
		// VS Code does not tell an extension which chat is on screen (docs/decisions.md decision 41).
		this.timeout(150_000);
		const { api } = await longhaul();
		await sendChat('@longhaul hello');
		assert.match(api.contextMeter.text, /^\$\(layers\) \d+% · 0 summary blocks$/, 'right after the request: its own figures, unmarked');
		const started = Date.now();
		while (!/last chat/.test(api.contextMeter.text) && Date.now() - started < 75_000) await new Promise(r => setTimeout(r, 500));
		const waited = Date.now() - started;
		assert.match(api.contextMeter.text, /^\$\(layers\) last chat: \d+% · 0 summary blocks$/, `after ${waited} ms: ${api.contextMeter.text}`);
		assert.ok(waited >= 55_000, `not before about a minute: ${waited} ms`);
		await newChat();
		await sendChat('@longhaul hi');
		assert.match(api.contextMeter.text, /^\$\(layers\) \d+% · 0 summary blocks$/, 'a request drops the mark');
	});
});
