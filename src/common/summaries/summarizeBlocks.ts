// Asking for the blocks of one plan: one summarizer request per turn the plan spans, oldest turn
// first (docs/decisions.md decision 15 says why per turn rather than one request for all). Each
// request sees only its turn's rounds, headed by the turn's user message, plus the turn's earlier
// block when the plan continues that turn. Nothing is attached here: the caller does that with
// applySummaryBlocks, so a failed or cancelled request leaves the conversation as it was.
//
// Narrowing: when the summarizer cannot take every round a request covers, even in Simple mode
// (the rounds before the overflow filled a window, and the summarizer's instructions and transcript
// framing come on top), that turn is narrowed to its oldest half (then a quarter, … one round) and
// the compaction stops there; when a request fails otherwise, it stops before that turn. What was
// made is kept as a plan for the oldest part (planPrefix), the rest stays verbatim until the next
// overflow, instead of giving up and truncating. Found by the replay benchmark with masking on: the
// legacy rule's "everything but the last round" then no longer fits one summarizer prompt.
import type { Conversation } from '../conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../conversation/flatten';
import type { SummarizationPlan } from '../planning/plan';
import { buildPlan, type PlanOptions } from '../planning/planParts';
import { blockSegments, type BlockSegment } from './applySummary';
import type { SummaryAttempt, SummaryFlowResult } from './summarizationFlow';

/** What one summarizer request covers: rounds of one turn, and that turn's block to absorb. */
export type BlockRequest = Pick<SummarizationPlan, 'summarizeRoundIds' | 'previousSummary'>;

/** The summarizer step: Full then Simple for one request (summarizationFlow.ts). */
export type SummarizeBlock = (conversation: Conversation, request: BlockRequest) => Promise<SummaryFlowResult>;

export interface BlocksResult {
	/** The plan the blocks are for: the one given, or its oldest part when not every turn could be summarized. */
	readonly plan: SummarizationPlan;
	/** One text per turn of `plan`, oldest first; undefined when not even the first could be made. */
	readonly blocks?: readonly string[];
	/** Every attempt of every request, in order. */
	readonly attempts: readonly SummaryAttempt[];
	/** Requests sent (one per turn, more when a turn was narrowed). */
	readonly requests: number;
}

export function blockRequest(segment: Pick<BlockSegment, 'roundIds' | 'absorbs'>): BlockRequest {
	return {
		summarizeRoundIds: segment.roundIds,
		...(segment.absorbs ? { previousSummary: { roundId: segment.absorbs.roundId, text: segment.absorbs.text } } : {}),
	};
}

export async function summarizeBlocks(conversation: Conversation, plan: SummarizationPlan, summarize: SummarizeBlock): Promise<BlocksResult> {
	const blocks: string[] = [];
	const attempts: SummaryAttempt[] = [];
	let requests = 0;
	let covered = 0;
	for (const segment of blockSegments(conversation, plan)) {
		let roundIds = segment.roundIds;
		let result = await summarize(conversation, blockRequest({ roundIds, absorbs: segment.absorbs }));
		requests++;
		attempts.push(...result.attempts);
		while (result.summary === undefined && onlyPromptTooLarge(result.attempts) && roundIds.length > 1) {
			roundIds = roundIds.slice(0, Math.ceil(roundIds.length / 2));
			result = await summarize(conversation, blockRequest({ roundIds, absorbs: segment.absorbs }));
			requests++;
			attempts.push(...result.attempts);
		}
		if (result.summary === undefined) break;
		blocks.push(result.summary);
		covered += roundIds.length;
		if (roundIds !== segment.roundIds) break;
	}
	if (blocks.length === 0) return { plan, attempts, requests };
	const used = covered === plan.summarizeRoundIds.length ? plan : planPrefix(conversation, plan, covered)!;
	return { plan: used, blocks, attempts, requests };
}

/**
 * The same plan, summarizing exactly its oldest `count` rounds (1 ≤ count < the plan's count);
 * undefined otherwise. Unlike the planners it may anchor on the round where an interrupted turn
 * stopped: the blocks were already written for exactly these rounds.
 */
export function planPrefix(conversation: Conversation, plan: SummarizationPlan, count: number, options: PlanOptions = {}): SummarizationPlan | undefined {
	if (count < 1 || count >= plan.summarizeRoundIds.length) return undefined;
	const flat = flattenRounds(conversation);
	const start = newestSummaryIndex(flat) + 1;
	return buildPlan({ flat, start, split: start + count, mode: plan.mode, requestedMode: plan.requestedMode, fallbackReason: plan.fallbackReason }, options);
}

/** True when every attempt failed because the summarizer prompt did not fit. */
export function onlyPromptTooLarge(attempts: readonly SummaryAttempt[]): boolean {
	return attempts.length > 0 && attempts.every(a => a.outcome === 'prompt-too-large');
}
