// The targets table: issue 31's goals, stated in this benchmark's measures (intact horizon,
// knowledge with information-limited summaries and recall the prompt makes possible, the noisy
// queued clock), each checked on the run as met or missed. Corpus figures are sums, or means
// weighted by requests (horizons) and by probed requests or detail checks (knowledge); a p95 wait
// is the highest of the sessions' p95s. The day-long chat is the full run's `--concat` replay at 16k.
import type { ReplayMetrics, StrategyName } from './replayTypes';
import { summarizeKnowledge } from '../knowledge/knowledgeTable';

/**
 * The configuration the README recommends: half-context with the done-ledger and background
 * summaries (which bridge, decision 43), masking off: masking keeps fewer rounds whole.
 */
export const RECOMMENDED: StrategyName = 'half-context';
/** The day-long chat's replays in the full run: the recommended configuration (its waits too) and half-context with masking. */
export const DAY_LONG_STRATEGIES: readonly StrategyName[] = [RECOMMENDED, 'half-context+mask'];
/** Issue 31's starting point: half-context's total wait over the day-long chat at 16k (its text: 3,132 s); the goal is a tenth of it. */
export const DAY_LONG_WAIT_BEFORE_MS = 3_132_000;

export interface GoalCheck {
	readonly goal: string;
	/** What the run measured, as printed. */
	readonly measured: string;
	/** null: the run has no figure for it (the window or the chat was not replayed). */
	readonly met: boolean | null;
}

const known = (x: number | null | undefined): x is number => x !== null && x !== undefined;
const f2 = (x: number) => x.toFixed(2);
const f3 = (x: number) => x.toFixed(3);
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function rowsOf(results: readonly ReplayMetrics[], window: number, strategy: string): ReplayMetrics[] {
	return results.filter(r => r.window === window && r.strategy === strategy);
}

function intactHorizon(rows: readonly ReplayMetrics[]): number | null {
	const requests = rows.reduce((s, r) => s + r.requests, 0);
	return requests ? rows.reduce((s, r) => s + r.intactHorizonRounds * r.requests, 0) / requests : null;
}

function check(goal: string, measured: string | null, met: boolean): GoalCheck {
	return measured === null ? { goal, measured: 'no figure in this run', met: null } : { goal, measured, met };
}

function horizonGoals(results: readonly ReplayMetrics[], window: number): GoalCheck[] {
	const k = `${window / 1000}k`;
	const best = intactHorizon(rowsOf(results, window, RECOMMENDED));
	const truncate = intactHorizon(rowsOf(results, window, 'truncate-half'));
	const legacy = intactHorizon(rowsOf(results, window, 'legacy'));
	const both = best !== null && truncate !== null && legacy !== null;
	return [
		check(`intact horizon at ${k}: ${RECOMMENDED} ≥ truncate-half`, both ? `${f2(best)} vs ${f2(truncate)}` : null, both && best >= truncate),
		check(
			`intact horizon at ${k}: ${RECOMMENDED} ≥ 1.25 × legacy`,
			both ? `${f2(best / legacy)}× (${f2(best)} vs ${f2(legacy)})` : null,
			both && best >= 1.25 * legacy,
		),
	];
}

function knowledgeGoals(results: readonly ReplayMetrics[], window: number): GoalCheck[] {
	const k = `${window / 1000}k`;
	const summary = summarizeKnowledge(results.filter(r => r.window === window));
	const of = (strategy: string) => summary.find(s => s.strategy === strategy);
	const best = of(RECOMMENDED);
	const references = [of('truncate-half')?.detailsReachable, of('keep-head-tail')?.detailsReachable];
	const lead = known(best?.detailsReachable) && references.every(known) ? best.detailsReachable - Math.max(...(references as number[])) : null;
	return [
		check(`continuity at ${k} (${RECOMMENDED}) ≥ 0.97`, known(best?.continuity) ? f3(best.continuity) : null, (best?.continuity ?? 0) >= 0.97),
		check(
			`details reachable at ${k} (${RECOMMENDED}) ≥ 0.8`,
			known(best?.detailsReachable) ? f3(best.detailsReachable) : null,
			(best?.detailsReachable ?? 0) >= 0.8,
		),
		check(`details reachable at ${k}: ahead of both references by ≥ 0.25`, lead !== null ? `${lead >= 0 ? '+' : ''}${f3(lead)}` : null, (lead ?? -1) >= 0.25),
	];
}

function waitGoal(results: readonly ReplayMetrics[], window: number, limitMs: number): GoalCheck {
	const rows = rowsOf(results, window, 'half-context').filter(r => r.clock !== null);
	const p95 = rows.length ? Math.max(0, ...rows.map(r => r.waitMsP95)) : null;
	return check(`half-context p95 wait at ${window / 1000}k ≤ ${sec(limitMs)}`, p95 !== null ? sec(p95) : null, p95 !== null && p95 <= limitMs);
}

function costGoal(results: readonly ReplayMetrics[], window: number): GoalCheck {
	const sum = (strategy: string) => rowsOf(results, window, strategy).reduce((n, r) => n + r.summarizerInputTokens, 0);
	const has = rowsOf(results, window, RECOMMENDED).length > 0 && rowsOf(results, window, 'legacy').length > 0;
	const best = sum(RECOMMENDED);
	const legacy = sum('legacy');
	return check(`summarizer input at ${window / 1000}k: ${RECOMMENDED} ≤ legacy`, has ? `${best} vs ${legacy}` : null, has && best <= legacy);
}

function dayLongGoals(dayLong: readonly ReplayMetrics[]): GoalCheck[] {
	const best = dayLong.find(r => r.strategy === RECOMMENDED);
	const half = dayLong.find(r => r.strategy === 'half-context' && r.clock !== null);
	return [
		check('continuity on the day-long chat (16k) ≥ 0.95', known(best?.continuity) ? f3(best.continuity) : null, (best?.continuity ?? 0) >= 0.95),
		check('half-context p95 wait on the day-long chat ≤ 5.0 s', half ? sec(half.waitMsP95) : null, half !== undefined && half.waitMsP95 <= 5000),
		check(
			`half-context total wait on the day-long chat ≤ ${sec(DAY_LONG_WAIT_BEFORE_MS / 10)} (a tenth of issue 31's ${sec(DAY_LONG_WAIT_BEFORE_MS)})`,
			half ? sec(half.waitMsTotal) : null,
			half !== undefined && half.waitMsTotal <= DAY_LONG_WAIT_BEFORE_MS / 10,
		),
	];
}

/** Every goal of issue 31 the run can check. */
export function checkGoals(results: readonly ReplayMetrics[], dayLong: readonly ReplayMetrics[] = []): GoalCheck[] {
	return [
		...horizonGoals(results, 16_000),
		...horizonGoals(results, 32_000),
		...knowledgeGoals(results, 16_000),
		...knowledgeGoals(results, 32_000),
		waitGoal(results, 16_000, 5000),
		waitGoal(results, 32_000, 2000),
		...dayLongGoals(dayLong),
		costGoal(results, 16_000),
		costGoal(results, 32_000),
	];
}

export function formatGoals(goals: readonly GoalCheck[]): string {
	const width = Math.max(...goals.map(g => g.goal.length));
	const mwidth = Math.max(...goals.map(g => g.measured.length));
	return goals.map(g => `${g.goal.padEnd(width)}  ${g.measured.padStart(mwidth)}  ${g.met === null ? 'n/a' : g.met ? 'met' : 'MISSED'}`).join('\n');
}
