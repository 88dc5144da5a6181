// Turns a split point into a SummarizationPlan. Both planners only decide where the
// split goes; everything a plan reports is derived here, the same way for both.
import { hasUnansweredCalls } from '../conversation/conversation';
import type { FlatRound } from '../conversation/flatten';
import {
	NothingToSummarizeError,
	type FallbackReason,
	type PlanTokenStats,
	type SummarizationMode,
	type SummarizationPlan,
	type TokenAwareSplit,
} from './plan';
import { roundTokens } from '../tokens/roundTokens';

export interface PlanOptions {
	/** When given, the plan's statistics include token counts of each part. */
	readonly countTokens?: (text: string) => number;
	/**
	 * The agent prompt's message budget. With `countTokens`, half-context applies the token-aware
	 * rule: the kept rounds may hold at most half of it (halfContextPlanner.ts). Without it, the
	 * pure round rule.
	 */
	readonly messageBudget?: number;
	/** The fewest rounds half-context keeps verbatim (longhaul.minRecentRounds: the 2 in max(2, ceil(N/2)), docs/decisions.md decision 16); at least 2. */
	readonly minRecentRounds?: number;
}

export interface Split {
	/** All rounds, flattened. */
	readonly flat: readonly FlatRound[];
	/** Index in `flat` of the first unsummarized round (newest summary + 1). */
	readonly start: number;
	/** Index in `flat` of the first kept round; `flat.length` when nothing is kept. */
	readonly split: number;
	readonly mode: SummarizationMode;
	readonly requestedMode: SummarizationMode;
	readonly fallbackReason?: FallbackReason;
	/** Half-context's token-aware rule, when it was applied. */
	readonly tokenAware?: TokenAwareSplit;
}

/** Builds the plan for `flat[start, split)` summarized and `flat[split, end)` kept. Throws when nothing would be summarized. */
export function buildPlan(s: Split, options: PlanOptions = {}): SummarizationPlan {
	const { flat, start, split } = s;
	if (split <= start || split > flat.length) {
		throw new NothingToSummarizeError();
	}
	const summarizeRoundIds: string[] = [];
	const keepRoundIds: string[] = [];
	const interruptedRoundIds: string[] = [];
	for (let i = start; i < flat.length; i++) {
		const round = flat[i].round;
		(i < split ? summarizeRoundIds : keepRoundIds).push(round.id);
		if (hasUnansweredCalls(round)) {
			interruptedRoundIds.push(round.id);
		}
	}

	const anchorAt = flat[split - 1];
	const firstKept = flat[split] as FlatRound | undefined;
	const splitInsideTurn =
		firstKept !== undefined && anchorAt.source === 'history' && firstKept.source === 'history' && firstKept.turnIndex === anchorAt.turnIndex;
	// The newest summary at planning time; the new block of its turn absorbs it when the summarized
	// rounds continue that turn. A block of an earlier turn stays as it is (summaryBlocks.ts).
	const newest = start > 0 ? flat[start - 1] : undefined;
	const absorbed = newest && continuesTurn(newest, flat[start]) ? newest.round : undefined;

	return {
		mode: s.mode,
		requestedMode: s.requestedMode,
		fallbackLevel: s.mode === s.requestedMode ? 0 : 1,
		...(s.fallbackReason ? { fallbackReason: s.fallbackReason } : {}),
		summarizeRoundIds,
		keepRoundIds,
		anchorRoundId: anchorAt.round.id,
		anchor: { source: anchorAt.source, turnIndex: anchorAt.turnIndex, roundIndex: anchorAt.roundIndex },
		isContinuation: anchorAt.source === 'history',
		...(splitInsideTurn ? { splitInsideTurnIndex: anchorAt.turnIndex } : {}),
		interruptedRoundIds,
		...(absorbed ? { previousSummary: { roundId: absorbed.id, text: absorbed.summary! } } : {}),
		...(newest ? { newestSummaryRoundId: newest.round.id } : {}),
		stats: {
			totalRoundCount: flat.length - start,
			summarizedRoundCount: split - start,
			keptRoundCount: flat.length - split,
			...(options.countTokens ? { tokens: countPlanTokens(s, options.countTokens, absorbed?.summary) } : {}),
			...(s.tokenAware ? { tokenAware: s.tokenAware } : {}),
		},
	};
}

/** True when `next` is the round right after `at` in the same turn. */
export function continuesTurn(at: FlatRound, next: FlatRound): boolean {
	return at.source === next.source && at.turnIndex === next.turnIndex;
}

function countPlanTokens({ flat, start, split }: Split, count: (text: string) => number, absorbed: string | undefined): PlanTokenStats {
	let summarized = 0;
	let kept = 0;
	for (let i = start; i < flat.length; i++) {
		// Part by part: the renderer has counted these very strings, so a caching counter only looks them up.
		const tokens = roundTokens(flat[i].round, count);
		if (i < split) {
			summarized += tokens;
		} else {
			kept += tokens;
		}
	}
	const previousSummary = absorbed === undefined ? 0 : count(absorbed);
	return { summarized, kept, previousSummary };
}
