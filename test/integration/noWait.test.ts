// Issue 31 in the real VS Code: with half-context and background summaries (the recommended
// configuration), no compaction makes a request wait more than 5 s for a summary (decision 43, the
// bridge). The scripted model plays a recorded corpus session at 16k with the realistic profile: it
// counts and refuses like a real provider, and it writes summaries at a hosted model's field speed
// (FIELD_LATENCY: some 30 s or more each at 16k), while the agent's own replies come at test speed.
// A summary is thus ready many rounds after it was started, harder than in the field, where
// an agent round takes seconds too. Any wait for one would be far over 5 s.
import * as assert from 'assert';
import type { HandledRequest } from '../../src/agent/api';
import { FIELD_LATENCY, REALISTIC, TEST_LATENCY } from '../fixtures/scripted-model/src/realisticProfile';
import { corpusSession, longhaul, playTurns, resetSession, say, scriptedModel } from './helpers';
import { readLonghaulLog } from './longhaulLog';
import { isSummarizationRequest } from './sessionScript';

/** A corpus session that overflows a 16k window many times in one request. */
const SESSION = 'msa-pvlib-1606-dschat';
const WINDOW = 16_000;
/** The bound on one compaction's wait at 16k. */
const MAX_WAIT_MS = 5_000;

interface Metadata {
	summarizations: number;
	compactionWaitMs: { fits: number; max: number; total: number };
	background: { started: number; used: number; discarded: number; handedOver: number };
}
const metadataOf = (h: HandledRequest) => h.metadata as unknown as Metadata;

describe('No wait at compaction: half-context with background summaries at field speed', function () {
	beforeEach(async () => {
		await resetSession();
		await (await longhaul()).api.forgetTokenRatios();
	});
	after(async () => {
		await resetSession();
		await (await longhaul()).api.forgetTokenRatios();
	});

	it(`${SESSION} at 16k: every round played, no request fails, no compaction waits more than 5 s, summaries land meanwhile`, async function () {
		this.timeout(15 * 60_000);
		const { file, script } = corpusSession(this, SESSION);
		const scripted = await scriptedModel();
		await scripted.setMaxInputTokens(WINDOW);
		scripted.setProfile({ ...REALISTIC, latency: FIELD_LATENCY, agentLatency: TEST_LATENCY });
		scripted.startReplay(file);
		const logBefore = readLonghaulLog().length;
		const { handled, wallMs } = await playTurns(script.turns, 'half-context', 80);
		const report = scripted.replay;
		assert.ok(report, 'the fixture should report the replay');
		const metadata = handled.map(metadataOf);
		const waits = metadata.map(m => m.compactionWaitMs);
		const longest = Math.max(0, ...waits.map(w => w.max));
		const summarizerRequests = scripted.requests.filter(r => !r.rejected && isSummarizationRequest(r)).length;
		const bridges = (
			readLonghaulLog()
				.slice(logBefore)
				.match(/^.*bridge: set aside .*$/gm) ?? []
		).length;
		const used = metadata.reduce((n, m) => n + m.background.used, 0);
		say(
			`      ${SESSION} at 16k, summaries at field speed: wall ${(wallMs / 1000).toFixed(1)} s; set-asides ${bridges}; summaries started ${metadata.reduce((n, m) => n + m.background.started, 0)}, attached ${used}, summarizer requests ${summarizerRequests}; fits that waited ${waits.reduce((n, w) => n + w.fits, 0)}, longest wait ${longest} ms, total ${waits.reduce((n, w) => n + w.total, 0)} ms`,
		);

		assert.deepStrictEqual(
			handled.filter(h => h.errorMessage !== undefined).map(h => h.errorMessage),
			[],
			'no request may fail',
		);
		assert.ok(report.finished, 'every recorded turn should be played to its closing round');
		const recordedCalls = script.turns.reduce((n, t) => n + t.rounds.reduce((m, r) => m + r.calls.length, 0), 0);
		assert.strictEqual(report.toolCallsServed, recordedCalls, 'every recorded call should reach the replay tool: no round is lost');
		assert.ok(longest <= MAX_WAIT_MS, `a compaction made the request wait ${longest} ms (bound ${MAX_WAIT_MS} ms)`);
		// The window filled and the bridge stood in for summaries under way; some of them landed meanwhile.
		assert.ok(bridges >= 2, `the bridge should have set rounds aside more than once, did ${bridges} times`);
		assert.ok(used >= 1, `a background summary should have been attached, ${used} were`);
	});
});
