// The record of one @longhaul request while it runs: the conversation as the prompts see it, the
// counters its metadata stores, and what the overflow pipeline remembers for the request.
import type { Conversation, Round } from '../common/conversation/conversation';
import type { SummaryDocument } from '../common/summaries/summaryDocument';
import type { StoredSummaryBlock } from '../common/summaries/applySummary';
import { extendLedger, type DoneLedger } from '../common/ledger/doneLedger';
import type { LedgerForPrompt } from '../common/ledger/doneLedgerRender';
import { newFitMemory, type FitMemory } from '../common/fitting/fitMemory';
import { newFitTally, type FitTally } from '../common/fitting/fitTally';
import { newBackgroundStats, type BackgroundStats } from '../common/background/backgroundJob';

/** A summary block made or condensed during this request, stored in this turn's metadata (it may anchor on an earlier turn's round). */
export type NewSummary = StoredSummaryBlock;

/** What one request accumulates while it runs; everything needed to write its metadata. */
export interface RequestState {
	conversation: Conversation;
	readonly newSummaries: NewSummary[];
	toolCallCount: number;
	maxToolCallsExceeded: boolean;
	cancelled: boolean;
	/** Longhaul's own time per round, ms (agentLoop.ts), and the time spent waiting for summaries. */
	readonly ownTimeMs: number[];
	summaryWaitMs: number;
	/** Per fit that waited for a summary or a condensation (promptFitting.ts), how long, ms. */
	readonly compactionWaitsMs: number[];
	/** The overflow pipeline's memory for this request: loop breaker, ledger left out. */
	readonly fit: FitMemory;
	readonly background: BackgroundStats;
	/** What the overflow pipeline did in this request (fitTally.ts); /compact's summaries count here too. */
	readonly tally: FitTally;
	/** The done-ledger so far: past turns, this request, and every active round's tool calls. */
	ledger: DoneLedger;
	/** The ledger text the prompts of this request show, re-rendered at each new summary. */
	ledgerShown?: LedgerForPrompt;
	/** This request's rounds as recorded, by id, before masking or elision changed them in `conversation` (for longhaul_recall). */
	readonly recordedRounds: Map<string, Round>;
	/** Steps the provider rejected as too long and that went through after recounting (agentLoop.ts askModel). */
	recoveries: number;
	/** The model's token ratio (calibration.ts) at the start and end of the request, and its changes by model call. */
	readonly tokenRatio: { start: number; end: number; changes: { modelCall: number; ratio: number }[] };
	/** The last prompt sent to the model: messages and tool definitions, local count (longhaul.showTokenCount). */
	lastPromptTokens?: number;
	/** The token ratio the last prompt was fitted with (its budget's), for the same line. */
	lastPromptRatio?: number;
	/** The summaries made in this request, oldest first, offered again at the end of the response. */
	readonly madeSummaries: SummaryDocument[];
	/** For the line at the end of the response: steps that set rounds aside while their summary was written (the bridge), the most rounds set aside at once, and the recent rounds each summary kept verbatim. */
	readonly compaction: { setAsideSteps: number; mostSetAside: number; readonly keptRounds: number[] };
	/** The model that wrote this request's summaries when `longhaul.summarizerModel` picked another one (vendor/id). */
	summarizerModel?: string;
}

export function newRequestState(past: Conversation, ledger: DoneLedger): RequestState {
	return {
		conversation: { turns: past.turns, activeRounds: [] },
		newSummaries: [],
		toolCallCount: 0,
		maxToolCallsExceeded: false,
		cancelled: false,
		ownTimeMs: [],
		summaryWaitMs: 0,
		compactionWaitsMs: [],
		fit: newFitMemory(),
		background: newBackgroundStats(),
		tally: newFitTally(),
		ledger,
		recordedRounds: new Map(),
		recoveries: 0,
		tokenRatio: { start: 1, end: 1, changes: [] },
		madeSummaries: [],
		compaction: { setAsideSteps: 0, mostSetAside: 0, keptRounds: [] },
	};
}

export function addActiveRound(state: RequestState, round: Round): void {
	state.conversation = { turns: state.conversation.turns, activeRounds: [...state.conversation.activeRounds, round] };
	state.ledger = extendLedger(state.ledger, round);
	state.recordedRounds.set(round.id, round);
}

/**
 * The id of the request's next round. Round ids are unique across sessions and reloads: summaries
 * are anchored on them (the time, the round's place in the request, and random characters).
 */
export function newRoundId(state: RequestState): string {
	const place = state.conversation.activeRounds.length + 1;
	return `r${Date.now().toString(36)}${place.toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}
