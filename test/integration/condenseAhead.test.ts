// Bounded growth without a wait, in the real VS Code: when the summary blocks of several requests
// pass the summary budget, the oldest are condensed. With background summaries on, the job that
// prepares a summary also condenses the blocks that attaching it will push over the budget, so the
// overflow takes them without sending a condense request of its own. Long scripted summaries
// (about 600 tokens each) make the blocks of three requests pass the budget of the small window.
import * as assert from 'assert';
import type { HandledRequest } from '../../src/agent/api';
import { CONDENSE_BLOCK_TAG } from '../../src/prompts/promptTags';
import type { ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { say, sendChat, setHandler, smallWindowSessions, suiteSettings } from './helpers';
import { allText, createSessionScript, DATA_FILE, isSummarizationRequest } from './sessionScript';

interface Metadata {
	readonly summarizations: number;
	readonly condensedBlocks: { readonly count: number; readonly ahead: number; readonly byModel: number };
	readonly background: { readonly started: number; readonly used: number };
}

const meta = (handled: HandledRequest) => handled.metadata as unknown as Metadata;
const REQUESTS = ['read the data file', 'read it again', 'and once more', 'one last time'];

describe('Older summary blocks condensed in the background', function () {
	this.timeout(420_000);
	smallWindowSessions();
	suiteSettings({ halfContextSummarization: true, backgroundSummarizationThreshold: 40 });

	it('a prepared summary brings the condensed older blocks with it: the overflow sends no condense request', async () => {
		const agent = createSessionScript({ toolCalls: 24, dataFile: DATA_FILE, finalText: 'DONE' });
		/** Every request, in arrival order, by kind. */
		const log: ('agent' | 'summary' | 'condense')[] = [];
		await setHandler((request: ScriptedRequest) => {
			const text = allText(request);
			if (text.includes(`<${CONDENSE_BLOCK_TAG}>`)) {
				log.push('condense');
				return { text: `<summary>CONDENSED: ${'an older request read records. '.repeat(8)}</summary>` };
			}
			if (isSummarizationRequest(request)) {
				log.push('summary');
				const n = log.filter(k => k === 'summary').length;
				return { text: `<summary>LONG-SUMMARY-${n}: ${'the agent read a slice of the data file and noted its records. '.repeat(50)}</summary>` };
			}
			log.push('agent');
			return agent.handler(request);
		});
		const handled: HandledRequest[] = [];
		for (const text of REQUESTS) handled.push(await sendChat(`@longhaul ${text}`, { timeoutMs: 150_000 }));

		const count = handled.reduce((n, h) => n + meta(h).condensedBlocks.count, 0);
		const ahead = handled.reduce((n, h) => n + meta(h).condensedBlocks.ahead, 0);
		const byModel = handled.reduce((n, h) => n + meta(h).condensedBlocks.byModel, 0);
		const condenseRequests = log.filter(k => k === 'condense').length;
		say(
			`      ${handled.map(h => meta(h).summarizations).join('+')} summaries; blocks condensed ${count}, of which prepared in the background ${ahead}, by the model ${byModel}; condense requests ${condenseRequests}; background jobs started ${handled.reduce((n, h) => n + meta(h).background.started, 0)}`,
		);
		assert.deepStrictEqual(
			handled.map(h => h.errorMessage),
			REQUESTS.map(() => undefined),
			'no request fails',
		);
		assert.ok(count >= 1, 'the blocks of several requests pass the summary budget, so older ones are condensed');
		assert.ok(ahead >= 1, 'at least one older block was condensed by a background job, before the overflow that attached its summary');
		assert.ok(ahead <= count);
		// Each block the model condensed costs a condense request, at an overflow or in a job. A block
		// condensed again is cut to its first lines, with no request: with summaries at 7 % of the
		// room (decision 49) a job may cut a block it condensed before, so `ahead` may exceed `byModel`.
		assert.ok(byModel >= 1, `${byModel} blocks condensed by the model, ${ahead} ahead`);
		assert.ok(condenseRequests >= byModel, `${condenseRequests} condense requests for ${byModel} blocks condensed by the model`);
	});
});
