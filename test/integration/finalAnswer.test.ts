// The final answer stays in view: VS Code 1.139 folds a finished response up to its final answer,
// the run of text parts that holds the last text (src/common/response/finalAnswer.ts). For every
// combination of what can follow the model's answer (the token line, the recap of summaries and its
// buttons, the stop notice at the tool-call limit, background summaries still running when the
// answer came), the parts Longhaul streamed, read by that rule, show the answer. The e2e test
// test/e2e/finalAnswer.e2e.mjs reads the same on screen.
import * as assert from 'assert';
import type { HandledRequest } from '../../src/agent/api';
import { textInView } from '../../src/common/response/finalAnswer';
import { say, sendChat, setHandler, smallWindowSessions, withSetting } from './helpers';
import { DATA_FILE, createSessionScript } from './sessionScript';

const ANSWER = 'FINAL-ANSWER-TEXT: the data file was read to its end.';

interface Case {
	readonly name: string;
	readonly showTokenCount: boolean;
	/** Tool calls the scripted agent makes before answering (30 summarize in the small window). */
	readonly toolCalls: number;
	readonly maxToolCalls?: number;
	/** Background threshold in percent (0: off). */
	readonly background: number;
	/** Delay of each summary, so a background summary is still running when the answer comes. */
	readonly summaryDelayMs?: number;
}

const CASES: Case[] = [];
for (const showTokenCount of [false, true]) {
	CASES.push(
		{ name: 'no summary', showTokenCount, toolCalls: 2, background: 0 },
		{ name: 'summaries, recap and buttons', showTokenCount, toolCalls: 30, background: 0 },
		{ name: 'stopped at the tool-call limit after summaries', showTokenCount, toolCalls: 30, maxToolCalls: 24, background: 0 },
		{ name: 'background summaries, one still running at the end', showTokenCount, toolCalls: 30, background: 40, summaryDelayMs: 400 },
	);
}

async function run(c: Case): Promise<HandledRequest> {
	const script = createSessionScript({ toolCalls: c.toolCalls, dataFile: DATA_FILE, finalText: ANSWER, summaryDelayMs: c.summaryDelayMs });
	await setHandler(script.handler);
	return withSetting('showTokenCount', c.showTokenCount, () =>
		withSetting('backgroundSummarizationThreshold', c.background, () =>
			withSetting('maxToolCallsPerRequest', c.maxToolCalls ?? 200, () => sendChat('@longhaul read the data file', { timeoutMs: 90_000 })),
		),
	);
}

describe('Final answer in view', function () {
	this.timeout(150_000);
	smallWindowSessions();

	for (const c of CASES) {
		it(`shows the answer unfolded: ${c.name}, token line ${c.showTokenCount ? 'on' : 'off'}`, async () => {
			const handled = await run(c);
			const summarizations = (handled.metadata as { summarizations: number }).summarizations;
			const visible = textInView(handled.parts);
			const stopped = c.maxToolCalls !== undefined;
			say(`      ${summarizations} summaries, ${handled.parts.length} parts; in view: ${JSON.stringify(visible.slice(0, 160))}…`);
			if (stopped) {
				// The model's text before the last tool calls is an interim step; the stop notice is the answer.
				assert.match(visible, /Stopped after 24 tool calls/, 'the stop notice is in view');
			} else {
				assert.ok(visible.includes(ANSWER), `the final answer is in view; in view: ${JSON.stringify(visible)}`);
			}
			if (c.toolCalls === 30) {
				assert.ok(summarizations >= 1, 'the session summarizes');
				assert.match(visible, /This response summarized the conversation/, 'the recap is in view');
				const last = handled.parts.map(p => p.kind === 'markdown' && p.text.length > 0).lastIndexOf(true);
				assert.ok(
					handled.parts.slice(last + 1).some(p => p.kind === 'button'),
					'the recap buttons follow the last text (in view, after the answer)',
				);
			}
			if (c.background) assert.ok((handled.metadata as { background: { started: number } }).background.started >= 1, 'a background summary ran');
			if (c.showTokenCount) assert.match(visible, /Prompt: [\d,]+ of [\d,]+ tokens/, 'the token line is in view');
			else assert.doesNotMatch(handled.markdown, /Prompt: [\d,]+ of [\d,]+ tokens/);
		});
	}
});
