// The targets, checked on the 16k results: per session (where legacy summarized at all)
// and over the whole corpus (sums, and means weighted by requests).
import type { ReplayMetrics } from './replayTypes';

export interface TargetCheck {
	readonly scope: string;
	readonly productOverflows: number;
	readonly afterSummaryRatio: number | null;
	readonly horizonRatio: number;
	readonly summarizerInputRatio: number | null;
	/** The larger of legacy's and half-context's. */
	readonly tokenizedPerNewTokenMax: number;
	readonly met: {
		readonly overflows: boolean;
		readonly afterSummary: boolean | null;
		readonly horizon: boolean;
		readonly summarizerInput: boolean | null;
		readonly tokenized: boolean;
	};
}

const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 100) / 100);

function check(scope: string, legacy: Aggregate, half: Aggregate): TargetCheck {
	const afterSummaryRatio =
		legacy.compactedRequests && half.compactedRequests ? (legacy.afterSummary === 0 ? Infinity : ratio(half.afterSummary, legacy.afterSummary)) : null;
	const horizonRatio = ratio(half.horizon, legacy.horizon) ?? 0;
	const summarizerInputRatio = legacy.summarizerInputTokens ? ratio(half.summarizerInputTokens, legacy.summarizerInputTokens) : null;
	const productOverflows = legacy.overflows + half.overflows;
	return {
		scope,
		productOverflows,
		afterSummaryRatio: afterSummaryRatio === Infinity ? null : afterSummaryRatio,
		horizonRatio,
		summarizerInputRatio,
		tokenizedPerNewTokenMax: Math.round(Math.max(half.tokenizedPerNewToken, legacy.tokenizedPerNewToken) * 100) / 100,
		met: {
			overflows: productOverflows === 0,
			afterSummary: afterSummaryRatio === null ? null : afterSummaryRatio >= 10,
			horizon: horizonRatio >= 1.25,
			summarizerInput: summarizerInputRatio === null ? null : summarizerInputRatio <= 1.1,
			tokenized: half.tokenizedPerNewToken <= 1.2 && legacy.tokenizedPerNewToken <= 1.2,
		},
	};
}

interface Aggregate {
	readonly requests: number;
	readonly horizon: number;
	readonly afterSummary: number;
	readonly compactedRequests: number;
	readonly summarizerInputTokens: number;
	readonly overflows: number;
	readonly tokenizedPerNewToken: number;
}

function aggregate(rows: readonly ReplayMetrics[]): Aggregate {
	const requests = rows.reduce((s, r) => s + r.requests, 0);
	const compactedRequests = rows.reduce((s, r) => s + r.compactedRequests, 0);
	// tokenizedPerNewToken is a ratio of sums; weight each session by its requests (an approximation for the corpus row).
	return {
		requests,
		horizon: rows.reduce((s, r) => s + r.verbatimHorizonRounds * r.requests, 0) / requests,
		afterSummary: compactedRequests ? rows.reduce((s, r) => s + (r.verbatimAfterSummaryRounds ?? 0) * r.compactedRequests, 0) / compactedRequests : 0,
		compactedRequests,
		summarizerInputTokens: rows.reduce((s, r) => s + r.summarizerInputTokens, 0),
		overflows: rows.reduce((s, r) => s + r.overflows, 0),
		tokenizedPerNewToken: rows.reduce((s, r) => s + r.tokenizedPerNewToken * r.requests, 0) / requests,
	};
}

/** Target checks at `window`: one per session where legacy summarized, then the corpus. */
export function checkTargets(results: readonly ReplayMetrics[], window = 16_000): TargetCheck[] {
	const at = results.filter(r => r.window === window);
	const sessions = [...new Set(at.map(r => r.session))].sort();
	const checks: TargetCheck[] = [];
	const legacyRows: ReplayMetrics[] = [];
	const halfRows: ReplayMetrics[] = [];
	for (const session of sessions) {
		const legacy = at.find(r => r.session === session && r.strategy === 'legacy');
		const half = at.find(r => r.session === session && r.strategy === 'half-context');
		if (!legacy || !half) continue;
		legacyRows.push(legacy);
		halfRows.push(half);
		if (legacy.summarizations > 0 || half.summarizations > 0) checks.push(check(session, aggregate([legacy]), aggregate([half])));
	}
	if (legacyRows.length) checks.push(check('corpus', aggregate(legacyRows), aggregate(halfRows)));
	return checks;
}

export function formatTargets(checks: readonly TargetCheck[]): string {
	const mark = (v: boolean | null) => (v === null ? 'n/a' : v ? 'met' : 'MISSED');
	const lines = ['scope                            ovf   after× (≥10)      horizon× (≥1.25)   sumIn× (≤1.1)     tok/new max of both (≤1.2)'];
	for (const c of checks) {
		lines.push(
			`${c.scope.padEnd(32)} ${String(c.productOverflows).padStart(3)}   ${String(c.afterSummaryRatio ?? '-').padStart(6)} ${mark(c.met.afterSummary).padEnd(8)}  ${String(c.horizonRatio).padStart(6)} ${mark(c.met.horizon).padEnd(8)}   ${String(c.summarizerInputRatio ?? '-').padStart(6)} ${mark(c.met.summarizerInput).padEnd(8)}  ${String(c.tokenizedPerNewTokenMax).padStart(6)} ${mark(c.met.tokenized)}`,
		);
	}
	return lines.join('\n');
}
