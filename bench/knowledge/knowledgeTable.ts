// The knowledge probe's corpus table (knowledgeProbe.ts): per window and strategy, all six, what
// the agent could still know. Continuity is weighted by the requests probed in each session,
// the details shares by the request × detail checks, so a long session counts for its length.
import type { KnowledgeMetrics } from './knowledgeProbe';

interface KnowledgeRow extends KnowledgeMetrics {
	readonly window: number;
	readonly strategy: string;
}

export interface KnowledgeSummary {
	readonly window: number;
	readonly strategy: string;
	readonly sessions: number;
	/** Requests probed for continuity (from the first compaction on), over the sessions. */
	readonly probedRequests: number;
	readonly continuity: number | null;
	/** The lowest session's continuity. */
	readonly minSessionContinuity: number | null;
	readonly detailsChecks: number;
	readonly detailsVisible: number | null;
	readonly detailsInSummary: number | null;
	readonly detailsRecalled: number | null;
	readonly detailsLost: number | null;
	readonly detailsReachable: number | null;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The mean of `pick` over `rows` weighted by `weight`; null when no row has a value and a weight. */
function weighted<R>(rows: readonly R[], pick: (r: R) => number | null, weight: (r: R) => number): number | null {
	const withValue = rows.filter(r => pick(r) !== null && weight(r) > 0);
	const total = withValue.reduce((s, r) => s + weight(r), 0);
	return total ? round3(withValue.reduce((s, r) => s + pick(r)! * weight(r), 0) / total) : null;
}

/** One summary per window and strategy, in the order the rows first name them. */
export function summarizeKnowledge(rows: readonly KnowledgeRow[]): KnowledgeSummary[] {
	const keys = [...new Set(rows.map(r => `${r.window}\u0000${r.strategy}`))];
	return keys.map(key => {
		const [w, strategy] = key.split('\u0000');
		const group = rows.filter(r => r.window === Number(w) && r.strategy === strategy);
		const continuities = group.flatMap(r => (r.continuity === null ? [] : [r.continuity]));
		const detail = (pick: (r: KnowledgeRow) => number | null) => weighted(group, pick, r => r.detailsChecks);
		return {
			window: Number(w),
			strategy,
			sessions: group.length,
			probedRequests: group.reduce((s, r) => s + r.continuityRequests, 0),
			continuity: weighted(
				group,
				r => r.continuity,
				r => r.continuityRequests,
			),
			minSessionContinuity: continuities.length ? Math.min(...continuities) : null,
			detailsChecks: group.reduce((s, r) => s + r.detailsChecks, 0),
			detailsVisible: detail(r => r.detailsVisible),
			detailsInSummary: detail(r => r.detailsInSummary),
			detailsRecalled: detail(r => r.detailsRecalled),
			detailsLost: detail(r => r.detailsLost),
			detailsReachable: detail(r => r.detailsReachable),
		};
	});
}

export function formatKnowledge(summaries: readonly KnowledgeSummary[]): string {
	const v = (x: number | null) => (x === null ? '-' : x.toFixed(3));
	const header = ['window', 'strategy', 'probed', 'continuity', '(min)', 'checks', 'visible', 'summary', 'recalled', 'lost', 'reachable'];
	const rows = summaries.map(s => [
		String(s.window),
		s.strategy,
		String(s.probedRequests),
		v(s.continuity),
		`(${v(s.minSessionContinuity)})`,
		String(s.detailsChecks),
		v(s.detailsVisible),
		v(s.detailsInSummary),
		v(s.detailsRecalled),
		v(s.detailsLost),
		v(s.detailsReachable),
	]);
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map(r => r[i].length)));
	const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
	return [line(header), ...rows.map(line)].join('\n');
}
