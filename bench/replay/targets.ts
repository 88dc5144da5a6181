// The targets table: issue 39's goals, stated in this benchmark's measures (intact horizon,
// knowledge with information-limited summaries, the noisy clock on a cloud and on a single-slot
// provider), each checked on the run as met or missed, for each corpus and for all of them
// together. Corpus figures are sums, or means weighted by requests (horizons) and by probed
// requests or detail checks (knowledge); a p95 wait is the highest of the sessions' p95s. The
// day-long chats are the full run's `--concat` replays at 16k, one per corpus (weighted by their
// probed requests when taken together).
import type { ReplayMetrics, StrategyName } from './replayTypes';
import { summarizeKnowledge } from '../knowledge/knowledgeTable';

/**
 * The configuration the README recommends: half-context with the done-ledger and background
 * summaries (which bridge, decision 43), masking off: masking keeps fewer rounds whole.
 */
export const RECOMMENDED: StrategyName = 'half-context';
/** The day-long chat's replays in the full run: the recommended configuration (its waits too) and half-context with masking. */
export const DAY_LONG_STRATEGIES: readonly StrategyName[] = [RECOMMENDED, 'half-context+mask'];

export interface GoalCheck {
	readonly goal: string;
	/** What the run measured, as printed. */
	readonly measured: string;
	/** null: the run has no figure for it (the window or the chat was not replayed). */
	readonly met: boolean | null;
	/** For a miss: what in this run keeps the goal out of reach, when the run can tell. */
	readonly why?: string;
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

function check(goal: string, measured: string | null, met: boolean, why?: () => string | undefined): GoalCheck {
	if (measured === null) return { goal, measured: 'no figure in this run', met: null };
	const reason = met ? undefined : why?.();
	return reason ? { goal, measured, met, why: reason } : { goal, measured, met };
}

/**
 * The most rounds any prompt of the corpus could keep whole at this window: per session, the
 * largest ceiling (verbatimLimitRounds: the newest rounds that fit next to the prompt's fixed part)
 * any strategy had, weighted by requests. No strategy's intact horizon can pass it.
 */
function ceiling(results: readonly ReplayMetrics[], window: number): number | null {
	const sessions = new Map<string, { requests: number; limit: number }>();
	for (const r of results.filter(x => x.window === window)) {
		const s = sessions.get(r.session);
		sessions.set(r.session, { requests: r.requests, limit: Math.max(s?.limit ?? 0, r.verbatimLimitRounds) });
	}
	const all = [...sessions.values()];
	const requests = all.reduce((n, s) => n + s.requests, 0);
	return requests ? all.reduce((n, s) => n + s.limit * s.requests, 0) / requests : null;
}

/** Why `best ≥ share × legacy` cannot hold: even at the ceiling on every request the ratio stays under it. */
function ratioOutOfReach(results: readonly ReplayMetrics[], window: number, legacy: number, share: number): string | undefined {
	const bound = ceiling(results, window);
	if (bound === null || bound >= share * legacy) return undefined;
	const rows = rowsOf(results, window, 'legacy');
	const neverFull = rows.filter(r => r.compactions === 0).length;
	return `out of reach on this corpus: with every request at the most rounds any strategy's prompt could hold whole (${f2(bound)}), the ratio would be ${f2(bound / legacy)}×; ${neverFull} of ${rows.length} sessions never fill the window, so every strategy keeps all their rounds`;
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
			() => ratioOutOfReach(results, window, legacy!, 1.25),
		),
	];
}

function knowledgeGoals(results: readonly ReplayMetrics[], window: number): GoalCheck[] {
	const k = `${window / 1000}k`;
	const best = summarizeKnowledge(results.filter(r => r.window === window)).find(s => s.strategy === RECOMMENDED);
	return [
		check(`continuity at ${k} (${RECOMMENDED}) ≥ 0.97`, known(best?.continuity) ? f3(best.continuity) : null, (best?.continuity ?? 0) >= 0.97),
		check(
			`details reachable at ${k} (${RECOMMENDED}) ≥ 0.8`,
			known(best?.detailsReachable) ? f3(best.detailsReachable) : null,
			(best?.detailsReachable ?? 0) >= 0.8,
		),
	];
}

/** What the facts continuity missed were, by kind, largest first. */
function continuityMisses(rows: readonly ReplayMetrics[]): string | undefined {
	const missed = rows[0]?.continuityMissed ? { ...rows[0].continuityMissed } : undefined;
	if (!missed) return undefined;
	for (const row of rows.slice(1)) for (const k of Object.keys(missed) as (keyof typeof missed)[]) missed[k] += row.continuityMissed?.[k] ?? 0;
	const total = Object.values(missed).reduce((a, b) => a + b, 0);
	if (total === 0) return undefined;
	const names: Record<keyof typeof missed, string> = {
		command: 'commands with their outcome',
		request: 'past requests',
		read: 'files read',
		changed: 'files changed',
	};
	const parts = (Object.keys(missed) as (keyof typeof missed)[])
		.filter(k => missed[k] > 0)
		.sort((a, b) => missed[b] - missed[a])
		.map(k => `${names[k]} ${Math.round((100 * missed[k]) / total)} %`);
	return `of the ${total} facts the prompts did not name: ${parts.join(', ')} (the done-ledger keeps the newest entries on their own lines within its room and merges the oldest into group lines)`;
}

function waitGoal(results: readonly ReplayMetrics[], window: number, limitMs: number): GoalCheck {
	const rows = rowsOf(results, window, RECOMMENDED).filter(r => r.clock !== null);
	const p95 = rows.length ? Math.max(0, ...rows.map(r => r.waitMsP95)) : null;
	return check(`cloud: ${RECOMMENDED} p95 wait at ${window / 1000}k ≤ ${sec(limitMs)}`, p95 !== null ? sec(p95) : null, p95 !== null && p95 <= limitMs);
}

/** Single-slot provider: every wait of the user (compactions, and calls behind a started background request), summed over the sessions. */
function singleSlotGoal(singleSlot: readonly ReplayMetrics[], window: number): GoalCheck {
	const total = (strategy: string) => rowsOf(singleSlot, window, strategy).reduce((n, r) => n + r.userWaitMsTotal, 0);
	const has = rowsOf(singleSlot, window, RECOMMENDED).length > 0 && rowsOf(singleSlot, window, 'legacy').length > 0;
	const best = total(RECOMMENDED);
	const legacy = total('legacy');
	return check(
		`single-slot: ${RECOMMENDED} total wait at ${window / 1000}k ≤ legacy's`,
		has ? `${sec(best)} vs ${sec(legacy)}` : null,
		has && best <= legacy,
		() => {
			const waits = (strategy: string) => {
				const rows = rowsOf(singleSlot, window, strategy);
				return {
					slot: rows.reduce((n, r) => n + r.slotWaitMsTotal, 0),
					count: rows.reduce((n, r) => n + r.slotWaits, 0),
					longest: Math.max(0, ...rows.map(r => r.userWaitMsMax)),
				};
			};
			const [h, l] = [waits(RECOMMENDED), waits('legacy')];
			return `${h.count} of the agent's calls waited behind a started background request, ${sec(h.slot)} of the ${sec(best)} (longest wait ${sec(h.longest)}); legacy: ${l.count}, ${sec(l.slot)} of its ${sec(legacy)}`;
		},
	);
}

/** Summarizer tokens in and out, background work still pending at the end included, on the cloud provider (summaries on time). */
function costGoal(results: readonly ReplayMetrics[], window: number): GoalCheck {
	const sum = (strategy: string) => rowsOf(results, window, strategy).reduce((n, r) => n + r.summarizerTokens, 0);
	const has = rowsOf(results, window, RECOMMENDED).length > 0 && rowsOf(results, window, 'legacy').length > 0;
	const best = sum(RECOMMENDED);
	const legacy = sum('legacy');
	return check(
		`summarizer tokens (pending included) at ${window / 1000}k: ${RECOMMENDED} ≤ legacy`,
		has ? `${best} vs ${legacy}` : null,
		has && best <= legacy,
		() => {
			const rows = rowsOf(results, window, RECOMMENDED);
			const discarded = rows.reduce((n, r) => n + r.backgroundDiscardedTokens, 0);
			const pending = rows.reduce((n, r) => n + r.backgroundTokensAtEnd * r.summarizerTokens, 0);
			return `${RECOMMENDED} spent ${discarded} tokens on background summaries never attached (${Math.round(pending)} of them pending when a session ended)`;
		},
	);
}

/** The day-long chats' continuity, weighted by their probed requests. */
function dayLongContinuity(rows: readonly ReplayMetrics[]): number | null {
	const withValue = rows.filter(r => known(r.continuity) && r.continuityRequests > 0);
	const n = withValue.reduce((s, r) => s + r.continuityRequests, 0);
	return n ? withValue.reduce((s, r) => s + r.continuity! * r.continuityRequests, 0) / n : null;
}

function dayLongGoals(dayLong: readonly ReplayMetrics[]): GoalCheck[] {
	const best = dayLong.filter(r => r.strategy === RECOMMENDED);
	const continuity = dayLongContinuity(best);
	return [
		check('continuity on the day-long chat (16k) ≥ 0.93', continuity !== null ? f3(continuity) : null, (continuity ?? 0) >= 0.93, () => continuityMisses(best)),
	];
}

/** Every goal of issue 39 the run can check: `results` on the cloud provider, `singleSlot` the same replays on a single-slot one. */
export function checkGoals(results: readonly ReplayMetrics[], dayLong: readonly ReplayMetrics[] = [], singleSlot: readonly ReplayMetrics[] = []): GoalCheck[] {
	return [
		...horizonGoals(results, 16_000),
		...horizonGoals(results, 32_000),
		...knowledgeGoals(results, 16_000),
		...knowledgeGoals(results, 32_000),
		...dayLongGoals(dayLong),
		waitGoal(results, 16_000, 5000),
		waitGoal(results, 32_000, 2000),
		singleSlotGoal(singleSlot, 16_000),
		singleSlotGoal(singleSlot, 32_000),
		costGoal(results, 16_000),
		costGoal(results, 32_000),
	];
}

export function formatGoals(goals: readonly GoalCheck[]): string {
	const width = Math.max(...goals.map(g => g.goal.length));
	const mwidth = Math.max(...goals.map(g => g.measured.length));
	return goals
		.map(
			g => `${g.goal.padEnd(width)}  ${g.measured.padStart(mwidth)}  ${g.met === null ? 'n/a' : g.met ? 'met' : 'MISSED'}${g.why ? `\n    why: ${g.why}` : ''}`,
		)
		.join('\n');
}
