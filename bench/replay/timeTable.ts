// The time section of the benchmark: per window and strategy, over the sessions, how often the
// window filled with a summary, how often a ready background summary served it, how long users
// waited, and how much background work was thrown away.
import { percentile } from '../../src/common/stats/percentile';
import type { ReplayMetrics } from './replayTypes';

export interface TimeRow {
	readonly window: number;
	readonly strategy: string;
	readonly compactionOverflows: number;
	readonly preparedAtOverflow: number | null;
	readonly waitMsP50: number;
	readonly waitMsP95: number;
	readonly waitMsTotal: number;
	readonly waitShare: number;
	readonly backgroundTokensDiscarded: number;
	/** Background tokens of jobs pending when the recordings ended, over all summarizer tokens. */
	readonly backgroundTokensAtEnd: number;
	readonly sessionMs: number;
	/** Every wait of the user (compactions that took time, and calls behind a started background request): how many, in all, the longest, the highest session p95. */
	readonly userWaits: number;
	readonly userWaitMsTotal: number;
	readonly userWaitMsMax: number;
	readonly userWaitMsP95: number;
}

/** Sums over the sessions; p50/p95 of the sessions' p50/p95 weighted by compactions is not a percentile, so the max p95 is given. */
export function summarizeTime(rows: readonly ReplayMetrics[]): TimeRow[] {
	const withClock = rows.filter(r => r.clock !== null);
	const keys = [...new Set(withClock.map(r => `${r.window}|${r.strategy}`))];
	return keys.map(key => {
		const group = withClock.filter(r => `${r.window}|${r.strategy}` === key);
		const sum = (f: (r: ReplayMetrics) => number) => group.reduce((n, r) => n + f(r), 0);
		const compactions = sum(r => r.compactionOverflows);
		const served = sum(r => (r.preparedAtOverflow ?? 0) * r.compactionOverflows);
		const sessionMs = sum(r => r.sessionMs);
		const waitMsTotal = sum(r => r.waitMsTotal);
		const discarded = sum(r => r.backgroundDiscardedTokens);
		const summarizerTokens = sum(r => r.summarizerTokens);
		return {
			window: group[0].window,
			strategy: group[0].strategy,
			compactionOverflows: compactions,
			preparedAtOverflow: group.some(r => r.preparedAtOverflow !== null) && compactions ? Math.round((served / compactions) * 1000) / 1000 : null,
			waitMsP50: Math.round(
				percentile(
					group.filter(r => r.compactionOverflows).map(r => r.waitMsP50),
					50,
				),
			),
			waitMsP95: Math.max(0, ...group.map(r => r.waitMsP95)),
			waitMsTotal,
			waitShare: sessionMs ? Math.round((waitMsTotal / sessionMs) * 1000) / 1000 : 0,
			backgroundTokensDiscarded: summarizerTokens ? Math.round((discarded / summarizerTokens) * 1000) / 1000 : 0,
			backgroundTokensAtEnd: summarizerTokens ? Math.round((sum(r => r.backgroundTokensAtEnd * r.summarizerTokens) / summarizerTokens) * 1000) / 1000 : 0,
			sessionMs,
			userWaits: sum(r => r.userWaits ?? 0),
			userWaitMsTotal: sum(r => r.userWaitMsTotal ?? 0),
			userWaitMsMax: Math.max(0, ...group.map(r => r.userWaitMsMax ?? 0)),
			userWaitMsP95: Math.max(0, ...group.map(r => r.userWaitMsP95 ?? 0)),
		};
	});
}

export function formatTime(rows: readonly TimeRow[]): string {
	const lines = [
		'window  strategy                       compactions  prepared  wait p50  wait p95 (max)  wait total  wait share  bg discarded  bg at end  session   | all waits: count  total      longest  p95 (max)',
	];
	const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
	for (const r of rows) {
		lines.push(
			[
				String(r.window).padEnd(7),
				r.strategy.padEnd(30),
				String(r.compactionOverflows).padStart(11),
				(r.preparedAtOverflow === null ? '–' : r.preparedAtOverflow.toFixed(2)).padStart(8),
				s(r.waitMsP50).padStart(8),
				s(r.waitMsP95).padStart(14),
				s(r.waitMsTotal).padStart(10),
				r.waitShare.toFixed(3).padStart(10),
				r.backgroundTokensDiscarded.toFixed(3).padStart(12),
				r.backgroundTokensAtEnd.toFixed(3).padStart(9),
				`${(r.sessionMs / 60000).toFixed(1)} min`.padStart(8),
				`| ${String(r.userWaits).padStart(16)}`,
				s(r.userWaitMsTotal).padStart(9),
				s(r.userWaitMsMax).padStart(7),
				s(r.userWaitMsP95).padStart(9),
			].join('  '),
		);
	}
	return lines.join('\n');
}
