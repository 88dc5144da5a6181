// GitHub Copilot's provider as another extension meets it, in the real VS Code: the scripted model's
// copilot profile (test/fixtures/scripted-model/src/copilotProfile.ts) counts, refuses and answers
// the way Copilot's wrapper does, attaches a stateful marker to every reply, and fails on demand
// with each error shape that is not "too long". Checked here:
//  - each of those errors, from the agent's own request and from the summarizer's: a rate limit is
//    waited out (a progress line) and the request goes on; quota, blocked, no permission and model
//    not found end the request with a message that says what to do, the summarizer's failure is not
//    treated as a failed summary (no Simple attempt, nothing truncated), and the next request sees
//    the whole conversation;
//  - stateful markers come back on every call that continues a reply, across turns too, and never
//    after the prompt before them changed;
//  - the token ratio is learned although the model's message count leaves tool results out, and
//    /context shows what was compared.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { HandledRequest } from '../../src/agent/api';
import type { ScriptedReply } from '../fixtures/scripted-model/src/api';
import { COPILOT } from '../fixtures/scripted-model/src/copilotProfile';
import { agentScript, assertAllRequestsPresent, createDataFiles, removeDataFiles, toolResults } from './faultScript';
import {
	corpusSession,
	longhaul,
	playTurns,
	resetSession,
	say,
	scriptedModel,
	sendChat,
	setHandler,
	suiteSettings,
	withSetting,
	SCRIPTED_MODEL_SELECTOR,
} from './helpers';
import { readLonghaulLog } from './longhaulLog';
import { isCondenseRequest, isSummarizationRequest } from './sessionScript';
import { percentile } from '../../src/common/stats/percentile';

const WINDOW = 16_000;
const P1 = '@longhaul copilot turn one: read the data files';
const P2 = '@longhaul copilot turn two: keep reading the data files';
const P3 = '@longhaul copilot turn three: what did you find?';
const text = (query: string) => query.replace(/^@longhaul /, '');

/** The copilot profile without summary latency: these tests are about errors and markers, not timing. */
const PROFILE = { ...COPILOT, latency: undefined };

interface Metadata {
	longhaul: { rounds: { id: string; toolCalls: { id: string }[] }[] };
	summarizations: number;
	truncationsAfterFailedSummary: number;
	droppedRounds: number;
}
const metadataOf = (h: HandledRequest) => h.metadata as unknown as Metadata;

/** The fatal shapes, as Copilot's wrapper and VS Code throw them, and what the message must say. */
const FATAL: readonly { code: string; message: string; says: RegExp }[] = [
	{
		code: 'Blocked',
		message: 'The extension has been temporarily blocked due to making too many requests. Please try again later.',
		says: /blocked requests from this extension/,
	},
	{ code: 'ChatQuotaExceeded', message: "You've reached your monthly chat messages quota.", says: /quota is used up.*pick another model/ },
	{ code: 'NoPermissions', message: 'Access to the language model was not granted.', says: /may not use this model/ },
	{ code: 'NotFound', message: 'Language model scripted not found.', says: /no longer available/ },
];
const RATE_LIMITED = (seconds: number): ScriptedReply => ({
	throw: { code: 'ChatRateLimited', message: `Sorry, you have been rate-limited. Please wait ${seconds} seconds before trying again.` },
});

async function copilotSession(window = WINDOW): Promise<void> {
	const scripted = await scriptedModel();
	await scripted.setMaxInputTokens(window);
	scripted.setProfile(PROFILE);
}

/** Turn one: 8 reads, fits without summarizing. */
async function firstTurn(): Promise<void> {
	const script = agentScript({ id: 'cp1', toolCalls: 8 });
	await setHandler(script.handler);
	const handled = await sendChat(P1);
	assert.strictEqual(handled.errorMessage, undefined, `turn one failed: ${handled.errorMessage}`);
	assert.strictEqual(script.summarizerRequests.length, 0, 'turn one should fit without summarizing');
}

/** A follow-up with a working model: it succeeds and sees every user request and the rounds `kept` (verbatim or summarized). */
async function assertConversationContinues(earlier: readonly string[], keptCalls: readonly string[]): Promise<void> {
	const script = agentScript({ id: 'cp3', toolCalls: 1, finalText: 'Follow-up answered.' });
	await setHandler(script.handler);
	const handled = await sendChat(P3, { timeoutMs: 60_000 });
	assert.strictEqual(handled.errorMessage, undefined, `the follow-up failed: ${handled.errorMessage}`);
	assert.match(handled.markdown, /Follow-up answered\./);
	const first = script.agentRequests[0];
	assertAllRequestsPresent(first, [...earlier, text(P3)], 'follow-up');
	const verbatim = new Set(toolResults(first).map(r => r.callId));
	const summarized = first.messages.some(m => m.parts.some(p => p.kind === 'text' && p.value.includes('<conversation-summary>')));
	for (const id of keptCalls) assert.ok(verbatim.has(id) || summarized, `the round of ${id} is neither verbatim nor summarized in the follow-up`);
}

describe('Copilot provider: errors, rate limits and refusals', () => {
	// The forecast starts a background summary early against this instant test model; these tests
	// fail the agent's or the overflow summarizer's own requests, so nothing is prepared in the background.
	suiteSettings({ backgroundSummarizationThreshold: 0 });
	before(createDataFiles);
	after(removeDataFiles);
	beforeEach(async () => {
		await resetSession();
		await copilotSession();
	});
	afterEach(function () {
		if (this.currentTest?.state === 'failed') for (const line of readLonghaulLog().split('\n').slice(-30)) say(`      log: ${line}`);
	});

	it('agent: Blocked, ChatQuotaExceeded, NoPermissions and NotFound each end their request at once with a clear message; the rounds done are kept and the conversation goes on', async function () {
		this.timeout(120_000);
		const prompts = [P1];
		const kept: string[] = [];
		const one = agentScript({ id: 'ag0', toolCalls: 2 });
		await setHandler(one.handler);
		assert.strictEqual((await sendChat(P1)).errorMessage, undefined);
		kept.push('ag0-0', 'ag0-1');
		for (const [i, { code, message, says }] of FATAL.entries()) {
			const inner = agentScript({ id: `ag${i + 1}`, toolCalls: 3 });
			let failed = 0;
			await setHandler(request => {
				if (inner.agentRequests.length === 2 && !failed) {
					failed++;
					return { throw: { code, message } };
				}
				return inner.handler(request);
			});
			const prompt = `@longhaul copilot turn ${i + 2}: the model fails with ${code}`;
			prompts.push(prompt);
			const handled = await sendChat(prompt);
			assert.match(handled.errorMessage ?? '', says, code);
			assert.match(handled.errorMessage ?? '', /Nothing was lost/, code);
			assert.strictEqual(failed, 1, `${code} is not retried`);
			const stored = metadataOf(handled).longhaul.rounds.flatMap(r => r.toolCalls.map(c => c.id));
			assert.deepEqual(stored, [`ag${i + 1}-0`, `ag${i + 1}-1`], `${code}: the rounds before the failure are stored`);
			kept.push(...stored);
			// The next request's prompt has every earlier request and every round done so far.
			assertAllRequestsPresent(inner.agentRequests[0], prompts.map(text), code);
		}
		await assertConversationContinues(prompts.map(text), kept);
	});

	it('summarizer: Blocked, ChatQuotaExceeded, NoPermissions and NotFound each end their request instead of a failed summary: no Simple attempt, nothing truncated, the conversation goes on', async function () {
		this.timeout(180_000);
		await firstTurn();
		const prompts = [P1];
		const kept: string[] = [];
		await withSetting('backgroundSummarizationThreshold', 0, async () => {
			for (const [i, { code, message, says }] of FATAL.entries()) {
				// The first request overflows after a few reads; every later one overflows at once (the conversation only grows).
				const script = agentScript({ id: `su${i}`, toolCalls: 16, summarizer: () => ({ throw: { code, message } }) });
				await setHandler(script.handler);
				const prompt = `@longhaul copilot turn ${i + 2}: the summarizer fails with ${code}`;
				prompts.push(prompt);
				const handled = await sendChat(prompt, { timeoutMs: 60_000 });
				assert.strictEqual(script.summarizerRequests.length, 1, `${code}: one summarizer request, no Simple attempt`);
				assert.match(handled.errorMessage ?? '', says, code);
				assert.doesNotMatch(handled.markdown, /could not be summarized|Removed \d+ old tool results?|Removed \d+ older rounds?/, code);
				const meta = metadataOf(handled);
				assert.strictEqual(meta.truncationsAfterFailedSummary, 0, code);
				assert.strictEqual(meta.droppedRounds, 0, code);
				assert.strictEqual(meta.summarizations, 0, code);
				kept.push(...meta.longhaul.rounds.flatMap(r => r.toolCalls.map(c => c.id)));
				const last = script.agentRequests.at(-1);
				if (last) assertAllRequestsPresent(last, prompts.map(text), code);
			}
			assert.ok(kept.length >= 1, 'the first overflowing request stored the rounds before the overflow');
			await assertConversationContinues(prompts.map(text), kept);
		});
	});

	it("agent: the wrapper's plain 'Message exceeds token limit.' is recovered once: the ratio tightens, the same step is sent again, its marker still comes back", async function () {
		this.timeout(60_000);
		const inner = agentScript({ id: 'tl', toolCalls: 4, finalText: 'Done after the refusal.' });
		let refused = 0;
		await setHandler(request => {
			if (inner.agentRequests.length === 2 && !refused) {
				refused++;
				return { throw: { message: 'Message exceeds token limit.' } };
			}
			return inner.handler(request);
		});
		const handled = await sendChat(P1);
		assert.strictEqual(handled.errorMessage, undefined, handled.errorMessage);
		assert.match(handled.markdown, /The model refused the prompt as too long \("Message exceeds token limit\./);
		assert.match(handled.markdown, /Done after the refusal\./);
		assert.strictEqual((handled.metadata as { recoveries: number }).recoveries, 1);
		assert.strictEqual(inner.agentRequests.length, 5, 'each scripted step ran once');
		const markers = (await scriptedModel()).markers;
		assert.deepEqual({ missing: markers.missing, stale: markers.stale, wrong: markers.wrong }, { missing: 0, stale: 0, wrong: 0 });
		assert.strictEqual(markers.continuedWithMarker, markers.continued);
	});

	it('agent: ChatRateLimited is waited out (a progress line each time) and the same step goes on', async function () {
		this.timeout(60_000);
		const inner = agentScript({ id: 'rl', toolCalls: 2, finalText: 'Done despite the rate limit.' });
		let limited = 0;
		await setHandler(request => {
			if (inner.agentRequests.length === 1 && limited < 2) {
				limited++;
				return RATE_LIMITED(1);
			}
			return inner.handler(request);
		});
		const started = Date.now();
		const handled = await sendChat(P1);
		assert.strictEqual(handled.errorMessage, undefined, handled.errorMessage);
		assert.match(handled.markdown, /Done despite the rate limit\./);
		assert.strictEqual(limited, 2);
		assert.deepEqual(
			handled.progress.filter(p => /rate-limited/.test(p)),
			['The model is rate-limited; trying again in 1 s (retry 1 of 4)…', 'The model is rate-limited; trying again in 1 s (retry 2 of 4)…'],
		);
		assert.ok(Date.now() - started >= 2_000, 'it waited the second the provider asked for, twice');
		assert.strictEqual(inner.agentRequests.length, 3, 'each scripted step ran once');
	});

	it('agent: a rate limit that does not pass ends the request after the bounded retries; the conversation goes on', async function () {
		this.timeout(60_000);
		await firstTurn();
		const inner = agentScript({ id: 'cp2', toolCalls: 3 });
		let limited = 0;
		await setHandler(request => {
			if (inner.agentRequests.length === 1) {
				limited++;
				return RATE_LIMITED(1);
			}
			return inner.handler(request);
		});
		const handled = await sendChat(P2);
		assert.strictEqual(limited, 5, 'the first try and 4 retries');
		assert.match(handled.errorMessage ?? '', /still rate-limited after 5 tries over 4 s.*Nothing was lost/);
		await assertConversationContinues([text(P1), text(P2)], ['cp2-0']);
	});

	it('summarizer: ChatRateLimited is waited out and the summary is made; nothing is truncated', async function () {
		this.timeout(90_000);
		await firstTurn();
		let limited = 0;
		const script = agentScript({
			id: 'cp2',
			toolCalls: 16,
			summarizer: () => (limited++ < 1 ? RATE_LIMITED(1) : { text: '<summary>The agent read the data files; nothing was changed.</summary>' }),
		});
		await setHandler(script.handler);
		const handled = await withSetting('backgroundSummarizationThreshold', 0, () => sendChat(P2, { timeoutMs: 60_000 }));
		assert.strictEqual(handled.errorMessage, undefined, handled.errorMessage);
		assert.ok(limited >= 2, 'the summarizer was rate-limited, then answered');
		assert.ok(
			handled.progress.some(p => /rate-limited; trying again in 1 s/.test(p)),
			`progress: ${handled.progress.join(' | ')}`,
		);
		assert.match(handled.markdown, /Summarized \d+ older rounds?/);
		assert.doesNotMatch(handled.markdown, /could not be summarized|Removed \d+ old tool results?/);
		assert.strictEqual(metadataOf(handled).truncationsAfterFailedSummary, 0);
		await assertConversationContinues([text(P1), text(P2)], []);
	});
});

describe('Copilot provider: stateful markers and the token ratio', () => {
	before(createDataFiles);
	after(removeDataFiles);
	beforeEach(resetSession);

	it('every call that continues a reply sends its marker back, across turns too; after /compact the stale ones are left out; never shown', async function () {
		this.timeout(120_000);
		await copilotSession(128_000);
		const one = agentScript({ id: 'mk1', toolCalls: 3, finalText: 'Turn one done.' });
		await setHandler(one.handler);
		const first = await sendChat(P1);
		const two = agentScript({ id: 'mk2', toolCalls: 2, finalText: 'Turn two done.' });
		await setHandler(two.handler);
		const second = await sendChat(P2);
		const scripted = await scriptedModel();
		let report = scripted.markers;
		say(`      markers: ${JSON.stringify(report)}`);
		assert.strictEqual(report.issued, 7, 'one marker per reply');
		assert.deepEqual(
			{ missing: report.missing, wrong: report.wrong, stale: report.stale, altered: report.altered },
			{ missing: 0, wrong: 0, stale: 0, altered: 0 },
		);
		// Turn one: calls 2-4 continue a reply; turn two: all three, the first one continuing turn one's last reply (stored with the turn).
		assert.strictEqual(report.continued, 6);
		assert.strictEqual(report.continuedWithMarker, 6);
		const stored = JSON.stringify(first.metadata);
		assert.match(stored, /"providerState":\{"model":"longhaul-scripted\/scripted"/, 'the marker is stored with its round');
		for (const handled of [first, second]) assert.doesNotMatch(handled.markdown, /resp-\d|stateful_marker/, 'never shown');

		// /compact (half-context: the newest rounds stay verbatim after the summary) summarizes the older
		// rounds: their markers go with them, and the kept rounds' markers, whose prompt changed, are not sent.
		await withSetting('halfContextSummarization', true, async () => {
			await setHandler(agentScript({ id: 'mkc', toolCalls: 0 }).handler);
			const compacted = await sendChat('@longhaul /compact');
			assert.match(compacted.markdown, /Summarized/);
			const three = agentScript({ id: 'mk3', toolCalls: 1, finalText: 'Turn three done.' });
			await setHandler(three.handler);
			await sendChat(P3);
		});
		report = scripted.markers;
		say(`      markers after /compact: ${JSON.stringify(report)}`);
		assert.strictEqual(report.stale, 0, 'no marker is sent after the prompt before it changed');
		assert.strictEqual(report.missing, 0);
		assert.ok(report.rewritten >= 1, 'the summary changed the prompt before the kept rounds');
		assert.strictEqual(report.continuedWithMarker, report.continued);
	});

	it("learns the model's ratio although its message count leaves tool results out, and /context shows what it compared", async function () {
		this.timeout(120_000);
		await copilotSession(128_000);
		const script = agentScript({ id: 'cal', toolCalls: 6 });
		await setHandler(script.handler);
		await sendChat(P1);
		const { api } = await longhaul();
		const deadline = Date.now() + 10_000;
		while (api.tokenRatio(SCRIPTED_MODEL_SELECTOR) < 1.05 && Date.now() < deadline) await new Promise(r => setTimeout(r, 100));
		const ratio = api.tokenRatio(SCRIPTED_MODEL_SELECTOR);
		assert.ok(ratio > 1.05 && ratio < 1.6, `the sampled ratio should reflect the profile's count (1.1x prose, 1.25x code, tool calls 1.5x), got ${ratio}`);
		const context = await sendChat('@longhaul /context');
		assert.match(
			context.markdown,
			new RegExp(`\\*\\*Token ratio:\\*\\* ${ratio.toFixed(2).replace('.', '\\.')} model tokens per local token \\(learned from \\d+ comparisons?`),
		);
		assert.match(
			context.markdown,
			/Last comparison: \d+ messages and the tool definitions, \d+ of them counted as text: [\d,]+ local tokens, [\d,]+ by the model \(1\.\d{3}\)\./,
		);
		assert.match(context.markdown, /leaves tool results out, so messages with tool results are compared as text/);
		assert.match(context.markdown, /\| Held for the provider's own instructions \| \d+ \|/);
	});
});

// ---- A recorded session through the copilot profile ----

/** Two turns, 84 rounds: summaries at 16k, and a second turn that carries the first one's markers. */
const SESSION = 'msa-pvlib-1606-dschat';

interface ReplayMetadata extends Metadata {
	recoveries: number;
	tokenRatio: { start: number; end: number; changes: { modelCall: number; ratio: number }[] };
}

describe('Copilot provider: a recorded session at 16k', function () {
	beforeEach(resetSession);
	after(resetSession);

	it(`${SESSION} plays every round at 16k: 0 refused, 0 failed, markers back on every call that continues a reply, the margin measured, the ratio in /context`, async function () {
		this.timeout(15 * 60_000);
		const { file, script } = corpusSession(this, SESSION);
		const scripted = await scriptedModel();
		await scripted.setMaxInputTokens(WINDOW);
		scripted.setProfile(COPILOT);
		scripted.startReplay(file);
		const { handled, wallMs } = await playTurns(script.turns, 'half-context', 80);
		const report = scripted.replay;
		assert.ok(report, 'the fixture should report the replay');
		const markers = scripted.markers;
		const context = await sendChat('@longhaul /context', { timeoutMs: 60_000 });

		const metadata = handled.map(h => h.metadata as unknown as ReplayMetadata);
		const failed = handled.filter(h => h.errorMessage !== undefined);
		const accepted = scripted.requests.filter(r => !r.rejected);
		const rejected = scripted.requests.filter(r => r.rejected);
		const agentRequests = accepted.filter(r => !isSummarizationRequest(r) && !isCondenseRequest(r));
		// The margin: what the wrapper would still have accepted, in the model's tokens (its instructions and the tools counted).
		const margins = agentRequests.map(r => r.maxInputTokens - (r.modelTokens ?? 0));
		const summaries = metadata.reduce((n, m) => n + m.summarizations, 0);
		const ratio = metadata[metadata.length - 1].tokenRatio;
		const lines = [
			`      copilot ${SESSION} (half-context, 16k): ${agentRequests.length} agent requests, ${report.toolCallsServed} tool calls, ${summaries} summaries, wall ${(wallMs / 1000).toFixed(1)} s; failed ${failed.length}${failed.length ? ` (${failed.map(h => h.errorMessage).join(' | ')})` : ''}; refused as too long ${rejected.length} (recoveries ${metadata.reduce((n, m) => n + m.recoveries, 0)})`,
			`      margin under the wrapper's limit (model tokens): min ${Math.min(...margins)}, p5 ${percentile(margins, 5).toFixed(0)}, p50 ${percentile(margins, 50).toFixed(0)}; within 2% of the window: ${margins.filter(m => m < WINDOW * 0.02).length} of ${margins.length}`,
			`      markers: ${JSON.stringify(markers)}`,
			`      token ratio: start ${ratio.start.toFixed(3)}, end ${ratio.end.toFixed(3)}; changes ${metadata
				.flatMap(m => m.tokenRatio.changes)
				.map(c => `${c.modelCall}:${c.ratio}`)
				.join(' ')}`,
			...(report.problems.length ? [`      replay problems: ${report.problems.slice(0, 5).join(' | ')}`] : []),
		];
		for (const line of lines) say(line);
		const dir = path.resolve(__dirname, '..', '..', '..', 'test-results');
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(
			path.join(dir, `copilot-replay-${SESSION}-16k.json`),
			JSON.stringify({ session: SESSION, window: WINDOW, wallMs, failed: failed.length, rejected: rejected.length, margins, markers, ratio, lines }, null, 2),
		);

		assert.deepEqual(
			failed.map(h => h.errorMessage),
			[],
			'no request may fail',
		);
		assert.strictEqual(rejected.length, 0, 'no request may be refused by the wrapper');
		assert.ok(report.finished, 'every recorded turn should be played to its closing round');
		const recordedCalls = script.turns.reduce((n, t) => n + t.rounds.reduce((m, r) => m + r.calls.length, 0), 0);
		assert.strictEqual(report.toolCallsServed, recordedCalls, 'every recorded call should reach the replay tool: no round is lost');
		assert.ok(summaries > 0, 'the session should need summaries at 16k');
		assert.deepEqual({ missing: markers.missing, wrong: markers.wrong, stale: markers.stale }, { missing: 0, wrong: 0, stale: 0 });
		assert.strictEqual(markers.continuedWithMarker, markers.continued, 'every call that continues a reply sends its marker back');
		assert.ok(markers.continued >= agentRequests.length / 2, `most calls continue the reply before them, got ${markers.continued} of ${agentRequests.length}`);
		assert.ok(ratio.end > 1.05, `the ratio should have been learned, got ${ratio.end}`);
		assert.match(context.markdown, new RegExp(`\\*\\*Token ratio:\\*\\* ${ratio.end.toFixed(2).replace('.', '\\.')} model tokens per local token`));
		assert.match(context.markdown, /Last comparison: \d+ messages and the tool definitions, \d+ of them counted as text/);
	});
});
