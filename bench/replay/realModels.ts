// The real-model targets over the corpus, per window and product mode: with a model that counts more
// than the local tokenizer (--model-token-ratio), no request may be refused after recovery and none
// may overflow; and at most 5 % of compactions may end in truncation because the summary failed.
import type { ReplayMetrics } from './replayTypes';

/** The most compactions that may end in truncation after a failed summary. */
export const TRUNCATION_SHARE_TARGET = 0.05;

export interface RealModelRow {
	readonly window: number;
	readonly strategy: string;
	readonly modelTokenRatio: number | null;
	readonly sessions: number;
	/** Sessions with a request refused after recovery, or an overflow. */
	readonly sessionsFailing: readonly string[];
	readonly modelRejections: number;
	readonly overflows: number;
	readonly recoveries: number;
	readonly summarizerRejections: number;
	readonly condensePasses: number;
	readonly summaryTooLarge: number;
	/** Overflows that ended in a model summary or in truncation (summarizations + truncations). */
	readonly compactions: number;
	readonly summarizations: number;
	readonly truncations: number;
	readonly truncationsAfterFailedSummary: number;
	/** truncationsAfterFailedSummary / compactions (0 when nothing was compacted). */
	readonly truncationShare: number;
	/** The calibrated ratios the sessions ended with: min and max. */
	readonly calibratedRatio: readonly [number, number];
	readonly met: { readonly noRejectionsOrOverflows: boolean; readonly truncationShare: boolean };
}

const PRODUCT = new Set(['legacy', 'half-context']);

export function summarizeRealModels(results: readonly ReplayMetrics[]): RealModelRow[] {
	const groups = new Map<string, ReplayMetrics[]>();
	for (const r of results) {
		if (!PRODUCT.has(r.strategy)) continue;
		const key = `${r.window}|${r.strategy}`;
		groups.set(key, [...(groups.get(key) ?? []), r]);
	}
	return [...groups.values()].map(rows => {
		const sum = (key: keyof ReplayMetrics) => rows.reduce((s, r) => s + (r[key] as number), 0);
		const compactions = sum('summarizations') + sum('truncations');
		const afterFailed = sum('truncationsAfterFailedSummary');
		const share = compactions ? Math.round((afterFailed / compactions) * 1000) / 1000 : 0;
		const failing = rows.filter(r => r.modelRejections > 0 || r.overflows > 0).map(r => r.session);
		const ratios = rows.map(r => r.calibratedRatio);
		return {
			window: rows[0].window,
			strategy: rows[0].strategy,
			modelTokenRatio: rows[0].modelTokenRatio,
			sessions: rows.length,
			sessionsFailing: failing,
			modelRejections: sum('modelRejections'),
			overflows: sum('overflows'),
			recoveries: sum('recoveries'),
			summarizerRejections: sum('summarizerRejections'),
			condensePasses: sum('condensePasses'),
			summaryTooLarge: sum('summaryTooLarge'),
			compactions,
			summarizations: sum('summarizations'),
			truncations: sum('truncations'),
			truncationsAfterFailedSummary: afterFailed,
			truncationShare: share,
			calibratedRatio: [Math.min(...ratios), Math.max(...ratios)],
			met: { noRejectionsOrOverflows: failing.length === 0, truncationShare: share <= TRUNCATION_SHARE_TARGET },
		};
	});
}

export function formatRealModels(rows: readonly RealModelRow[]): string {
	return rows
		.map(
			r =>
				`  ${r.window} ${r.strategy.padEnd(12)} model ratio ${r.modelTokenRatio ?? 'none'}: refused after recovery ${r.modelRejections}, overflows ${r.overflows}` +
				` (${r.sessionsFailing.length ? `in ${r.sessionsFailing.join(', ')}` : `no session of ${r.sessions}`}) ${r.met.noRejectionsOrOverflows ? 'MET' : 'MISSED'};` +
				` recoveries ${r.recoveries}, summarizer refusals ${r.summarizerRejections}, learned ratio ${r.calibratedRatio[0]}–${r.calibratedRatio[1]};` +
				` summaries over the cap ${r.summaryTooLarge}, condense passes ${r.condensePasses};` +
				` compactions ${r.compactions} (model summaries ${r.summarizations}, truncations ${r.truncations}), truncations after a failed summary ${r.truncationsAfterFailedSummary} (${(r.truncationShare * 100).toFixed(1)} %) ${r.met.truncationShare ? 'MET' : 'MISSED'}`,
		)
		.join('\n');
}
