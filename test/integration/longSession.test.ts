// Long agent sessions in a small window (8,000 tokens) with the scripted model: summarization
// happens several times inside one request, summaries absorb their predecessor, half-context keeps
// more rounds verbatim than legacy, every tool call stays paired with its result, and later
// requests of the same chat session rebuild the conversation from the stored metadata.
import * as assert from 'assert';
import type { ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { sendChat, setHandler, smallWindowSessions, suiteSettings, withSetting } from './helpers';
import {
	DATA_FILE,
	allText,
	createSessionScript,
	pairingProblems,
	summaryMarker,
	summaryNumbersIn,
	toolCallIds,
	toolResultCount,
	type SessionScript,
} from './sessionScript';

const NOTICE = /Summarized (\d+) older rounds?, kept (\d+) recent rounds? verbatim \((half-context|legacy)/g;

interface Metadata {
	summarizationMode: string;
	summarizations: number;
	toolCalls: number;
	longhaul: { rounds: { id: string; toolCalls: { id: string }[] }[]; summaryBlocks: { roundId: string; text: string }[]; cancelled?: boolean };
}

/** Agent requests, each with the number of the newest summary made before it (0: none yet). */
function agentRequestsWithSummary(script: SessionScript): { request: ScriptedRequest; newest: number; firstAfterSummary: boolean }[] {
	const out: { request: ScriptedRequest; newest: number; firstAfterSummary: boolean }[] = [];
	let newest = 0;
	let justSummarized = false;
	for (const entry of script.log) {
		if (entry.kind === 'summarizer') {
			newest = entry.summaryNumber!;
			justSummarized = true;
		} else {
			out.push({ request: entry.request, newest, firstAfterSummary: justSummarized });
			justSummarized = false;
		}
	}
	return out;
}

/** Runs one 60-call request and checks what every mode must do; returns the tool-result counts right after each summarization. */
async function longSession(mode: 'half-context' | 'legacy'): Promise<number[]> {
	const script = createSessionScript({ toolCalls: 60, dataFile: DATA_FILE, finalText: 'LONG-SESSION-DONE' });
	await setHandler(script.handler);
	const handled = await withSetting('halfContextSummarization', mode === 'half-context', () =>
		sendChat('@longhaul read the data file piece by piece', { timeoutMs: 50_000 }),
	);
	const metadata = handled.metadata as unknown as Metadata;

	assert.strictEqual(handled.errorMessage, undefined, `the request failed: ${handled.errorMessage}`);
	assert.strictEqual(metadata.summarizationMode, mode);
	assert.strictEqual(metadata.toolCalls, 60, 'all 60 tool calls should have run');
	assert.ok(handled.markdown.includes('LONG-SESSION-DONE'), 'the final answer should reach the chat');
	assert.ok(metadata.summarizations >= 2, `expected at least two summarizations, got ${metadata.summarizations}`);
	assert.strictEqual(metadata.summarizations, script.summaries.length, 'every summarizer answer should have been accepted');
	assert.strictEqual(metadata.longhaul.summaryBlocks.length, metadata.summarizations, 'each summary should be stored in the metadata');
	assert.strictEqual(metadata.longhaul.rounds.length, 61, '60 tool rounds and the final round should be stored');

	const notices = [...handled.markdown.matchAll(NOTICE)];
	assert.strictEqual(notices.length, metadata.summarizations, `one notice per summarization in: ${handled.markdown.slice(0, 400)}`);
	assert.ok(notices.filter(n => n[3] === mode).length >= 2, `at least two notices should name ${mode}: ${notices.map(n => n[0]).join(' | ')}`);

	// Each summarizer request after the first absorbs the previous summary (and only that one).
	script.summarizerRequests.forEach((request, i) => {
		const text = allText(request);
		const seen = summaryNumbersIn(text);
		if (i === 0) {
			assert.deepStrictEqual(seen, [], 'the first summarizer request has no earlier summary');
			assert.ok(!text.includes('<previous-summary>\n'), 'the first summarizer request has no <previous-summary>');
		} else {
			assert.ok(text.includes(`<previous-summary>\n${summaryMarker(i)}`), `summarizer request ${i + 1} should carry SUMMARY-${i} in <previous-summary>`);
			assert.deepStrictEqual(seen, [i], `summarizer request ${i + 1} should hold only the previous summary`);
		}
	});

	// Agent prompts: the newest summary in <conversation-summary>, no superseded summary, calls paired with results.
	const agents = agentRequestsWithSummary(script);
	assert.strictEqual(agents.length, 61, 'one agent request per round');
	const keptAfterSummary: number[] = [];
	agents.forEach(({ request, newest, firstAfterSummary }, i) => {
		const text = allText(request);
		const problems = pairingProblems(request);
		assert.deepStrictEqual(problems, [], `agent request ${i + 1}: unpaired tool calls or results`);
		if (newest === 0) {
			assert.ok(!text.includes('<conversation-summary>\n'), `agent request ${i + 1} came before any summary`);
			return;
		}
		assert.ok(
			text.includes(`<conversation-summary>\n${summaryMarker(newest)}`),
			`agent request ${i + 1} should hold SUMMARY-${newest} in <conversation-summary>`,
		);
		assert.deepStrictEqual(summaryNumbersIn(text), [newest], `agent request ${i + 1} should show only the newest summary (SUMMARY-${newest})`);
		assert.strictEqual(text.split('<conversation-summary>\n').length - 1, 1, `agent request ${i + 1} should have exactly one summary block`);
		assert.ok(text.includes('read the data file piece by piece'), `agent request ${i + 1} should keep the user's request verbatim`);
		if (firstAfterSummary) keptAfterSummary.push(toolResultCount(request));
	});
	assert.strictEqual(keptAfterSummary.length, metadata.summarizations, 'each summarization should be followed by an agent request');
	// Each round here has one call, and the summary is made before the next prompt is rendered, so
	// that prompt holds exactly the rounds the notice says were kept verbatim.
	notices.forEach((n, i) =>
		assert.strictEqual(keptAfterSummary[i], Number(n[2]), `after summarization ${i + 1} the prompt should hold the ${n[2]} kept round(s)' results`),
	);
	return keptAfterSummary;
}

describe('long sessions in a small window', function () {
	this.timeout(120_000);
	// These tests time and count summarizer requests of summaries made at the overflow; summaries
	// prepared in the background are tested in continuity.test.ts.
	suiteSettings({ backgroundSummarizationThreshold: 0 });
	smallWindowSessions();

	let halfKept: number[] = [];
	let legacyKept: number[] = [];

	it('60 tool rounds with half-context summarization: several summaries, each absorbing the previous one, all calls paired', async () => {
		halfKept = await longSession('half-context');
	});

	it('60 tool rounds with legacy summarization: several summaries, each absorbing the previous one, all calls paired', async () => {
		legacyKept = await longSession('legacy');
	});

	it('half-context keeps more recent rounds verbatim than legacy', function () {
		if (!halfKept.length || !legacyKept.length) this.skip();
		const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
		assert.ok(Math.min(...halfKept) > Math.max(...legacyKept), `half-context kept ${halfKept.join(', ')}; legacy kept ${legacyKept.join(', ')}`);
		assert.ok(mean(halfKept) >= 2 * mean(legacyKept), `half-context should keep at least twice as much: ${mean(halfKept)} vs ${mean(legacyKept)}`);
	});

	it("later requests in the same chat see the first request's summary and rounds rebuilt from metadata", async () => {
		const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE, finalText: 'FIRST-DONE' });
		await setHandler(script.handler);
		await withSetting('halfContextSummarization', true, async () => {
			const first = await sendChat('@longhaul TASK-ALPHA: read the data file', { timeoutMs: 50_000 });
			const firstMeta = first.metadata as unknown as Metadata;
			assert.ok(firstMeta.summarizations >= 1, 'the first request should have summarized');
			const newestAfterFirst = script.summaries.length;
			// The rounds kept verbatim after the newest summary, according to the stored record.
			const anchor = firstMeta.longhaul.summaryBlocks[firstMeta.longhaul.summaryBlocks.length - 1].roundId;
			const anchorIndex = firstMeta.longhaul.rounds.findIndex(r => r.id === anchor);
			assert.ok(anchorIndex >= 0, 'the newest summary should anchor on a round of the first request');
			const keptIds = firstMeta.longhaul.rounds.slice(anchorIndex + 1).flatMap(r => r.toolCalls.map(c => c.id));
			const summarizedIds = firstMeta.longhaul.rounds.slice(0, anchorIndex + 1).flatMap(r => r.toolCalls.map(c => c.id));
			assert.ok(keptIds.length > 0, 'some rounds should stay verbatim');

			const agentsBefore = script.agentRequests.length;
			const second = await sendChat('@longhaul TASK-BETA: now summarize what you read', { timeoutMs: 50_000 });
			assert.strictEqual(second.errorMessage, undefined);
			const secondPrompt = script.agentRequests[agentsBefore];
			assert.ok(secondPrompt, 'the second request should reach the model');
			let text = allText(secondPrompt);
			assert.ok(text.includes('TASK-ALPHA: read the data file'), "request 2 should see request 1's user text");
			assert.ok(text.includes('TASK-BETA: now summarize what you read'), 'request 2 should see its own text');
			const newestSeen = script.log.slice(0, script.log.indexOf(script.log.find(e => e.request === secondPrompt)!)).filter(e => e.kind === 'summarizer').length;
			assert.ok(newestSeen >= newestAfterFirst);
			assert.ok(text.includes(`<conversation-summary>\n${summaryMarker(newestSeen)}`), `request 2 should see the newest summary SUMMARY-${newestSeen}`);
			assert.deepStrictEqual(summaryNumbersIn(text), [newestSeen], 'request 2 should see only the newest summary');
			assert.deepStrictEqual(pairingProblems(secondPrompt), []);
			if (newestSeen === newestAfterFirst) {
				// No summarization at the start of request 2: exactly the verbatim rounds of request 1 came back.
				assert.deepStrictEqual(toolCallIds(secondPrompt), keptIds, "request 2 should replay request 1's verbatim rounds from metadata");
			}
			for (const id of summarizedIds) assert.ok(!toolCallIds(secondPrompt).includes(id), `summarized call ${id} should not come back verbatim`);

			const agentsBeforeThird = script.agentRequests.length;
			const third = await sendChat('@longhaul TASK-GAMMA: one more time', { timeoutMs: 50_000 });
			assert.strictEqual(third.errorMessage, undefined);
			const thirdPrompt = script.agentRequests[agentsBeforeThird];
			text = allText(thirdPrompt);
			for (const user of ['TASK-ALPHA: read the data file', 'TASK-BETA: now summarize what you read', 'TASK-GAMMA: one more time']) {
				assert.ok(text.includes(user), `request 3 should see ${JSON.stringify(user)}`);
			}
			assert.ok(
				text.indexOf('TASK-ALPHA') < text.indexOf('TASK-BETA') && text.indexOf('TASK-BETA') < text.indexOf('TASK-GAMMA'),
				'user requests stay in order',
			);
			const newestForThird = script.log
				.slice(
					0,
					script.log.findIndex(e => e.request === thirdPrompt),
				)
				.filter(e => e.kind === 'summarizer').length;
			assert.ok(text.includes(`<conversation-summary>\n${summaryMarker(newestForThird)}`), `request 3 should see the newest summary SUMMARY-${newestForThird}`);
			// Per-turn blocks (docs/decisions.md decision 3): each earlier request that summarized keeps its own newest
			// block right after its user message, oldest first; none is dropped.
			const seen = summaryNumbersIn(text);
			assert.strictEqual(seen[seen.length - 1], newestForThird, `request 3's last block is the newest summary: ${seen.join(', ')}`);
			assert.ok(
				seen.every((n, i) => i === 0 || seen[i - 1] < n),
				`blocks in conversation order: ${seen.join(', ')}`,
			);
			const turnsOf = ['TASK-ALPHA', 'TASK-BETA', 'TASK-GAMMA'].map(t => text.indexOf(t));
			const turnOf = (n: number) => turnsOf.filter(at => at < text.indexOf(`<conversation-summary>\n${summaryMarker(n)}`)).length - 1;
			const turns = seen.map(turnOf);
			assert.deepStrictEqual(turns, [...new Set(turns)], `one block per turn: SUMMARY-${seen.join(', SUMMARY-')} in turns ${turns.join(', ')}`);
			if (newestForThird > newestSeen) {
				// Request 1's block is the one request 2 started with, or a later one that absorbed it
				// when a compaction of request 2 also covered request 1's verbatim rounds.
				assert.strictEqual(seen.length, 2, 'request 1 keeps a block after request 2 summarized its own rounds');
				assert.ok(seen[0] >= newestSeen, `request 1's block is SUMMARY-${newestSeen} or newer: ${seen.join(', ')}`);
				assert.deepStrictEqual(turns, [0, 1], "each block sits right after its own request's user message");
			}
			assert.deepStrictEqual(pairingProblems(thirdPrompt), []);
		});
	});
});
