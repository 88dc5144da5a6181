// The knowledge probe's corpus table (knowledgeProbe.ts): per window and strategy, all six, what
// the agent could still know, beside the intact horizon (the headline: rounds shown with their tool
// results whole) and the horizon that counts masked rounds as kept. Continuity is weighted by the
// requests probed in each session, the details shares by the request × detail checks, horizons by
// requests, so a long session counts for its length. The curves: the same per information level of
// the stand-in summarizer (summarizeCurves).
import type { KnowledgeMetrics } from './knowledgeProbe';

interface KnowledgeRow extends KnowledgeMetrics {
	readonly window: number;
	readonly strategy: string;
	readonly requests: number;
	readonly intactHorizonRounds: number;
	readonly verbatimHorizonRounds: number;
	readonly summaryInformation: number | 'copying';
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
	/** Headline: what the prompt shows (visible or in a summary), recall apart. */
	readonly detailsShown: number | null;
	readonly detailsVisible: number | null;
	readonly detailsInSummary: number | null;
	readonly detailsRecalled: number | null;
	readonly detailsLost: number | null;
	readonly detailsReachable: number | null;
	/** The old recall rule's shares, beside the new ones for one release. */
	readonly detailsRecalledLineRule: number | null;
	readonly detailsReachableLineRule: number | null;
	/** Headline: rounds with every result whole; beside it, the horizon that counts masked rounds as kept. */
	readonly intactHorizon: number | null;
	readonly horizonMaskedCounted: number | null;
}

export interface CurvePoint extends KnowledgeSummary {
	readonly summaryInformation: number | 'copying';
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
			detailsShown: detail(r => (r.detailsVisible === null ? null : r.detailsVisible + (r.detailsInSummary ?? 0))),
			detailsVisible: detail(r => r.detailsVisible),
			detailsInSummary: detail(r => r.detailsInSummary),
			detailsRecalled: detail(r => r.detailsRecalled),
			detailsLost: detail(r => r.detailsLost),
			detailsReachable: detail(r => r.detailsReachable),
			detailsRecalledLineRule: detail(r => r.detailsRecalledLineRule),
			detailsReachableLineRule: detail(r => r.detailsReachableLineRule),
			intactHorizon: weighted(
				group,
				r => r.intactHorizonRounds,
				r => r.requests,
			),
			horizonMaskedCounted: weighted(
				group,
				r => r.verbatimHorizonRounds,
				r => r.requests,
			),
		};
	});
}

/** The curves: one summary per window, strategy and information level, levels in ascending order (copying last). */
export function summarizeCurves(rows: readonly KnowledgeRow[]): CurvePoint[] {
	const levels = [...new Set(rows.map(r => r.summaryInformation))].sort((a, b) => (a === 'copying' ? 1 : b === 'copying' ? -1 : a - b));
	const points: CurvePoint[] = [];
	for (const level of levels) {
		for (const s of summarizeKnowledge(rows.filter(r => r.summaryInformation === level))) points.push({ ...s, summaryInformation: level });
	}
	return points.sort(
		(a, b) => a.window - b.window || a.strategy.localeCompare(b.strategy) || levels.indexOf(a.summaryInformation) - levels.indexOf(b.summaryInformation),
	);
}

export function formatCurves(points: readonly CurvePoint[]): string {
	const v = (x: number | null) => (x === null ? '-' : x.toFixed(3));
	const header = ['window', 'strategy', 'N', 'continuity', 'summary', 'recalled', 'reachable', 'reach (line rule)'];
	const rows = points.map(p => [
		String(p.window),
		p.strategy,
		String(p.summaryInformation),
		v(p.continuity),
		v(p.detailsInSummary),
		v(p.detailsRecalled),
		v(p.detailsReachable),
		v(p.detailsReachableLineRule),
	]);
	return alignRows(header, rows, 3);
}

function alignRows(header: string[], rows: string[][], leftColumns: number): string {
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map(r => r[i].length)));
	const line = (cells: string[]) => cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
	return [line(header), ...rows.map(line)].join('\n');
}

export function formatKnowledge(summaries: readonly KnowledgeSummary[]): string {
	const v = (x: number | null) => (x === null ? '-' : x.toFixed(3));
	const header = [
		'window',
		'strategy',
		'intact horizon',
		'horizon (masked counted)',
		'probed',
		'continuity',
		'(min)',
		'checks',
		'shown',
		'visible',
		'summary',
		'recalled',
		'lost',
		'reachable',
		'reach (line rule)',
	];
	const rows = summaries.map(s => [
		String(s.window),
		s.strategy,
		s.intactHorizon === null ? '-' : s.intactHorizon.toFixed(2),
		s.horizonMaskedCounted === null ? '-' : s.horizonMaskedCounted.toFixed(2),
		String(s.probedRequests),
		v(s.continuity),
		`(${v(s.minSessionContinuity)})`,
		String(s.detailsChecks),
		v(s.detailsShown),
		v(s.detailsVisible),
		v(s.detailsInSummary),
		v(s.detailsRecalled),
		v(s.detailsLost),
		v(s.detailsReachable),
		v(s.detailsReachableLineRule),
	]);
	return alignRows(header, rows, 2);
}
