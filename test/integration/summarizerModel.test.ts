// longhaul.summarizerModel: summaries go to the model the setting names (here a second scripted
// model), with its own window; when it is not available, the chat's model writes them and the
// response says so. /context and the response metadata say which model summarized.
import * as assert from 'assert';
import { VENDOR } from '../fixtures/scripted-model/src/api';
import { scriptedModel, sendChat, setHandler, smallWindowSessions, withSetting } from './helpers';
import { DATA_FILE, createSessionScript, isCondenseRequest, isSummarizationRequest } from './sessionScript';

const SECOND = 'scripted-mini';

async function session() {
	const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE, finalText: 'DONE' });
	await setHandler(script.handler);
	return { script, handled: await sendChat('@longhaul read the data file', { timeoutMs: 90_000 }) };
}

describe('Summarizer model', function () {
	this.timeout(150_000);
	smallWindowSessions();

	it('sends every summary to the model longhaul.summarizerModel names, and the agent steps to the chat model', async () => {
		const api = await scriptedModel();
		await api.addModel({ id: SECOND, name: 'Scripted mini', maxInputTokens: 64_000 });
		await withSetting('summarizerModel', { vendor: VENDOR, id: SECOND }, async () => {
			const { script, handled } = await session();
			const summarizer = api.requests.filter(r => isSummarizationRequest(r) || isCondenseRequest(r));
			const agent = api.requests.filter(r => !isSummarizationRequest(r) && !isCondenseRequest(r));
			assert.ok(script.summaries.length >= 1 && summarizer.length >= 1, 'the session summarizes');
			assert.deepStrictEqual([...new Set(summarizer.map(r => r.modelId))], [SECOND], 'every summarizer request goes to the second model');
			assert.deepStrictEqual([...new Set(agent.map(r => r.modelId))], ['scripted'], 'every agent step goes to the chat model');
			assert.strictEqual((handled.metadata as { summarizerModel?: string }).summarizerModel, `${VENDOR}/${SECOND}`);
			assert.match(handled.markdown, /DONE/);
			const context = await sendChat('@longhaul /context');
			assert.match(context.markdown, /Summaries are written by Scripted mini \(`longhaul-scripted\/scripted-mini`, 64,000 tokens\)/);
		});
	});

	it('respects the summarizer’s own window: no summarizer request larger than it is sent', async () => {
		const api = await scriptedModel();
		await api.addModel({ id: SECOND, maxInputTokens: 6_000 });
		await withSetting('summarizerModel', { vendor: VENDOR, id: SECOND }, async () => {
			const { handled } = await session();
			assert.strictEqual(handled.errorMessage, undefined);
			const sent = api.requests.filter(r => r.modelId === SECOND);
			const largest = Math.max(
				0,
				...sent.map(r => api.estimateTokens(r.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'text' ? [p.value] : []))).join('\n'))),
			);
			assert.ok(largest <= 6_000, `the largest summarizer request holds ${largest} tokens, over the 6,000-token window`);
		});
	});

	it('falls back to the chat model with a notice when the setting names no available model', async () => {
		const api = await scriptedModel();
		await withSetting('summarizerModel', { vendor: VENDOR, id: 'no-such-model' }, async () => {
			const { handled } = await session();
			assert.match(
				handled.markdown,
				/`longhaul\.summarizerModel` \(\{"vendor":"longhaul-scripted","id":"no-such-model"\}\) matches no model available now, so the chat's model, Scripted, writes the summaries\./,
			);
			// Once, after the answer, where it is in view (not also at the top, folded into the steps).
			const notice = 'matches no model available now';
			const afterAnswer = handled.markdown.slice(handled.markdown.lastIndexOf('DONE'));
			assert.strictEqual(afterAnswer.split(notice).length - 1, 1, `the recap after the answer gives the notice: ${afterAnswer}`);
			assert.strictEqual(handled.markdown.split(notice).length - 1, 1, 'once in the response');
			const summarizer = api.requests.filter(r => isSummarizationRequest(r));
			assert.ok(summarizer.length >= 1);
			assert.deepStrictEqual([...new Set(summarizer.map(r => r.modelId))], ['scripted']);
			assert.strictEqual((handled.metadata as { summarizerModel?: string }).summarizerModel, undefined);
		});
	});
});
