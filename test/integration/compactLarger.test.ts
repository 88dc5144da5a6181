// Issue 33: /compact that would make the window fuller is not applied (docs/decisions.md 40).
// A few small rounds and a summarizer that writes a long (tagged, valid) summary: the summary
// block and the done-ledger would cost more than the rounds they replace, so the chat says so,
// nothing is stored, and the next request still sees every round word for word.
import * as assert from 'assert';
import type { ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { resetSession, scriptedModel, sendChat, setHandler } from './helpers';
import { allText, createSessionScript, isSummarizationRequest, toolCallIds } from './sessionScript';

const LONG_SUMMARY = Array.from(
	{ length: 120 },
	(_, i) => `Fact ${i}: the agent looked at part ${i} of the workspace and noted what it holds, in some detail, for later.`,
).join('\n');

describe('/compact that would make the window fuller', function () {
	this.timeout(60_000);
	beforeEach(resetSession);
	afterEach(async () => (await scriptedModel()).reset());

	it('is not applied: the chat says so, and the next request sees every round word for word', async () => {
		const script = createSessionScript({ toolCalls: 3, finalText: 'SMALL-DONE' });
		const summarizerRequests: ScriptedRequest[] = [];
		await setHandler(request => {
			if (!isSummarizationRequest(request)) return script.handler(request);
			summarizerRequests.push(request);
			return { text: `<analysis>Short.</analysis>\n<summary>\n${LONG_SUMMARY}\n</summary>` };
		});
		const first = await sendChat('@longhaul SMALL-TASK: look at the workspace');
		assert.strictEqual(first.errorMessage, undefined);
		const callIds = script.agentRequests.flatMap(r => toolCallIds(r));

		const compacted = await sendChat('@longhaul /compact');
		assert.strictEqual(compacted.errorMessage, undefined);
		assert.strictEqual(summarizerRequests.length, 1, 'the summary was asked for');
		assert.match(compacted.markdown, /would not have made the next prompt smaller \((\d+) tokens instead of (\d+)\)/, JSON.stringify(compacted.markdown));
		const [, after, before] = /\((\d+) tokens instead of (\d+)\)/.exec(compacted.markdown)!;
		assert.ok(Number(after) >= Number(before), `${after} ≥ ${before}`);
		assert.doesNotMatch(compacted.markdown, /Summarized \d+ older rounds?/);
		assert.strictEqual((compacted.metadata as { summarizations?: number }).summarizations ?? 0, 0);

		const agentsBefore = script.agentRequests.length;
		const next = await sendChat('@longhaul SMALL-TWO: go on');
		assert.strictEqual(next.errorMessage, undefined);
		const prompt = script.agentRequests[agentsBefore];
		assert.ok(!allText(prompt).includes('<conversation-summary>\n') && !allText(prompt).includes('Fact 0: the agent'), 'no summary block was stored');
		for (const id of new Set(callIds)) assert.ok(toolCallIds(prompt).includes(id), `call ${id} stays verbatim`);
	});
});
