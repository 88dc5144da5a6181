import * as assert from 'assert';
import { defaultReplyText, lastUserText } from '../fixtures/scripted-model/src/api';
import { lastRequest, resetSession, scriptedModel, sendChat, setHandler, userText, withSetting } from './helpers';

describe('@longhaul in the Chat view', () => {
	beforeEach(resetSession);

	it("answers with the scripted model's reply to the prompt", async () => {
		const handled = await sendChat('@longhaul hello');
		assert.strictEqual(handled.prompt, 'hello');
		assert.strictEqual(handled.errorMessage, undefined);
		const scripted = await scriptedModel();
		const request = lastRequest(scripted);
		assert.match(userText(request), /hello/, 'the scripted model should have received the prompt');
		assert.ok(
			handled.markdown.includes(defaultReplyText(lastUserText(request.messages))),
			`expected the scripted reply in the response, got: ${JSON.stringify(handled.markdown)}`,
		);
	});

	it('streams every chunk of a scripted reply, in order', async () => {
		await setHandler(() => ({ chunks: ['alpha ', 'beta ', 'gamma'] }));
		const handled = await sendChat('@longhaul stream please');
		assert.ok(handled.markdown.includes('alpha beta gamma'), `got: ${JSON.stringify(handled.markdown)}`);
	});

	it('switches the summarization mode with longhaul.halfContextSummarization on the next request', async () => {
		await withSetting('halfContextSummarization', true, async () => {
			const handled = await sendChat('@longhaul first');
			assert.strictEqual((handled.metadata as { summarizationMode?: string }).summarizationMode, 'half-context');
		});
		await withSetting('halfContextSummarization', false, async () => {
			const handled = await sendChat('@longhaul second');
			assert.strictEqual((handled.metadata as { summarizationMode?: string }).summarizationMode, 'legacy');
		});
	});
});
