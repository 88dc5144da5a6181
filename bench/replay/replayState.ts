// Everything one replay keeps while it lives a recorded session again: the tokenizers and budget,
// the stand-in model's count and what the product learned of it, the probes, the strategies' own
// state, and the counters (one record, ReplayCounters; the overflow pipeline's steps in a FitTally,
// the same tally the agent keeps).
import type { Raw } from '@vscode/prompt-tsx';
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { flattenRounds } from '../../src/common/conversation/flatten';
import { olderRequestsBudget, type PromptEntry } from '../../src/common/conversation/promptLayout';
import { newFitMemory, type FitMemory } from '../../src/common/fitting/fitMemory';
import { newFitTally, type FitTally } from '../../src/common/fitting/fitTally';
import { doneLedgerCaps } from '../../src/common/ledger/doneLedgerRender';
import { RECALL_TOOL_NAME } from '../../src/common/recall/recallInput';
import { toolResultBudget, type PromptBudget } from '../../src/common/tokens/budget';
import { UNCALIBRATED, calibrationRatio, observeRejection, type Calibration } from '../../src/common/tokens/calibration';
import { TiktokenTokenizer } from '../../src/common/tokens/tokenizer';
import { toolDefinitionsText } from '../../src/common/tools/toolDefinitions';
import { productCatalogue } from './toolCharge';
import { standInCount } from './standInModel';
import { newFaultState, type FaultState } from './summarizerFaults';
import { toolsOfferedNow } from '../../src/common/tools/toolSelection';
import { hasRecallableRounds } from '../../src/common/recall/summarizedRounds';
import type { AgentPromptProps } from '../../src/prompts/agentPrompt';
import type { RenderedPrompt } from '../../src/prompts/render';
import { toolResultForPrompt } from '../../src/prompts/toolResultText';
import { blockOrderProbe, type BlockOrderProbe } from './blockOrder';
import { continuityProbe, type ContinuityProbe } from './continuity';
import type { KnowledgeOptions } from '../knowledge/knowledgeProbe';
import { maskingCounter, productSettings, type MaskingCounter } from './masking';
import { withRecall, type ReplayOptions, type StrategyName } from './replayTypes';
import { benchBudget, capSession, type Session } from './session';
import { CLOCK_PROFILES, VirtualClock } from './clock';
import type { Compactor } from '../../src/common/compaction/compactor';
import { UNLEARNED_SPEED, type LearnedSpeed } from '../../src/common/background/latency';

/** The tools named in the instructions before anything is summarized. */
export const TOOL_NAMES = ['bash'];
/** The tools the instructions name (the charge is the product catalogue's, toolCharge.ts); recall is named once something is summarized. */
const BENCH_TOOL_NAMES = [...TOOL_NAMES, RECALL_TOOL_NAME].map(name => ({ name }));
export const WORKSPACE = 'Workspace folders: /testbed';

/** What one fit of a request's prompt gives the rest of the replay. */
export interface Fitted {
	readonly prompt: RenderedPrompt;
	readonly overflow: boolean;
	/** Round ids shown verbatim. */
	readonly verbatimIds: ReadonlySet<string>;
	/** The rounds as rendered (possibly with elided results), for the fixed-part computation. */
	readonly verbatimRounds: readonly Round[];
	/** The summary the prompt shows, if any. */
	readonly summaryText?: string;
}

/** The replay's counters that the FitTally does not hold (the summarizer, the stand-in model, the reference strategies). */
export interface ReplayCounters {
	summarizerInputTokens: number;
	summarizerCalls: number;
	summaryTooLarge: number;
	summarizerRejections: number;
	modelRejections: number;
	recoveries: number;
	/** keep-head-tail's summaries (the product's are in the tally). */
	referenceSummarizations: number;
	/** Condense passes of keep-head-tail's summaries. */
	referenceCondensePasses: number;
	/** Rounds truncate-half dropped (the product's are in the tally). */
	referenceDroppedRounds: number;
	/** Requests the stand-in model refused in the end: the product's after its recovery, a reference's after its re-fit. */
	refusedInTheEnd: number;
	/** Loop-breaker stops by repeated tool calls (noteToolCall); those by summaries are in the tally. */
	repeatLoopBreaks: number;
	tokenizedInCompaction: number;
	tokenizedInPlanner: number;
	/** Output tokens of every summarizer and condense call (the input is summarizerInputTokens). */
	summarizerOutputTokens: number;
	/** Tokens of `<analysis>` the summarizer calls wrote on the clock (charged at the output rate, not part of the summary). */
	analysisTokens: number;
	readonly renderMs: number[];
	readonly planMs: number[];
	/** Of the request in progress: compactions and summaries made before it was sent. */
	compactionsThisRequest: number;
	summarizationsThisRequest: number;
	/** Product modes: requests with compactions, and those whose prompt the compactions did not make smaller (strategies.ts noteCompactionGain). */
	compactedRequestsMeasured: number;
	compactionsNotSmaller: number;
}

function newCounters(): ReplayCounters {
	return {
		summarizerInputTokens: 0,
		summarizerCalls: 0,
		summaryTooLarge: 0,
		summarizerRejections: 0,
		modelRejections: 0,
		recoveries: 0,
		referenceSummarizations: 0,
		referenceCondensePasses: 0,
		referenceDroppedRounds: 0,
		refusedInTheEnd: 0,
		repeatLoopBreaks: 0,
		tokenizedInCompaction: 0,
		tokenizedInPlanner: 0,
		summarizerOutputTokens: 0,
		analysisTokens: 0,
		renderMs: [],
		planMs: [],
		compactionsThisRequest: 0,
		summarizationsThisRequest: 0,
		compactedRequestsMeasured: 0,
		compactionsNotSmaller: 0,
	};
}

export interface ReplayState {
	readonly options: ReplayOptions;
	readonly strategy: StrategyName;
	readonly window: number;
	/** The replay's own tokenizer (its statistics are the product's) and the measurement tokenizer. */
	readonly tok: TiktokenTokenizer;
	readonly mt: TiktokenTokenizer;
	readonly budget: PromptBudget;
	readonly maxToolResultTokens: number;
	readonly recorded: Conversation;
	/** The tool definitions every request sends (the product's catalogue), as the stand-in model reads them. */
	readonly toolText: string;
	/** What the product learned of the stand-in model's count (calibration.ts). */
	calibration: Calibration;
	conversation: Conversation;
	/** The user message of the request in progress. */
	request: string;
	/** The overflow pipeline's memory for the request in progress (a new one per recorded turn, as in the agent). */
	fit: FitMemory;
	readonly tally: FitTally;
	readonly counters: ReplayCounters;
	/** --summarizer-faults: which summarizer replies fail, and how each fault ended (summarizerFaults.ts). */
	readonly faults: FaultState;
	readonly masking: MaskingCounter;
	readonly continuity: ContinuityProbe;
	readonly blocks: BlockOrderProbe;
	/** truncate-half: rounds dropped; keep-head-tail: the head, the summarized middle and its summary. */
	readonly dropped: Set<string>;
	readonly headIds: Set<string>;
	readonly summarized: Set<string>;
	headTailSummary?: { text: string; roundId: string };
	/** Per request: the records, every round so far, and what the previous prompt held. */
	readonly allIds: string[];
	readonly allRounds: Round[];
	previousKeys?: string[];
	pendingNew: number;
	shownBlockTexts: Set<string>;
	lastTokenized: number;
	lastCompactionTokenized: number;
	readonly roundTokenCache: WeakMap<Round, number>;
	/** The virtual clock (--clock), and with it background summaries for the product modes; absent with --clock none. */
	readonly clock?: VirtualClock;
	/** A product strategy's Compactor (replayCompactor.ts), built at its first request; with the clock it runs background summaries. */
	compactor?: Compactor;
	/** What the product learned of the summarizer's speed (latency.ts), as the agent learns it. */
	speed: LearnedSpeed;
	readonly timing: ReplayTiming;
}

/** What the clock measured: the user's waits at compactions and the background work. */
export interface ReplayTiming {
	/** Per compaction overflow (a fit that attached a summary): how long the user waited for summaries. */
	readonly waits: number[];
	/** Of those, served by a background summary that was ready (no wait for a summarizer). */
	served: number;
	/** The wait of the fit in progress, and whether it took a ready background summary. */
	fitWaitMs: number;
	tookReady: boolean;
	/** Summarizer tokens (in and out) of background jobs that were not used. */
	discardedTokens: number;
	/** Summarizer tokens of background jobs still pending when the recording ended. */
	pendingAtEndTokens: number;
	/** The summarizer time the call in progress has taken (read by the caller that owns it). */
	callMs: number;
}

/** Measurement tokenizer: counts for the metrics, kept apart from the replay's own tokenizer so its stats stay the product's. */
let measureTokenizer: TiktokenTokenizer | undefined;
function measurer(): TiktokenTokenizer {
	measureTokenizer ??= new TiktokenTokenizer();
	return measureTokenizer;
}

export function newReplayState(session: Session, options: ReplayOptions): ReplayState {
	const tok = new TiktokenTokenizer();
	const mt = measurer();
	const budget = benchBudget(options.window, mt);
	const recorded = capSession(session.conversation, budget, mt);
	return {
		options,
		strategy: options.strategy,
		window: options.window,
		tok,
		mt,
		budget,
		maxToolResultTokens: toolResultBudget(budget),
		recorded,
		toolText: toolDefinitionsText(productCatalogue()),
		calibration: UNCALIBRATED,
		conversation: { turns: [], activeRounds: [] },
		request: '',
		fit: newFitMemory(),
		tally: newFitTally(),
		counters: newCounters(),
		faults: newFaultState(options.summarizerFaults ?? 0, session.name),
		masking: maskingCounter(),
		continuity: continuityProbe({
			enabled: (productSettings(options.strategy) !== undefined || withRecall(options.strategy)) && options.doneLedger !== false,
			refresh: options.ledgerRefresh,
			...doneLedgerCaps(budget.messages),
			countTokens: text => tok.countTokens(text),
			knowledge: knowledgeOptions(recorded, options, budget, mt),
		}),
		blocks: blockOrderProbe(productSettings(options.strategy) !== undefined),
		dropped: new Set(),
		headIds: new Set(),
		summarized: new Set(),
		allIds: [],
		allRounds: [],
		pendingNew: 0,
		shownBlockTexts: new Set(),
		lastTokenized: tok.stats().tokenizedTokens,
		lastCompactionTokenized: 0,
		roundTokenCache: new WeakMap(),
		...(options.clock && options.clock !== 'none'
			? { clock: new VirtualClock(CLOCK_PROFILES[options.clock], { seed: session.name, rateLimits: options.rateLimits ?? 0 }) }
			: {}),
		speed: UNLEARNED_SPEED,
		timing: { waits: [], served: 0, fitWaitMs: 0, tookReady: false, discardedTokens: 0, pendingAtEndTokens: 0, callMs: 0 },
	};
}

/** The knowledge probe's setting: the capped session it samples, and recall where the prompt offers it (the product modes). */
function knowledgeOptions(recorded: Conversation, options: ReplayOptions, budget: PromptBudget, mt: TiktokenTokenizer): KnowledgeOptions {
	if (productSettings(options.strategy) === undefined && !withRecall(options.strategy)) return { recorded };
	return { recorded, recall: { messageBudget: budget.messages, countTokens: text => mt.countTokens(text) } };
}

/** The budget now: scaled by the ratio the product learned when the stand-in model counts differently. */
export function budgetNow(r: ReplayState): PromptBudget {
	return r.options.modelTokenRatio === undefined ? r.budget : benchBudget(r.window, r.mt, calibrationRatio(r.calibration));
}

/** What one request sends the stand-in model: its local tokens and the text it counts. */
export interface Sent {
	readonly tokens: number;
	readonly text: string;
}

/** The text of a prompt's messages: their text parts and tool calls. */
export function promptText(prompt: RenderedPrompt): string {
	return prompt.messages
		.map(m => {
			const parts = m.content.map(part => ('text' in part && typeof part.text === 'string' ? part.text : ''));
			const calls = 'toolCalls' in m && m.toolCalls ? m.toolCalls.map(c => `${c.function.name}\n${c.function.arguments}`) : [];
			return [...parts, ...calls].join('\n');
		})
		.join('\n');
}

/**
 * An agent request as sent: the prompt and the tool definitions (toolCharge.ts). Its text is built
 * when first read: only the stand-in model's count under --model-token-ratio reads it, and every
 * request of every strategy asks whether it was refused.
 */
export function sentRequest(r: ReplayState, prompt: RenderedPrompt): Sent {
	let text: string | undefined;
	return {
		tokens: prompt.tokenCount + budgetNow(r).toolTokens,
		get text() {
			text ??= `${promptText(prompt)}\n${r.toolText}`;
			return text;
		},
	};
}

/** The stand-in model's count of what is sent: by content, R on average (standInModel.ts). */
export function modelCount(r: ReplayState, sent: Sent): number {
	const ratio = r.options.modelTokenRatio;
	return ratio === undefined ? sent.tokens : standInCount(sent.tokens, sent.text, ratio);
}

/** Would the stand-in model refuse it? */
export function refusedByModel(r: ReplayState, sent: Sent): boolean {
	return r.options.modelTokenRatio !== undefined && modelCount(r, sent) > r.window;
}

/** The product learns from a refusal, as the agent does from the provider's error. */
export function learnRefusal(r: ReplayState, sent: Sent): void {
	r.calibration = observeRejection(r.calibration, { promptTokens: modelCount(r, sent), limit: r.window }, sent.tokens, r.window, 0);
}

/** Rendered size of one verbatim round (assistant message with its calls, one tool message per call). */
export function roundTokens(r: ReplayState, round: Round): number {
	let n = r.roundTokenCache.get(round);
	if (n === undefined) {
		n = 3 + r.mt.countTokens(round.response);
		for (const call of round.toolCalls) {
			n += 3 + r.mt.countTokens(call.name) + r.mt.countTokens(call.arguments);
			n += 3 + r.mt.countTokens(toolResultForPrompt(call, r.maxToolResultTokens, r.mt));
		}
		r.roundTokenCache.set(round, n);
	}
	return n;
}

/**
 * A +recall reference's conversation as recall and the ledger see it: the rounds it left out
 * (dropped, or in keep-head-tail's summarized middle) are behind a marker summary on the newest of
 * them, as the product's summarized rounds are, so recall reaches them and the ledger is rendered
 * again when that round moves. The marker is never shown: the prompt is the reference's own.
 */
export function referenceRecallView(r: ReplayState): Conversation {
	const left = (id: string) => r.dropped.has(id) || r.summarized.has(id);
	const flat = flattenRounds(r.conversation);
	let newest = -1;
	for (let i = flat.length - 1; i >= 0 && newest < 0; i--) if (left(flat[i].round.id)) newest = i;
	if (newest < 0) return r.conversation;
	const id = flat[newest].round.id;
	const mark = (round: Round): Round => (round.id === id ? { ...round, summary: '(left out by the reference strategy)' } : round);
	return { turns: r.conversation.turns.map(t => ({ ...t, rounds: t.rounds.map(mark) })), activeRounds: r.conversation.activeRounds.map(mark) };
}

/** A +recall reference's tool names and done-ledger for its prompt now (the plain references: the tools without recall, no ledger). */
export function referenceExtras(r: ReplayState): { toolNames: string[]; doneLedger?: string } {
	if (!withRecall(r.strategy)) return { toolNames: TOOL_NAMES };
	const view = referenceRecallView(r);
	const doneLedger = r.continuity.ledgerText(view);
	return { toolNames: toolsOfferedNow(BENCH_TOOL_NAMES, hasRecallableRounds(view)).map(t => t.name), ...(doneLedger ? { doneLedger } : {}) };
}

/** The agent prompt's props, as the product fills them (src/agent/promptFitting.ts). */
export function agentProps(r: ReplayState, conversation: Conversation, request: string): AgentPromptProps {
	const budget = budgetNow(r);
	// A +recall reference (truncate-half's prompt): recall and the ledger see the rounds it dropped.
	const recallView = withRecall(r.strategy) ? referenceRecallView(r) : undefined;
	return {
		conversation,
		request,
		references: [],
		// As the product: longhaul_recall is offered (and named in the instructions) once something is summarized, masked or elided.
		toolNames: toolsOfferedNow(BENCH_TOOL_NAMES, hasRecallableRounds(recallView ?? conversation)).map(t => t.name),
		workspace: WORKSPACE,
		maxToolResultTokens: toolResultBudget(budget),
		olderRequestsMaxTokens: r.fit.tight !== 'none' ? 0 : olderRequestsBudget(budget.messages),
		doneLedger: r.fit.ledgerSuspended ? undefined : r.continuity.ledgerText(recallView ?? conversation, r.fit.tight === 'ledger'),
	};
}

/** The layout options the product renders past requests with (for the verbatim part of a fit). */
export function layoutOptions(r: ReplayState) {
	return { olderRequestsMaxTokens: olderRequestsBudget(r.budget.messages), countTokens: (text: string) => r.tok.countTokens(text) };
}

/** The rounds and summary a prompt laid out as `entries` shows. */
export function verbatimFromLayout(entries: readonly PromptEntry[]): Pick<Fitted, 'verbatimIds' | 'verbatimRounds' | 'summaryText'> {
	const ids = new Set<string>();
	const rounds: Round[] = [];
	let summaryText: string | undefined;
	for (const e of entries) {
		if (e.kind === 'round') {
			ids.add(e.round.id);
			rounds.push(e.round);
		} else if (e.kind === 'summary') {
			summaryText = e.text;
		}
	}
	return { verbatimIds: ids, verbatimRounds: rounds, summaryText };
}

/** Times a render (renderMs). */
export async function timedRender<T>(r: ReplayState, render: () => Promise<T>): Promise<T> {
	const start = performance.now();
	try {
		return await render();
	} finally {
		r.counters.renderMs.push(performance.now() - start);
	}
}

/** Counts the tokenizing a compaction step does (tokenizedInCompaction). */
export async function inCompaction<T>(r: ReplayState, run: () => Promise<T>): Promise<T> {
	const before = r.tok.stats().tokenizedTokens;
	try {
		return await run();
	} finally {
		r.counters.tokenizedInCompaction += r.tok.stats().tokenizedTokens - before;
	}
}

export function messageKey(m: Raw.ChatMessage): string {
	return JSON.stringify(m);
}
