// Issue 33: a summarizer reply that is no summary (an echo of the prompt, a refusal, a few tokens)
// must never replace the rounds it was asked to summarize (docs/decisions.md, "A reply is a
// summary only if it reads as one"). In the real extension host: a turn that overflows a 16k
// window while the summarizer answers like that ends with Full → Simple failed and the usual
// fallback, and no later prompt carries the reply as a summary.
import * as assert from 'assert';
import { defaultReplyText, lastUserText, type ScriptedReply, type ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { resetSession, scriptedModel, sendChat, setHandler, suiteSettings } from './helpers';
import { agentScript, allText, createDataFiles, removeDataFiles } from './faultScript';

const WINDOW = 16_000;

const REPLIES: readonly [string, (request: ScriptedRequest) => ScriptedReply][] = [
	// What the test model answered in the demo's second turn: "Scripted reply to: <previous-summary>…".
	['an echo of the prompt (the test model default reply)', request => ({ text: defaultReplyText(lastUserText(request.messages)) })],
	['a refusal sentence', () => ({ text: "I'm sorry, but I can't help with summarizing this conversation." })],
	['a reply of a few tokens', () => ({ text: 'Summary written.' })],
];

describe('Not a summary: the summarizer answers with something else', () => {
	suiteSettings({ backgroundSummarizationThreshold: 0 });
	before(createDataFiles);
	after(removeDataFiles);
	beforeEach(resetSession);

	for (const [name, summarizer] of REPLIES) {
		it(`${name}: no summary is attached, Full and Simple count as failed, the request goes on`, async function () {
			this.timeout(60_000);
			await (await scriptedModel()).setMaxInputTokens(WINDOW);
			const replies: string[] = [];
			const script = agentScript({
				id: 'nas',
				toolCalls: 24,
				summarizer: request => {
					const reply = summarizer(request);
					replies.push(reply.text ?? '');
					return reply;
				},
			});
			await setHandler(script.handler);
			const handled = await sendChat('@longhaul read the data files one by one');
			assert.strictEqual(handled.errorMessage, undefined, `the request should complete: ${handled.errorMessage}`);
			assert.doesNotMatch(handled.markdown, /Summarized \d+ older rounds?/, 'no reply of these may become a summary');
			assert.ok(script.summarizerRequests.length >= 2, `a Full and a Simple attempt (summarizer requests: ${script.summarizerRequests.length})`);
			assert.match(handled.markdown, /could not be summarized \(try 1: the answer was not a summary; try 2: the answer was not a summary\)/);
			assert.match(handled.markdown, /Done \(nas\)\./, 'the request should run to its end');
			for (const request of script.agentRequests) {
				const sent = allText(request);
				for (const reply of new Set(replies)) {
					assert.ok(!sent.includes(reply.slice(0, 60)), `an agent prompt carries the rejected reply ${JSON.stringify(reply.slice(0, 60))}`);
				}
			}
		});
	}
});
