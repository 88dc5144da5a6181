// Settings read live: longhaul.autoSummarize (off: no summary is asked for on an overflow, masking
// and truncation instead, said once; /compact still summarizes) and longhaul.showTokenCount (one
// muted line with the last prompt's size after each response).
import * as assert from 'assert';
import { sendChat, setHandler, smallWindowSessions, withSetting } from './helpers';
import { DATA_FILE, SMALL_WINDOW, createSessionScript } from './sessionScript';

interface Metadata {
	summarizations: number;
	toolCalls: number;
	droppedRounds: number;
	masking: { maskings: number; maskedResults: number };
	longhaul: { summaryBlocks: { text: string }[] };
}

const OFF_NOTICE = /Automatic summarization is off \(`longhaul\.autoSummarize`\)/g;
const TOKEN_LINE = /\*Prompt: ([\d,]+) of ([\d,]+) tokens \((\d+)%\) · (\d+) summary blocks?\*/;

describe('Settings', function () {
	this.timeout(120_000);
	smallWindowSessions();

	it('longhaul.autoSummarize off: an overflowing session never asks for a summary, masks old tool results instead, says so once; /compact still summarizes', async () => {
		const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE, finalText: 'AUTO-OFF-DONE' });
		await setHandler(script.handler);
		await withSetting('autoSummarize', false, async () => {
			const session = await sendChat('@longhaul read the data file', { timeoutMs: 60_000 });
			const metadata = session.metadata as unknown as Metadata;
			assert.strictEqual(session.errorMessage, undefined, `the request failed: ${session.errorMessage}`);
			assert.ok(session.markdown.includes('AUTO-OFF-DONE'), 'the session should run to its end');
			assert.strictEqual(metadata.toolCalls, 30);
			assert.strictEqual(script.summarizerRequests.length, 0, 'no summarizer request, not even in the background');
			assert.strictEqual(metadata.summarizations, 0);
			assert.strictEqual((session.markdown.match(OFF_NOTICE) ?? []).length, 1, `the notice once: ${session.markdown.slice(0, 600)}`);
			assert.ok(metadata.masking.maskedResults > 0, 'old tool results were masked');
			assert.doesNotMatch(session.markdown, /Summarized \d+ older round/);

			const compacted = await sendChat('@longhaul /compact');
			assert.match(
				compacted.markdown,
				/Summarized \d+ older rounds?, kept \d+ recent rounds? verbatim/,
				`/compact should still summarize: ${compacted.markdown}`,
			);
			assert.strictEqual(script.summarizerRequests.length, 1);
		});
		// Read live: the next request with the setting back on summarizes again.
		const again = await sendChat('@longhaul read it once more', { timeoutMs: 60_000 });
		assert.ok((again.metadata as unknown as Metadata).summarizations >= 1, 'with autoSummarize back on, the overflow is summarized');
		assert.doesNotMatch(again.markdown, OFF_NOTICE);
	});

	it('longhaul.minRecentRounds: every half-context summary keeps at least that many recent rounds verbatim (the default keeps fewer)', async () => {
		const halfContextKept = async (minRecentRounds: number | undefined): Promise<number[]> => {
			const script = createSessionScript({ toolCalls: 40, dataFile: DATA_FILE, finalText: 'KEEP-DONE' });
			await setHandler(script.handler);
			const run = () => sendChat('@longhaul read the data file', { timeoutMs: 90_000 });
			// The split is read from the notices of summaries made at the overflow, so none is prepared in the background.
			const session = await withSetting('backgroundSummarizationThreshold', 0, () =>
				withSetting('halfContextSummarization', true, () => (minRecentRounds === undefined ? run() : withSetting('minRecentRounds', minRecentRounds, run))),
			);
			assert.strictEqual(session.errorMessage, undefined, `the request failed: ${session.errorMessage}`);
			return [...session.markdown.matchAll(/kept (\d+) recent rounds? verbatim \(half-context/g)].map(m => Number(m[1]));
		};
		const kept = await halfContextKept(9);
		assert.ok(kept.length >= 1, 'the session should make half-context summaries');
		assert.ok(
			kept.every(n => n >= 9),
			`with longhaul.minRecentRounds 9 every half-context summary keeps at least 9 rounds: ${kept.join(', ')}`,
		);
		const byDefault = await halfContextKept(undefined);
		assert.ok(
			byDefault.some(n => n < 9),
			`the default (2) lets the token-aware split keep fewer: ${byDefault.join(', ')}`,
		);
	});

	it('longhaul.showTokenCount: one line with the last prompt against the window and the summary blocks, only when on', async () => {
		const script = createSessionScript({ toolCalls: 14, dataFile: DATA_FILE, finalText: 'COUNT-DONE' });
		await setHandler(script.handler);
		const plain = await sendChat('@longhaul read the data file');
		assert.doesNotMatch(plain.markdown, TOKEN_LINE, 'off by default');
		await withSetting('showTokenCount', true, async () => {
			const counted = await sendChat('@longhaul read more of it', { timeoutMs: 60_000 });
			const line = TOKEN_LINE.exec(counted.markdown);
			assert.ok(line, `the response should end with the token line: ${counted.markdown.slice(-300)}`);
			assert.ok(counted.markdown.trimEnd().endsWith(line[0]), 'it is the last line');
			const prompt = Number(line[1].replace(/,/g, ''));
			assert.strictEqual(Number(line[2].replace(/,/g, '')), SMALL_WINDOW);
			assert.ok(prompt > 0 && prompt <= SMALL_WINDOW, `the last prompt fits the window: ${prompt}`);
			assert.ok(Number(line[4]) >= 1, 'two requests of reading overflow the small window: the prompt holds a summary');
		});
	});

	it('longhaul.backgroundSummarizationThreshold by model family: the scripted model gets its own value, others the default', async () => {
		const run = async (setting: unknown) => {
			const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE, finalText: 'DONE' });
			await setHandler(script.handler);
			const session = await withSetting('backgroundSummarizationThreshold', setting, () => sendChat('@longhaul read the data file', { timeoutMs: 90_000 }));
			return (session.metadata as unknown as { background: { started: number } }).background.started;
		};
		// The scripted model's family is 'scripted' (test/fixtures/scripted-model/src/api.ts MODEL_ID).
		assert.ok((await run({ default: 0, scripted: 40 })) >= 1, 'its own threshold (40%) prepares summaries in the background');
		assert.strictEqual(await run({ default: 40, scripted: 0 }), 0, 'its own threshold (0) turns them off, whatever the default');
		assert.ok((await run({ default: 40, 'other-family': 0 })) >= 1, 'an unlisted family gets the default');
		const context = await withSetting('backgroundSummarizationThreshold', { default: 80, scripted: 55 }, () => sendChat('@longhaul /context'));
		assert.match(context.markdown, /at the latest from 55% of the window/);
	});
});
