// The same rules for every strategy, printed (main.ts): per window and strategy, sums over the
// sessions of what each strategy loses (rounds dropped without a summary, requests the stand-in
// model refused, requests lost), the horizon it keeps with the product's tool charge, and, with
// --summarizer-faults, the faults injected and how each ended (summarizerFaults.ts).
import type { ReplayMetrics } from './replayTypes';
import { FAULT_ENDINGS, FAULT_KINDS, NOT_A_SUMMARY_KINDS, type FaultEnding, type FaultKind } from './summarizerFaults';

export interface RulesRow {
	readonly window: number;
	readonly strategy: string;
	readonly sessions: number;
	readonly requests: number;
	readonly droppedRounds: number;
	readonly modelRejections: number;
	readonly recoveries: number;
	readonly overflows: number;
	readonly requestsLost: number;
	readonly summariesLost: number;
	/** Mean of the sessions' verbatimHorizonRounds. */
	readonly horizon: number;
	readonly toolTokens: number;
	readonly faultsInjected: number;
	readonly faultKinds: Record<FaultKind, number>;
	readonly faultEndings: Record<FaultEnding, number>;
	readonly faultsRejected: Record<FaultKind, number>;
	/** Product modes: compacting requests measured, and those the compactions left no smaller (target 0). */
	readonly compactedRequestsMeasured: number;
	readonly compactionsNotSmaller: number;
}

function sumRecords<K extends string>(keys: readonly K[], records: readonly Readonly<Record<K, number>>[]): Record<K, number> {
	return Object.fromEntries(keys.map(k => [k, records.reduce((s, r) => s + (r[k] ?? 0), 0)])) as Record<K, number>;
}

export function summarizeRules(results: readonly ReplayMetrics[]): RulesRow[] {
	const groups = new Map<string, ReplayMetrics[]>();
	for (const r of results) groups.set(`${r.window}|${r.strategy}`, [...(groups.get(`${r.window}|${r.strategy}`) ?? []), r]);
	return [...groups.values()].map(rows => {
		const sum = (pick: (r: ReplayMetrics) => number) => rows.reduce((s, r) => s + pick(r), 0);
		return {
			window: rows[0].window,
			strategy: rows[0].strategy,
			sessions: rows.length,
			requests: sum(r => r.requests),
			droppedRounds: sum(r => r.droppedRounds),
			modelRejections: sum(r => r.modelRejections),
			recoveries: sum(r => r.recoveries),
			overflows: sum(r => r.overflows),
			requestsLost: sum(r => r.requestsLost),
			summariesLost: sum(r => r.summariesLost ?? 0),
			horizon: Math.round((sum(r => r.verbatimHorizonRounds) / rows.length) * 100) / 100,
			toolTokens: rows[0].toolTokens,
			faultsInjected: sum(r => r.faultsInjected),
			compactedRequestsMeasured: sum(r => r.compactedRequestsMeasured ?? 0),
			compactionsNotSmaller: sum(r => r.compactionsNotSmaller ?? 0),
			faultKinds: sumRecords(
				FAULT_KINDS,
				rows.map(r => r.faultKinds),
			),
			faultEndings: sumRecords(
				FAULT_ENDINGS,
				rows.map(r => r.faultEndings),
			),
			faultsRejected: sumRecords(
				FAULT_KINDS,
				rows.map(r => r.faultsRejected ?? {}),
			),
		};
	});
}

const listed = (counts: Readonly<Record<string, number>>) =>
	Object.entries(counts)
		.map(([k, n]) => `${k} ${n}`)
		.join(', ');

/** One line per window and strategy; the faults line only where faults were injected. */
export function formatRules(rows: readonly RulesRow[]): string {
	return rows
		.map(r => {
			const line =
				`  ${r.window} ${r.strategy.padEnd(17)} horizon ${r.horizon.toFixed(2)} (tools ${r.toolTokens} tokens), dropped rounds ${r.droppedRounds},` +
				` model refusals ${r.modelRejections} (re-sent ${r.recoveries}), overflows ${r.overflows}, requests lost ${r.requestsLost} of ${r.requests}` +
				(r.compactedRequestsMeasured ? `, compactions that left the prompt no smaller ${r.compactionsNotSmaller} of ${r.compactedRequestsMeasured}` : '');
			return r.faultsInjected ? `${line}\n${formatFaults(r)}` : line;
		})
		.join('\n');
}

/** The faults line of one row (also printed on stderr by --json). */
export function formatFaults(
	r: Pick<RulesRow, 'faultsInjected' | 'faultKinds' | 'faultEndings' | 'overflows' | 'requestsLost' | 'summariesLost'> & {
		readonly faultsRejected?: Readonly<Record<FaultKind, number>>;
	},
): string {
	// Each reply that is no summary should be a failed attempt: "echo 3 of 3" (summaryAcceptance.ts).
	const rejected = NOT_A_SUMMARY_KINDS.map(k => `${k} ${r.faultsRejected?.[k] ?? 0} of ${r.faultKinds[k] ?? 0}`).join(', ');
	return (
		`    summarizer faults ${r.faultsInjected} (${listed(r.faultKinds)}); ended: ${listed(r.faultEndings)}; failed attempts as no summary: ${rejected};` +
		` overflows ${r.overflows}, requests lost ${r.requestsLost}, summaries lost ${r.summariesLost}`
	);
}
