// longhaul_recall in the real extension host: offered only once something is summarized (and only
// then named in the instructions), it searches the summarized rounds and gives back a round's tool
// output word for word, in the request that summarized and in a later one (rounds read back from
// the chat metadata). Scripted model, 16k window (sessionScript.ts).
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ScriptedReply, ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { say, sendChat, setHandler, smallWindowSessions, suiteSettings } from './helpers';
import { DATA_FILE, allText, createSessionScript, isSummarizationRequest, summaryNumbersIn } from './sessionScript';

const RECALL = 'longhaul_recall';

function resultOf(request: ScriptedRequest, callId: string): string | undefined {
	for (const m of request.messages) for (const p of m.parts) if (p.kind === 'toolResult' && p.callId === callId) return p.text;
	return undefined;
}

describe('longhaul_recall in the real VS Code', function () {
	this.timeout(180_000);
	smallWindowSessions();
	suiteSettings({ backgroundSummarizationThreshold: 0, halfContextSummarization: true, maskOldToolResults: false });

	it('after a summary the model calls it and receives the exact older tool output; before, it is neither offered nor mentioned', async () => {
		const inner = createSessionScript({ toolCalls: n => (n === 1 ? 30 : 0), dataFile: DATA_FILE });
		const agentRequests: ScriptedRequest[] = [];
		/** What the model asked of recall, in order, with the request that came back with the answer. */
		const asked: { callId: string; input: object }[] = [];
		const plan: { callId: string; input: object; when: (r: ScriptedRequest) => boolean }[] = [
			// Right after the first summary: search for a line only the first reads returned.
			{ callId: 'recall-search', input: { query: 'record 0003:' }, when: r => summaryNumbersIn(allText(r)).length > 0 },
			// Then read round 1 (the session's first read) word for word.
			{ callId: 'recall-read', input: { round: 1 }, when: () => true },
			// A regular expression that would take exponential time in a backtracking engine.
			{ callId: 'recall-regex', input: { query: '(a+)+$', isRegexp: true }, when: () => true },
			// In the next chat request, from the stored conversation: search by tool name and text.
			{ callId: 'recall-later', input: { query: 'record 0001:', tool: 'readFile' }, when: r => allText(r).includes('RECALL-TURN-TWO') },
		];
		await setHandler(async (request): Promise<ScriptedReply> => {
			if (isSummarizationRequest(request)) return inner.handler(request);
			agentRequests.push(request);
			const next = plan[asked.length];
			if (next && next.when(request)) {
				asked.push(next);
				return { text: `Recall ${asked.length}.`, toolCalls: [{ callId: next.callId, name: RECALL, input: next.input }] };
			}
			if (asked.length === 3 && !allText(request).includes('RECALL-TURN-TWO')) return { text: 'Done with the first request.' };
			if (asked.length === 4) return { text: 'Done.' };
			return inner.handler(request);
		});

		const first = await sendChat('@longhaul RECALL-TURN-ONE: read the data file', { timeoutMs: 120_000 });
		assert.strictEqual(first.errorMessage, undefined);
		const summarizedAt = agentRequests.findIndex(r => summaryNumbersIn(allText(r)).length > 0);
		assert.ok(summarizedAt > 0, 'the session should summarize');
		for (const r of agentRequests.slice(0, summarizedAt)) {
			assert.ok(!r.tools.includes(RECALL), 'recall is not offered before anything is summarized');
			assert.ok(!allText(r).includes(RECALL), 'nor mentioned in the instructions');
		}
		const after = agentRequests[summarizedAt];
		assert.ok(after.tools.includes(RECALL), `offered once something is summarized: ${after.tools.join(', ')}`);
		assert.match(allText(after), /longhaul_recall searches them/);

		// The first read's result, as the model saw it before anything was summarized.
		const firstRead = agentRequests.map(r => resultOf(r, 'call-1-1')).find(t => t !== undefined);
		assert.ok(firstRead && firstRead.includes('record 0001:'), 'the first read is in an early prompt');

		const answer = (callId: string) => {
			const text = agentRequests.map(r => resultOf(r, callId)).find(t => t !== undefined);
			assert.ok(text !== undefined, `the answer to ${callId} reached the model`);
			return text;
		};
		const search = answer('recall-search');
		assert.match(search, /^Searched summarized rounds #1–#\d+ \(of \d+\)\. \d+\+? matches for "record 0003:":/);
		assert.match(search, /^#1 \(request 1\) call 1 longhaul_readFile .* · result, line \d+: \d+: record 0003:/m);
		const read = answer('recall-read');
		assert.match(read, /^Round #1 \(request 1: "RECALL-TURN-ONE: read the data file"\), summarized; word for word/);
		assert.ok(read.includes(firstRead), 'recall returns the exact older tool output');
		const regex = answer('recall-regex');
		assert.match(regex, /^Searched summarized rounds #1–#\d+ \(of \d+\)\. (No matches|\d+\+? matches) for \/\(a\+\)\+\$\//);
		assert.ok(!regex.includes('stopped early'), regex);

		const second = await sendChat('@longhaul RECALL-TURN-TWO: what did the first reads say?', { timeoutMs: 60_000 });
		assert.strictEqual(second.errorMessage, undefined);
		const later = answer('recall-later');
		assert.match(later, /matches for "record 0001:" in calls with tool "readFile":/);
		assert.match(later, /^#1 \(request 1\) call 1 longhaul_readFile/m, later);
	});

	it('a regular expression that takes seconds over a long summarized line runs off the extension host thread, stopped at the time limit', async () => {
		const folder = vscode.workspace.workspaceFolders?.[0];
		assert.ok(folder);
		// Twenty alternatives of a 1,000-character window, each ending in a letter the line lacks: RE2
		// (case-insensitive, as recall runs it) needs about 6 s for the first 16,800 characters of the
		// line alone, so even the part left after the tool-result cut runs well past the 2 s limit.
		const pattern = [...'xyzqjkwfgimnstuxyzqj'].map((letter, i) => `[\\s\\S]{${1000 - i}}${letter}`).join('|');
		const longFile = vscode.Uri.joinPath(folder.uri, 'recall-long-line.txt');
		// One line of 56,700 characters of words.
		await vscode.workspace.fs.writeFile(longFile, Buffer.from('record alpha7 bravo8 '.repeat(2700) + '\n', 'utf8'));
		try {
			const inner = createSessionScript({ toolCalls: n => (n === 1 ? 30 : 0), dataFile: DATA_FILE });
			let phase: 'start' | 'reading' | 'recall' | 'done' = 'start';
			let lag = { last: 0, max: 0, timer: undefined as NodeJS.Timeout | undefined };
			const agentRequests: ScriptedRequest[] = [];
			await setHandler(async (request): Promise<ScriptedReply> => {
				if (isSummarizationRequest(request)) return inner.handler(request);
				agentRequests.push(request);
				if (phase === 'start') {
					phase = 'reading';
					inner.handler(request); // the script counts its chat requests from their first model request
					return { text: 'Reading the long file.', toolCalls: [{ callId: 'long-read', name: 'longhaul_readFile', input: { path: 'recall-long-line.txt' } }] };
				}
				if (phase === 'reading' && summaryNumbersIn(allText(request)).length > 0) {
					phase = 'recall';
					// From here until the answer comes back, the extension host's event loop is watched.
					lag = { last: Date.now(), max: 0, timer: undefined };
					lag.timer = setInterval(() => {
						const now = Date.now();
						lag.max = Math.max(lag.max, now - lag.last - 20);
						lag.last = now;
					}, 20);
					return { text: 'Searching.', toolCalls: [{ callId: 'recall-slow', name: RECALL, input: { query: pattern, isRegexp: true } }] };
				}
				if (phase === 'recall') {
					clearInterval(lag.timer);
					lag.max = Math.max(lag.max, Date.now() - lag.last - 20);
					phase = 'done';
					return { text: 'Done.' };
				}
				return phase === 'done' ? { text: 'Done.' } : inner.handler(request);
			});
			const reply = await sendChat('@longhaul RECALL-SLOW: read the long file and the data file', { timeoutMs: 150_000 });
			clearInterval(lag.timer);
			assert.strictEqual(reply.errorMessage, undefined);
			assert.strictEqual(
				phase,
				'done',
				`the session summarized and the model got the recall answer; agent requests: ${agentRequests.map(r => `${summaryNumbersIn(allText(r)).join(',') || '-'}/${allText(r).length}`).join(' ')}; summarizer requests: ${inner.summarizerRequests.length}`,
			);
			const answer = agentRequests.map(r => resultOf(r, 'recall-slow')).find(t => t !== undefined);
			assert.ok(answer !== undefined, 'the answer reached the model');
			assert.ok(answer.startsWith('Searched summarized rounds #1–#') && answer.includes(`No matches for /${pattern}/`), answer);
			assert.match(answer, /\[the search stopped early: the time limit \(2000 ms\) was reached/, `the search really ran for its whole time limit: ${answer}`);
			assert.ok(lag.max < 1000, `the extension host was blocked ${lag.max} ms while recall searched`);
			say(
				`recall of a pattern that takes several seconds over a 56,700-character line: stopped at the 2,000 ms limit, extension host blocked at most ${lag.max} ms`,
			);
		} finally {
			await vscode.workspace.fs.delete(longFile).then(undefined, () => undefined);
		}
	});
});
