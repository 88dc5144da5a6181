// The context meter in the status bar: after an @longhaul request it shows the share of the window
// the chat's next prompt takes and its summary blocks; while a summary is written it spins; after
// /restore it counts the blocks left.
import * as assert from 'assert';
import { longhaul, scriptedModel, sendChat, setHandler, smallWindowSessions, suiteSettings } from './helpers';
import { DATA_FILE, createSessionScript } from './sessionScript';

const METER = /^\$\(layers\) (\d+)% · (\d+) summar(y|ies)$/;

describe('Context meter', function () {
	this.timeout(150_000);
	smallWindowSessions();
	// The spinner follows a summary the user waits for; one prepared in the background would leave nothing to wait for.
	suiteSettings({ backgroundSummarizationThreshold: 0 });

	it('shows the window share and the summary blocks after a request, spins while summarizing, and follows /restore', async () => {
		const { api } = await longhaul();
		const script = createSessionScript({ toolCalls: (n: number) => (n === 1 ? 30 : 1), dataFile: DATA_FILE, finalText: 'DONE', summaryDelayMs: 800 });
		await setHandler(script.handler);
		const seen = new Set<string>();
		const timer = setInterval(() => seen.add(api.contextMeter.text), 100);
		let session;
		try {
			session = await sendChat('@longhaul read the data file', { timeoutMs: 90_000 });
		} finally {
			clearInterval(timer);
		}
		const blocks = (session.metadata as { longhaul: { summaryBlocks: unknown[] } }).longhaul.summaryBlocks.length;
		assert.ok(blocks >= 1, 'the session summarizes');
		assert.ok(
			[...seen].some(t => t.startsWith('$(sync~spin)')),
			`the meter spins while a summary is written: ${[...seen].join(' | ')}`,
		);
		const after = METER.exec(api.contextMeter.text);
		assert.ok(api.contextMeter.visible && after, `the meter shows the share and the blocks: ${api.contextMeter.text}`);
		assert.strictEqual(Number(after[2]), 1, 'one block: the request’s summaries are one block');
		const share = Number(after[1]);
		assert.ok(share > 10 && share <= 100, `a share of the 16k window: ${share}%`);
		const context = await sendChat('@longhaul /context');
		const used = /, ([\d.]+)% used by the next prompt\./.exec(context.markdown);
		assert.ok(used, context.markdown.slice(0, 300));
		assert.ok(Math.abs(Number(used[1]) - share) <= 1, `/context (${used[1]}%) and the meter (${share}%) agree`);

		await (await scriptedModel()).setMaxInputTokens(128_000);
		await sendChat('@longhaul /restore');
		assert.match(api.contextMeter.text, /^\$\(layers\) \d+% · 0 summaries$/, 'after /restore no block is left');
	});
});
