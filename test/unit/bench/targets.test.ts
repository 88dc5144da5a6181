// The targets table (bench/replay/targets.ts) says why a goal is missed when the run itself shows it
// out of reach, and says nothing when it is not: a reason is never a label stuck on every miss.
import * as assert from 'node:assert/strict';
import { checkGoals } from '../../../bench/replay/targets';
import type { ReplayMetrics } from '../../../bench/replay/replayTypes';

/** A replay row with only what the targets read; the rest of ReplayMetrics is not looked at. */
function row(session: string, strategy: string, fields: Partial<ReplayMetrics>): ReplayMetrics {
	return {
		session,
		strategy,
		window: 32_000,
		requests: 100,
		intactHorizonRounds: 10,
		verbatimLimitRounds: 10,
		compactions: 0,
		summarizerInputTokens: 0,
		continuity: null,
		continuityRequests: 0,
		detailsChecks: 0,
		detailsReachable: null,
		clock: null,
		...fields,
	} as unknown as ReplayMetrics;
}

const goal = (goals: ReturnType<typeof checkGoals>, text: string) => {
	const found = goals.find(g => g.goal.includes(text));
	assert.ok(found, `no goal ${text}`);
	return found;
};

describe('the targets table: why a goal is missed', () => {
	it('names the ceiling when even every request at it would not give 1.25 × legacy', () => {
		const results = [
			// A session that never fills the window: every strategy keeps all of its 10 rounds.
			row('a', 'half-context', {}),
			row('a', 'legacy', {}),
			row('a', 'truncate-half', {}),
			// One that does: legacy keeps 30, half-context 38, and no prompt could hold more than 40.
			row('b', 'half-context', { intactHorizonRounds: 38, verbatimLimitRounds: 39, compactions: 3 }),
			row('b', 'legacy', { intactHorizonRounds: 30, verbatimLimitRounds: 38, compactions: 3 }),
			row('b', 'truncate-half', { intactHorizonRounds: 33, verbatimLimitRounds: 40, compactions: 2 }),
		];
		const ratio = goal(checkGoals(results), 'at 32k: half-context ≥ 1.25 × legacy');
		assert.equal(ratio.met, false);
		// Legacy keeps (10 + 30) / 2 = 20 rounds a request; the ceiling (10 + 40) / 2 = 25 allows 1.25×.
		assert.equal(ratio.why, undefined, 'a ceiling that allows the goal gives no reason');
		const lower = results.map(r => (r.session === 'b' && r.strategy === 'truncate-half' ? { ...r, verbatimLimitRounds: 39 } : r));
		const out = goal(checkGoals(lower), 'at 32k: half-context ≥ 1.25 × legacy');
		assert.equal(out.met, false);
		assert.match(out.why ?? '', /out of reach on this corpus: .*\(24\.50\), the ratio would be 1\.23×; 1 of 2 sessions never fill the window/);
	});

	it('judges the single-slot goal on every wait of the user, and says how many calls waited behind a summary', () => {
		const slot = (half: number, slotMs: number) => [
			row('a', 'half-context', { userWaitMsTotal: half, slotWaitMsTotal: slotMs, slotWaits: 3, userWaitMsMax: 40_000 }),
			row('a', 'legacy', { userWaitMsTotal: 100_000, slotWaitMsTotal: 0, slotWaits: 0, userWaitMsMax: 50_000 }),
		];
		const missed = goal(checkGoals([], [], slot(120_000, 70_000)), "single-slot: half-context total wait at 32k ≤ legacy's");
		assert.equal(missed.met, false);
		assert.equal(missed.measured, '120.0 s vs 100.0 s');
		assert.match(
			missed.why ?? '',
			/^3 of the agent's calls waited behind a started background request, 70\.0 s of the 120\.0 s \(longest wait 40\.0 s\); legacy: 0, 0\.0 s of its 100\.0 s$/,
		);
		const met = goal(checkGoals([], [], slot(90_000, 0)), "single-slot: half-context total wait at 32k ≤ legacy's");
		assert.deepEqual([met.met, met.why], [true, undefined]);
		assert.equal(goal(checkGoals([]), 'single-slot: half-context total wait at 32k').met, null, 'no single-slot replays: no figure');
	});

	it('counts summarizer tokens in and out, pending work included', () => {
		const results = [
			row('a', 'half-context', { summarizerTokens: 1200, backgroundDiscardedTokens: 300, backgroundTokensAtEnd: 0.25 }),
			row('a', 'legacy', { summarizerTokens: 1000 }),
		];
		const cost = goal(checkGoals(results), 'summarizer tokens (pending included) at 32k');
		assert.equal(cost.met, false);
		assert.equal(cost.measured, '1200 vs 1000');
		assert.match(cost.why ?? '', /300 tokens on background summaries never attached \(300 of them pending/);
	});

	it('gives the day-long miss by kind of fact, largest first, and no reason when it is met', () => {
		const dayLong = (continuity: number) => [
			row('concat', 'half-context', {
				window: 16_000,
				continuity,
				continuityRequests: 10,
				continuityMissed: { command: 30, request: 10, read: 60, changed: 0 },
			} as Partial<ReplayMetrics>),
		];
		const missed = goal(checkGoals([], dayLong(0.9)), 'day-long chat (16k) ≥ 0.93');
		assert.equal(missed.met, false);
		assert.match(missed.why ?? '', /of the 100 facts the prompts did not name: files read 60 %, commands with their outcome 30 %, past requests 10 %/);
		assert.doesNotMatch(missed.why ?? '', /files changed/);
		assert.equal(goal(checkGoals([], dayLong(0.96)), 'day-long chat (16k) ≥ 0.93').why, undefined);
	});
});
