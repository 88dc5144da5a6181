// Masking old tool results first, in the replay: the product strategies with
// `longhaul.maskOldToolResults` on. On overflow the agent first masks old tool results
// (maskForOverflow: at least the overflow plus a margin, keeping the masked older rounds small
// enough for a later summary), renders again, and asks the summarizer only when masking declines
// or has nothing left to mask. The product's overflow pipeline (fitPrompt) does the masking;
// this module holds the strategy names and the masking metrics (the steps come from the replay's FitTally).
import type { Round } from '../../src/common/conversation/conversation';
import type { FitTally } from '../../src/common/fitting/fitTally';
import type { SummarizationMode } from '../../src/common/planning/plan';
import { isPlaceholderResult } from '../../src/common/conversation/toolResultPlaceholders';

/** The product modes with masking first. */
export const MASKED_STRATEGIES = ['legacy+mask', 'half-context+mask'] as const;

/** The product's renderFitting settings behind a strategy name; undefined for the reference strategies. */
export function productSettings(strategy: string): { readonly mode: SummarizationMode; readonly mask: boolean } | undefined {
	switch (strategy) {
		case 'legacy':
		case 'half-context':
			return { mode: strategy, mask: false };
		case 'legacy+mask':
			return { mode: 'legacy', mask: true };
		case 'half-context+mask':
			return { mode: 'half-context', mask: true };
		default:
			return undefined;
	}
}

/** Masking counters of one replay (all 0 for strategies without masking). */
export interface MaskingMetrics {
	/** Renders after which results were masked. */
	readonly maskings: number;
	readonly maskedToolResults: number;
	/** Of those, older exact duplicates of a newer call. */
	readonly maskedDuplicates: number;
	/** Tokens freed by masking (results minus placeholders). */
	readonly maskFreedTokens: number;
	/** Overflows where masking declined because the older rounds would have stayed too large to summarize later. */
	readonly maskDeclined: number;
	/**
	 * The headline horizon: mean over requests of the newest rounds shown with every tool result
	 * whole (as recorded: not masked, elided or cut), counted back from the newest until one is not.
	 */
	readonly intactHorizonRounds: number;
}

export interface MaskingCounter {
	/**
	 * Records one request's intact horizon: of the rounds so far (`all`, oldest first, as recorded),
	 * the newest ones among `shown` (the rounds as rendered), counted back until one is missing or
	 * shows a result other than the recorded one (a placeholder, a cut).
	 */
	recordRequest(all: readonly Round[], shown: readonly Round[]): void;
	/** The replay's masking metrics: the steps from the replay's FitTally, the horizon from this counter. */
	metrics(masking: FitTally['masking']): MaskingMetrics;
}

/** The newest rounds of `all` that `shown` holds with every result as recorded. */
export function intactRounds(all: readonly Round[], shown: readonly Round[]): number {
	const byId = new Map(shown.map(r => [r.id, r]));
	let n = 0;
	for (let i = all.length - 1; i >= 0; i--) {
		const round = byId.get(all[i].id);
		const whole = round?.toolCalls.every((c, k) => c.result === all[i].toolCalls[k]?.result && !(c.result !== undefined && isPlaceholderResult(c.result)));
		if (!whole) break;
		n++;
	}
	return n;
}

export function maskingCounter(): MaskingCounter {
	const horizons: number[] = [];
	return {
		recordRequest(all, shown) {
			horizons.push(intactRounds(all, shown));
		},
		metrics(masking) {
			const mean = horizons.length ? horizons.reduce((a, b) => a + b, 0) / horizons.length : 0;
			return {
				maskings: masking.maskings,
				maskedToolResults: masking.maskedResults,
				maskedDuplicates: masking.maskedDuplicates,
				maskFreedTokens: masking.freedTokens,
				maskDeclined: masking.declined,
				intactHorizonRounds: Math.round(mean * 1000) / 1000,
			};
		},
	};
}

/** Per window and product mode: the corpus totals without and with masking. */
export interface MaskingComparison {
	readonly window: number;
	readonly mode: SummarizationMode;
	readonly without: MaskingTotals;
	readonly with: MaskingTotals;
	/** with.summarizerInputTokens / without.summarizerInputTokens; null when neither summarized. */
	readonly summarizerInputRatio: number | null;
	/** The verbatim horizon (request-weighted mean) did not fall with masking, in total and in every session. */
	readonly horizonHeld: boolean;
	/** Sessions whose horizon fell with masking (empty when horizonHeld). */
	readonly horizonFellIn: readonly string[];
}

export interface MaskingTotals {
	readonly summarizations: number;
	readonly summarizerCalls: number;
	readonly summarizerInputTokens: number;
	readonly mainInputTokens: number;
	readonly overflows: number;
	readonly verbatimHorizonRounds: number;
	readonly intactHorizonRounds: number;
	readonly maskedToolResults: number;
	readonly maskFreedTokens: number;
}

/** The rows compareMasking reads (a subset of ReplayMetrics, so this module needs no import of replay.ts). */
export type MaskingRow = MaskingTotals &
	MaskingMetrics & { readonly session: string; readonly window: number; readonly strategy: string; readonly requests: number };

function totals(rows: readonly MaskingRow[]): MaskingTotals {
	const sum = (f: (r: MaskingRow) => number) => rows.reduce((s, r) => s + f(r), 0);
	const requests = sum(r => r.requests);
	const weighted = (f: (r: MaskingRow) => number) => (requests ? Math.round((sum(r => f(r) * r.requests) / requests) * 1000) / 1000 : 0);
	return {
		summarizations: sum(r => r.summarizations),
		summarizerCalls: sum(r => r.summarizerCalls),
		summarizerInputTokens: sum(r => r.summarizerInputTokens),
		mainInputTokens: sum(r => r.mainInputTokens),
		overflows: sum(r => r.overflows),
		verbatimHorizonRounds: weighted(r => r.verbatimHorizonRounds),
		intactHorizonRounds: weighted(r => r.intactHorizonRounds),
		maskedToolResults: sum(r => r.maskedToolResults),
		maskFreedTokens: sum(r => r.maskFreedTokens),
	};
}

/** Compares each product mode with its masked variant, per window, over the sessions replayed with both. */
export function compareMasking(results: readonly MaskingRow[]): MaskingComparison[] {
	const out: MaskingComparison[] = [];
	const windows = [...new Set(results.map(r => r.window))].sort((a, b) => a - b);
	for (const window of windows) {
		for (const mode of ['legacy', 'half-context'] as const) {
			const pairs = results
				.filter(r => r.window === window && r.strategy === mode)
				.flatMap(plain => {
					const masked = results.find(r => r.window === window && r.session === plain.session && r.strategy === `${mode}+mask`);
					return masked ? [{ plain, masked }] : [];
				});
			if (!pairs.length) continue;
			const without = totals(pairs.map(p => p.plain));
			const withMask = totals(pairs.map(p => p.masked));
			const fell = pairs.filter(p => p.masked.verbatimHorizonRounds < p.plain.verbatimHorizonRounds).map(p => p.plain.session);
			out.push({
				window,
				mode,
				without,
				with: withMask,
				summarizerInputRatio: without.summarizerInputTokens ? Math.round((withMask.summarizerInputTokens / without.summarizerInputTokens) * 1000) / 1000 : null,
				horizonHeld: fell.length === 0 && withMask.verbatimHorizonRounds >= without.verbatimHorizonRounds,
				horizonFellIn: fell,
			});
		}
	}
	return out;
}

export function formatMasking(comparisons: readonly MaskingComparison[]): string {
	const lines = ['window  mode          summ  calls  sumIn           mainIn                 horizon        intact         masked  freed     horizon held'];
	for (const c of comparisons) {
		const pair = (a: number, b: number) => `${a}→${b}`;
		lines.push(
			[
				String(c.window).padEnd(7),
				c.mode.padEnd(13),
				pair(c.without.summarizations, c.with.summarizations).padEnd(5),
				pair(c.without.summarizerCalls, c.with.summarizerCalls).padEnd(6),
				pair(c.without.summarizerInputTokens, c.with.summarizerInputTokens).padEnd(15),
				pair(c.without.mainInputTokens, c.with.mainInputTokens).padEnd(22),
				pair(c.without.verbatimHorizonRounds, c.with.verbatimHorizonRounds).padEnd(14),
				pair(c.without.intactHorizonRounds, c.with.intactHorizonRounds).padEnd(14),
				String(c.with.maskedToolResults).padEnd(7),
				String(c.with.maskFreedTokens).padEnd(9),
				c.horizonHeld ? 'yes' : `NO (${c.horizonFellIn.join(', ')})`,
			].join(' '),
		);
	}
	return lines.join('\n');
}
