// The replay: a recorded session lived again request by request, at one window, with one
// strategy. Before each model call the prompt holds the conversation so far (past turns, then the
// rounds of the request in progress); the model's side (each round) comes from the recording.
// When the prompt does not fit, the product modes call the product's own overflow pipeline
// (fitPrompt, src/common/fitting/fitPrompt.ts), as src/agent/agentLoop.ts does, with the real
// planners and prompt-tsx prompts; only the summarizer's reply is a stand-in
// (standInSummary.ts). With `modelTokenRatio` R, the stand-in model counts R× the local tokens and
// refuses what is over the window by its count (standInModel.ts); the product modes then learn the
// ratio (sampled counts, rejections: src/common/tokens/calibration.ts) and recover from a refusal
// as src/agent/agentLoop.ts does. See bench/RESULTS.md.
import type { Raw } from '@vscode/prompt-tsx';
import { summarizerPromptBudget, summaryBudget, toolResultBudget, type PromptBudget } from '../../src/common/tokens/budget';
import { UNCALIBRATED, calibrationRatio, observeRejection, observeSample, shouldSample } from '../../src/common/tokens/calibration';
import { summaryLength } from '../../src/common/summaries/summaryLength';
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { percentile } from '../../src/common/stats/percentile';
import { newFitSession, noteToolCall } from '../../src/common/fitting/fitSession';
import { fitPlanOptions, fitPrompt, type FitEvent, type FitOptions } from '../../src/common/fitting/fitPrompt';
import { isTruncation, retryMessageBudget, truncatedAfterFailedSummary } from '../../src/common/fitting/refusal';
import { flattenRounds, newestSummaryIndex } from '../../src/common/conversation/flatten';
import { toolsOfferedNow } from '../../src/common/tools/toolSelection';
import { RECALL_TOOL_NAME } from '../../src/common/recall/recallInput';
import type { SummarizationMode, SummarizationPlan } from '../../src/common/planning/plan';
import { planOrNothing } from '../../src/common/planning/planners';
import type { PromptEntry } from '../../src/common/conversation/promptLayout';
import { layoutPrompt, olderRequestsBudget } from '../../src/common/conversation/promptLayout';
import { condensePasses as countCondensePasses, produceSummary, type SummaryAttempt } from '../../src/common/summaries/summarizationFlow';
import { summarizerEntries, type SummarizerEntry } from '../../src/common/summaries/summarizerInput';
import { TiktokenTokenizer } from '../../src/common/tokens/tokenizer';
import {
	isBudgetExceededError,
	measureAgentPrompt,
	renderAgentPrompt,
	renderCondenseBlockPrompt,
	renderCondensePrompt,
	renderSummarizerPrompt,
	type RenderedPrompt,
} from '../../src/prompts/render';
import { summaryMessageText } from '../../src/prompts/summaryMessage';
import { toolResultForPrompt } from '../../src/prompts/toolResultText';
import { renderEntriesPrompt } from './headTailPrompt';
import { MASKED_STRATEGIES, maskingCounter, productSettings, type MaskingMetrics } from './masking';
import { loadBashParser } from '../../src/common/shell/bashParser';
import { continuityProbe, type ContinuityMetrics, type LedgerOffComparison } from './continuity';
import { doneLedgerCaps } from '../../src/common/ledger/doneLedgerRender';
import { benchBudget, capSession, type Session } from './session';
import { cutToLength, standInCondense, standInLength, standInSummary, statedTarget, summarySeed } from './standInSummary';
import { promptTooLongError } from './standInModel';
import { blockOrderProbe, type BlockOrderMetrics } from './blockOrder';
import { summaryBlocks } from '../../src/common/conversation/summaryBlocks';

export const STRATEGIES = ['legacy', 'half-context', 'truncate-half', 'keep-head-tail', ...MASKED_STRATEGIES] as const;
export type StrategyName = (typeof STRATEGIES)[number];
export const WINDOWS = [16_000, 32_000, 64_000] as const;

/** keep-head-tail: summaries one render may make before the prompt counts as an overflow. */
export const HEAD_TAIL_SUMMARIES_PER_RENDER = 2;
/** keep-head-tail: rounds at the start of the session that always stay verbatim. */
export const HEAD_ROUNDS = 2;
/** The tools named in the instructions before anything is summarized. */
export const TOOL_NAMES = ['bash'];
/** Every tool the replayed agent is charged for (session.ts benchToolTokens); recall is offered once something is summarized. */
const BENCH_TOOL_NAMES = [...TOOL_NAMES, RECALL_TOOL_NAME].map(name => ({ name }));
export const WORKSPACE = 'Workspace folders: /testbed';

export interface RequestRecord {
	readonly index: number;
	/** Tokens of the prompt sent (or, on overflow, of the prompt that did not fit). */
	readonly promptTokens: number;
	readonly overflow: boolean;
	/** Summarizations (or, for truncate-half, truncations) done before this request. */
	readonly compactions: number;
	readonly summarizations: number;
	readonly verbatimRounds: number;
	readonly limitRounds: number;
	/** undefined for the first request. */
	readonly prefixReuse?: number;
	readonly tokenized: number;
	readonly tokenizedOutsideCompaction: number;
	readonly newTokens: number;
}

export interface ReplayMetrics extends MaskingMetrics, ContinuityMetrics, BlockOrderMetrics {
	readonly session: string;
	readonly window: number;
	readonly strategy: StrategyName;
	readonly requests: number;
	readonly summarizations: number;
	readonly summarizerInputTokens: number;
	readonly mainInputTokens: number;
	readonly overflows: number;
	readonly verbatimHorizonRounds: number;
	readonly verbatimAfterSummaryRounds: number | null;
	readonly verbatimLimitRounds: number;
	readonly fillRatioMean: number;
	readonly fillRatioMin: number;
	readonly prefixReuse: number;
	readonly renderMsP50: number;
	readonly renderMsP95: number;
	readonly planMsP50: number | null;
	readonly tokenizedPerNewToken: number;
	// Extras (documented in bench/RESULTS.md).
	readonly compactions: number;
	/** Requests preceded by at least one compaction (the requests verbatimAfterSummaryRounds averages). */
	readonly compactedRequests: number;
	readonly elidedToolResults: number;
	readonly summarizerCalls: number;
	readonly tokenizedPerNewTokenOutsideCompaction: number;
	/** Share of all tokenized tokens spent inside planSummarization (its token statistics). */
	readonly tokenizedShareInPlanner: number;
	readonly messageBudget: number;
	readonly toolTokens: number;
	/** Chat requests in which the loop breaker stopped model summaries (src/common/fitting/loopBreaker.ts). */
	readonly loopBreaks: number;
	/** Rounds dropped without a summary, the last step of truncation (src/common/shrinking/dropOlderRounds.ts). */
	readonly droppedRounds: number;
	/** The same replay with the done-ledger off (set by main.ts for legacy and half-context). */
	readonly ledgerOff?: LedgerOffComparison;
	/** half-context's split rule in this replay: `tokens` (the product's) or `rounds` (--half-split rounds); null for other strategies. */
	readonly halfContextSplit: 'tokens' | 'rounds' | null;
	/** Model summarizations whose split the token-aware rule moved (kept fewer rounds than the round rule). */
	readonly splitMovedSummarizations: number;
	/** Summarizations that made more than one block (they spanned turns). */
	readonly multiTurnSummarizations: number;
	/** Mean tokens of the kept rounds the plans reported, over model summarizations; null without. */
	readonly keptTokensMean: number | null;
	/** --model-token-ratio: the stand-in model's tokens per local token (null: it counts like the local tokenizer and has no hard limit). */
	readonly modelTokenRatio: number | null;
	/** The ratio the product had learned by the end of the replay (1 without --model-token-ratio). */
	readonly calibratedRatio: number;
	/** Agent requests the stand-in model still refused as too long after the product's recovery (the product ends the request with an error). */
	readonly modelRejections: number;
	/** Agent requests the model refused as too long that the product recounted, refit and sent again. */
	readonly recoveries: number;
	/** Summarizer requests the model refused as too long (the flow then tries the next mode). */
	readonly summarizerRejections: number;
	/** Condense passes: a summary over the cap shortened by the model (summarizationFlow.ts). */
	readonly condensePasses: number;
	/** Summaries the model wrote over the cap (condensed ones included). */
	readonly summaryTooLarge: number;
	/** Overflows where the model's summary failed and old tool results or rounds were removed instead. */
	readonly truncationsAfterFailedSummary: number;
	/** Overflows that ended in truncation (old tool results elided or rounds dropped), whatever the reason. */
	readonly truncations: number;
}

export interface ReplayResult {
	readonly metrics: ReplayMetrics;
	readonly perRequest: readonly RequestRecord[];
}

interface Fitted {
	readonly prompt: RenderedPrompt;
	readonly overflow: boolean;
	/** Round ids shown verbatim. */
	readonly verbatimIds: ReadonlySet<string>;
	/** The rounds as rendered (possibly with elided results), for the fixed-part computation. */
	readonly verbatimRounds: readonly Round[];
	/** The summary the prompt shows, if any. */
	readonly summaryText?: string;
}

function mean(values: readonly number[]): number {
	return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Measurement tokenizer: counts for the metrics, kept apart from the replay's own tokenizer so its stats stay the product's. */
let measureTokenizer: TiktokenTokenizer | undefined;
function measurer(): TiktokenTokenizer {
	measureTokenizer ??= new TiktokenTokenizer();
	return measureTokenizer;
}

function messageKey(m: Raw.ChatMessage): string {
	return JSON.stringify(m);
}

export interface ReplayOptions {
	readonly window: number;
	readonly strategy: StrategyName;
	/** The done-ledger in the product strategies' prompts (default on, like the product; bench/replay/continuity.ts). */
	readonly doneLedger?: boolean;
	/** How often the ledger text is rendered again (continuity.ts); default at-summary. */
	readonly ledgerRefresh?: 'at-summary' | 'every-request';
	/** half-context's split rule (fitPrompt.ts FitOptions); default the product's. */
	readonly halfContextSplit?: 'tokens' | 'rounds';
	/**
	 * The stand-in model counts this many tokens per local token and refuses a request over the
	 * window by its count. Undefined: it counts like the local tokenizer and accepts everything.
	 */
	readonly modelTokenRatio?: number;
	/** The product modes sample the model's count (default true); false leaves only recovery from refusals. */
	readonly calibrate?: boolean;
}

function promptText(prompt: RenderedPrompt): string {
	return prompt.messages.map(m => m.content.map(part => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('')).join('\n');
}

export async function replaySession(session: Session, options: ReplayOptions): Promise<ReplayResult> {
	await loadBashParser(); // the done-ledger's shell classifier reads command lines with it
	const { window, strategy } = options;
	const tok = new TiktokenTokenizer();
	const mt = measurer();
	const budget: PromptBudget = benchBudget(window, mt);
	const maxToolResultTokens = toolResultBudget(budget);
	// The stand-in model's count and hard limit, and what the product learns of it.
	const modelRatio = options.modelTokenRatio;
	let calibration = UNCALIBRATED;
	const budgetNow = (): PromptBudget => (modelRatio === undefined ? budget : benchBudget(window, mt, calibrationRatio(calibration)));
	const modelCount = (localTokens: number) => Math.ceil((modelRatio ?? 1) * localTokens);
	const refused = (localTokens: number) => modelRatio !== undefined && modelCount(localTokens) > window;
	const reject = (localTokens: number) => {
		calibration = observeRejection(calibration, { promptTokens: modelCount(localTokens), limit: window }, localTokens, window, 0);
	};
	let modelRejections = 0;
	let recoveries = 0;
	let summarizerRejections = 0;
	let condensePasses = 0;
	let summaryTooLarge = 0;
	let truncationsAfterFailedSummary = 0;
	let truncations = 0;
	const recorded = capSession(session.conversation, budget, mt);
	const masking = maskingCounter();
	const continuity = continuityProbe({
		enabled: productSettings(strategy) !== undefined && options.doneLedger !== false,
		refresh: options.ledgerRefresh,
		...doneLedgerCaps(budget.messages),
		countTokens: text => tok.countTokens(text),
	});

	// Rendered size of one verbatim round (assistant message with its calls, one tool message per call).
	const roundTokenCache = new WeakMap<Round, number>();
	const roundTokens = (round: Round): number => {
		let n = roundTokenCache.get(round);
		if (n === undefined) {
			n = 3 + mt.countTokens(round.response);
			for (const call of round.toolCalls) {
				n += 3 + mt.countTokens(call.name) + mt.countTokens(call.arguments);
				n += 3 + mt.countTokens(toolResultForPrompt(call, maxToolResultTokens, mt));
			}
			roundTokenCache.set(round, n);
		}
		return n;
	};

	const renderMs: number[] = [];
	const planMs: number[] = [];
	let summarizerInputTokens = 0;
	let summarizerCalls = 0;
	let summarizations = 0;
	let elidedToolResults = 0;
	let tokenizedInCompaction = 0;
	let tokenizedInPlanner = 0;

	const agentProps = (conversation: Conversation, request: string) => ({
		conversation,
		request,
		references: [],
		// As the product: longhaul_recall is offered (and named in the instructions) once something is summarized.
		toolNames: toolsOfferedNow(BENCH_TOOL_NAMES, newestSummaryIndex(flattenRounds(conversation)) !== -1).map(t => t.name),
		workspace: WORKSPACE,
		maxToolResultTokens: toolResultBudget(budgetNow()),
		olderRequestsMaxTokens: fit.tight !== 'none' ? 0 : olderRequestsBudget(budgetNow().messages),
		doneLedger: fit.ledgerSuspended ? undefined : continuity.ledgerText(conversation, fit.tight === 'ledger'),
	});
	const layoutOptions = { olderRequestsMaxTokens: olderRequestsBudget(budget.messages), countTokens: (text: string) => tok.countTokens(text) };
	const timedRender = async <T>(run: () => Promise<T>): Promise<T> => {
		const start = performance.now();
		try {
			return await run();
		} finally {
			renderMs.push(performance.now() - start);
		}
	};

	/**
	 * The stand-in's answer to a request to shorten an older block: like a model asked for N tokens
	 * that writes a quarter more (the upper end of how far models miss a stated length), so the
	 * product's deterministic cut always follows. The request is rendered and counted as sent.
	 */
	const condense = async (block: string, target: number): Promise<string> => {
		const rendered = await renderCondenseBlockPrompt({ block, targetTokens: target }, { tokenizer: tok, budget: Number.MAX_SAFE_INTEGER });
		summarizerInputTokens += rendered.tokenCount;
		summarizerCalls++;
		return cutToLength(block, Math.round(target * 1.25), tok);
	};

	/**
	 * The product's Full → Simple flow (with its condense passes) and the stand-in's replies, which
	 * follow the length the prompt states (standInSummary.ts); no summary when none could be made.
	 */
	const summarize = async (
		entries: SummarizerEntry[],
		previousSummary: string | undefined,
	): Promise<{ summary?: string; attempts: readonly SummaryAttempt[] }> => {
		const current = budgetNow();
		const maxSummary = summaryBudget(current);
		const length = summaryLength(maxSummary);
		const result = await produceSummary<RenderedPrompt>(
			{
				render: async mode => {
					const rendered = await renderSummarizerPrompt(
						{ mode, rounds: entries, previousSummary, length },
						{ tokenizer: tok, budget: summarizerPromptBudget(current) },
					);
					return { prompt: rendered, tokenCount: rendered.tokenCount };
				},
				renderCondense: async summary => {
					const rendered = await renderCondensePrompt({ summary, length }, { tokenizer: tok, budget: summarizerPromptBudget(current) });
					return { prompt: rendered, tokenCount: rendered.tokenCount };
				},
				send: async prompt => {
					if (refused(prompt.tokenCount)) {
						summarizerRejections++;
						reject(prompt.tokenCount);
						throw promptTooLongError(modelCount(prompt.tokenCount), window);
					}
					const text = promptText(prompt);
					const condense = /<summary-to-condense>\n([\s\S]*?)\n<\/summary-to-condense>/.exec(text)?.[1];
					if (condense !== undefined) return standInCondense(condense, standInLength(statedTarget(text), condense), tok);
					return standInSummary(entries, previousSummary, standInLength(statedTarget(text), summarySeed(text)), tok);
				},
				countTokens: text => tok.countTokens(text),
				isPromptTooLarge: isBudgetExceededError,
				isCancellation: () => false,
				isCancelled: () => false,
				cancellationError: () => new Error('cancelled'),
			},
			maxSummary,
		);
		for (const attempt of result.attempts) {
			if (attempt.promptTokens !== undefined) {
				summarizerInputTokens += attempt.promptTokens;
				summarizerCalls++;
			}
			if (attempt.outcome === 'summary-too-large') summaryTooLarge++;
		}
		condensePasses += countCondensePasses(result.attempts);
		return result;
	};
	const inCompaction = async <T>(run: () => Promise<T>): Promise<T> => {
		const before = tok.stats().tokenizedTokens;
		try {
			return await run();
		} finally {
			tokenizedInCompaction += tok.stats().tokenizedTokens - before;
		}
	};

	// ---- strategy state ----
	let conversation: Conversation = { turns: [], activeRounds: [] };
	const dropped = new Set<string>(); // truncate-half
	const headIds = new Set<string>(); // keep-head-tail
	const summarized = new Set<string>(); // keep-head-tail
	let headTailSummary: { text: string; roundId: string } | undefined;
	let compactionsThisRequest = 0;
	let summarizationsThisRequest = 0;
	// Per chat request (recorded turn), as in the agent: the loop breaker and the ledger's last resort.
	let fit = newFitSession();
	let loopBreaks = 0;
	let droppedRounds = 0;
	const blocks = blockOrderProbe(productSettings(strategy) !== undefined);
	let splitMovedSummarizations = 0;
	let multiTurnSummarizations = 0;
	const keptTokens: number[] = [];
	/** Block texts of the previous prompt: a block that is not among them is new prompt content. */
	let shownBlockTexts = new Set<string>();

	const verbatimFromLayout = (entries: readonly PromptEntry[]) => {
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
	};

	/** legacy / half-context: the product's overflow pipeline, as the agent loop calls it. */
	const fitProduct = async (mode: SummarizationMode, request: string, mask: boolean, messageBudget?: number): Promise<Fitted> => {
		const countTokens = (text: string) => tok.countTokens(text);
		const props = (c: Conversation) => agentProps(c, request);
		const current = budgetNow();
		const messages = Math.min(messageBudget ?? current.messages, current.messages);
		const fitOptions: FitOptions = {
			mode,
			messageBudget: messages,
			maskOldToolResults: mask,
			summaryBudget: summaryBudget(current),
			...(options.halfContextSplit ? { halfContextSplit: options.halfContextSplit } : {}),
		};
		const planOptions = fitPlanOptions(fitOptions, countTokens);
		const result = await fitPrompt<RenderedPrompt>(
			conversation,
			fit,
			{
				render: async c => {
					try {
						return { fits: true, prompt: await timedRender(() => renderAgentPrompt(props(c), { tokenizer: tok, budget: messages })) };
					} catch (error) {
						if (isBudgetExceededError(error)) return { fits: false };
						throw error;
					}
				},
				measure: async c => (await measureAgentPrompt(props(c), tok)).tokenCount,
				showsLedger: c => continuity.ledgerText(c) !== undefined,
				plan: c => {
					const start = performance.now();
					const tokenizedBefore = tok.stats().tokenizedTokens;
					try {
						return planOrNothing(c, mode, planOptions);
					} finally {
						planMs.push(performance.now() - start);
						const planned = tok.stats().tokenizedTokens - tokenizedBefore;
						tokenizedInPlanner += planned;
						tokenizedInCompaction += planned;
					}
				},
				summarize: (c, part) => inCompaction(() => summarize(summarizerEntries(c, part, request), part.previousSummary?.text)),
				condense: (block, target) => inCompaction(() => condense(block, target)),
				countTokens,
				isCancelled: () => false,
				cancellationError: () => new Error('cancelled'),
			},
			fitOptions,
		);
		conversation = result.conversation;
		if (process.env.LONGHAUL_BENCH_DEBUG && result.events.length > 0) process.stderr.write(`fit: ${result.events.map(describeEvent).join(', ')}\n`);
		if (process.env.LONGHAUL_BENCH_DEBUG === 'prompt' && result.events.some(e => e.kind === 'loop-breaker')) {
			const shown = await measureAgentPrompt(props(result.conversation), tok);
			for (const m of shown.messages) {
				const text = JSON.stringify(m.content).slice(0, 70);
				process.stderr.write(`  ${m.role} ${mt.countMessageTokens(m)} ${text}\n`);
			}
		}
		if (truncatedAfterFailedSummary(result.events)) truncationsAfterFailedSummary++;
		if (result.events.some(isTruncation)) truncations++;
		for (const event of result.events) {
			masking.record(event);
			if (event.kind === 'summarized') {
				summarizations++;
				summarizationsThisRequest++;
				compactionsThisRequest++;
				if (event.prepared.plan.stats.tokenAware?.moved) splitMovedSummarizations++;
				if (event.prepared.blocks.length > 1) multiTurnSummarizations++;
				if (event.prepared.plan.stats.tokens) keptTokens.push(event.prepared.plan.stats.tokens.kept);
			} else if (event.kind === 'condensed') {
				blocks.noteCondensed(event.blocks.length);
			} else if (event.kind === 'elided') {
				elidedToolResults += event.calls;
			} else if (event.kind === 'dropped') {
				droppedRounds += event.plan.summarizeRoundIds.length;
				compactionsThisRequest++;
			} else if (event.kind === 'loop-breaker' && event.scope === 'request') {
				loopBreaks++;
			}
		}
		const prompt = result.kind === 'fits' ? result.prompt : await measureAgentPrompt(props(conversation), tok);
		blocks.recordRequest(conversation, request, prompt.messages);
		return { prompt, overflow: result.kind === 'refused', ...verbatimFromLayout(layoutPrompt(conversation, layoutOptions)) };
	};

	const withoutDropped = (): Conversation => ({
		turns: conversation.turns.map(t => ({ ...t, rounds: t.rounds.filter(r => !dropped.has(r.id)) })),
		activeRounds: conversation.activeRounds.filter(r => !dropped.has(r.id)),
	});

	/** truncate-half (Cline): drop the oldest half of the visible rounds, no summary, until it fits. */
	const fitTruncateHalf = async (request: string): Promise<Fitted> => {
		for (;;) {
			const visible = withoutDropped();
			try {
				const prompt = await timedRender(() => renderAgentPrompt(agentProps(visible, request), { tokenizer: tok, budget: budget.messages }));
				return { prompt, overflow: false, ...verbatimFromLayout(layoutPrompt(visible)) };
			} catch (error) {
				if (!isBudgetExceededError(error)) throw error;
			}
			const start = performance.now();
			const rounds = flattenRounds(visible);
			const drop = Math.floor(rounds.length / 2);
			rounds.slice(0, drop).forEach(r => dropped.add(r.round.id));
			planMs.push(performance.now() - start);
			if (drop === 0) {
				const measured = await measureAgentPrompt(agentProps(visible, request), tok);
				return { prompt: measured, overflow: true, ...verbatimFromLayout(layoutPrompt(visible)) };
			}
			compactionsThisRequest++;
		}
	};

	/** keep-head-tail layout: users verbatim, head rounds, the summary where the summarized middle ends, the rest verbatim. */
	const headTailEntries = (): PromptEntry[] => {
		const entries: PromptEntry[] = [];
		for (const at of flattenRoundsWithUsers(conversation)) {
			if (at.kind === 'user') {
				entries.push(at.entry);
				continue;
			}
			const { round } = at.flat;
			const location = { source: at.flat.source, turnIndex: at.flat.turnIndex, roundIndex: at.flat.roundIndex };
			if (summarized.has(round.id)) {
				if (headTailSummary && round.id === headTailSummary.roundId) {
					entries.push({ kind: 'summary', roundId: round.id, text: headTailSummary.text, location });
				}
				continue;
			}
			entries.push({ kind: 'round', round, location, interrupted: round.toolCalls.some(c => c.result === undefined) });
		}
		return entries;
	};

	/** keep-head-tail (OpenHands): keep the first rounds and the newest up to half the budget; summarize the middle. */
	const fitHeadTail = async (request: string): Promise<Fitted> => {
		let compactions = 0;
		for (;;) {
			const entries = headTailEntries();
			const prompt = await timedRender(() => renderEntriesPrompt({ entries, request, toolNames: TOOL_NAMES, workspace: WORKSPACE, maxToolResultTokens }, tok));
			if (prompt.tokenCount <= budget.messages) {
				return { prompt, overflow: false, ...verbatimFromLayout(entries) };
			}
			if (compactions >= HEAD_TAIL_SUMMARIES_PER_RENDER) {
				return { prompt, overflow: true, ...verbatimFromLayout(entries) };
			}
			compactions++;
			const start = performance.now();
			const candidates = flattenRounds(conversation).filter(at => !headIds.has(at.round.id) && !summarized.has(at.round.id));
			let tailTokens = 0;
			let tailStart = candidates.length;
			while (tailStart > 0) {
				const cost = roundTokens(candidates[tailStart - 1].round);
				if (tailStart < candidates.length && tailTokens + cost > budget.messages / 2) break;
				tailTokens += cost;
				tailStart--;
			}
			const middle = candidates.slice(0, tailStart).map(at => at.round.id);
			planMs.push(performance.now() - start);
			if (middle.length === 0) {
				return { prompt, overflow: true, ...verbatimFromLayout(entries) };
			}
			const plan = { summarizeRoundIds: middle } as unknown as SummarizationPlan;
			const text = (await inCompaction(() => summarize(summarizerEntries(conversation, plan, request), headTailSummary?.text))).summary;
			if (text === undefined) {
				return { prompt, overflow: true, ...verbatimFromLayout(entries) };
			}
			middle.forEach(id => summarized.add(id));
			headTailSummary = { text, roundId: middle[middle.length - 1] };
			summarizations++;
			summarizationsThisRequest++;
			compactionsThisRequest++;
		}
	};

	// ---- the replay ----
	const records: RequestRecord[] = [];
	const allIds: string[] = [];
	const allRounds: Round[] = [];
	let previousKeys: string[] | undefined;
	let pendingNew = 0;
	let requestIndex = 0;
	const statsAtStart = tok.stats().tokenizedTokens;
	let lastTokenized = statsAtStart;
	let lastCompactionTokenized = 0;

	for (const turn of recorded.turns) {
		pendingNew += 3 + mt.countTokens(turn.user);
		continuity.startTurn(turn.user);
		fit = newFitSession();
		for (const [callIndex, round] of turn.rounds.entries()) {
			compactionsThisRequest = 0;
			summarizationsThisRequest = 0;
			const product = productSettings(strategy);
			let fitted = product
				? await fitProduct(product.mode, turn.user, product.mask)
				: strategy === 'truncate-half'
					? await fitTruncateHalf(turn.user)
					: await fitHeadTail(turn.user);
			if (product && modelRatio !== undefined && !fitted.overflow) {
				// The stand-in model's hard limit, and the product's recovery (agentLoop.ts askModel):
				// recount with what the refusal says, refit at the tightened count, send once more.
				const sentTokens = () => fitted.prompt.tokenCount + budgetNow().toolTokens;
				if (refused(sentTokens())) {
					const before = budgetNow();
					reject(sentTokens());
					recoveries++;
					const after = budgetNow();
					fitted = await fitProduct(
						product.mode,
						turn.user,
						product.mask,
						retryMessageBudget(fitted.prompt.tokenCount, before.ratio, after.ratio, after.messages),
					);
					if (!fitted.overflow && refused(sentTokens())) {
						modelRejections++;
						reject(sentTokens());
					}
				}
				// The product's background sample of the model's count, ready for the next request.
				if (options.calibrate !== false && shouldSample(callIndex)) {
					calibration = observeSample(calibration, sentTokens(), modelCount(sentTokens()), 0);
				}
			}

			// Verbatim horizon: newest rounds shown verbatim, counted back from the newest.
			let horizon = 0;
			while (horizon < allIds.length && fitted.verbatimIds.has(allIds[allIds.length - 1 - horizon])) horizon++;
			masking.recordRequest(allIds, fitted.verbatimRounds);
			continuity.recordRequest(compactionsThisRequest > 0, fitted.prompt.messages, fitted.verbatimRounds);
			// Ceiling: the newest rounds that would fit next to the same fixed part (instructions, users, summary).
			const fixed = fitted.prompt.tokenCount - fitted.verbatimRounds.reduce((s, r) => s + roundTokens(r), 0);
			let limit = 0;
			let used = fixed;
			while (limit < allRounds.length && used + roundTokens(allRounds[allRounds.length - 1 - limit]) <= budgetNow().messages) {
				used += roundTokens(allRounds[allRounds.length - 1 - limit]);
				limit++;
			}
			// Prefix reuse at message level: tokens of the leading messages identical to the previous prompt's.
			const keys = fitted.prompt.messages.map(messageKey);
			let reuse: number | undefined;
			if (previousKeys) {
				let same = 0;
				let sameTokens = 0;
				while (same < keys.length && same < previousKeys.length && keys[same] === previousKeys[same]) {
					sameTokens += mt.countMessageTokens(fitted.prompt.messages[same]);
					same++;
				}
				reuse = fitted.prompt.tokenCount ? sameTokens / fitted.prompt.tokenCount : 0;
			}
			previousKeys = keys;

			const tokenizedNow = tok.stats().tokenizedTokens;
			const tokenized = tokenizedNow - lastTokenized;
			const compactionTokenized = tokenizedInCompaction - lastCompactionTokenized;
			lastTokenized = tokenizedNow;
			lastCompactionTokenized = tokenizedInCompaction;
			// A summary written for this request is new prompt content too.
			if (productSettings(strategy)) {
				const now = summaryBlocks(conversation);
				for (const b of now) if (!shownBlockTexts.has(b.text)) pendingNew += 3 + mt.countTokens(summaryMessageText(b.text, b.condensed));
				shownBlockTexts = new Set(now.map(b => b.text));
			} else if (compactionsThisRequest > 0 && fitted.summaryText !== undefined) pendingNew += 3 + mt.countTokens(summaryMessageText(fitted.summaryText));
			const newTokens = requestIndex === 0 ? fitted.prompt.tokenCount : pendingNew;
			records.push({
				index: requestIndex,
				promptTokens: fitted.prompt.tokenCount,
				overflow: fitted.overflow,
				compactions: compactionsThisRequest,
				summarizations: summarizationsThisRequest,
				verbatimRounds: horizon,
				limitRounds: limit,
				prefixReuse: reuse,
				tokenized,
				tokenizedOutsideCompaction: tokenized - compactionTokenized,
				newTokens,
			});
			requestIndex++;
			pendingNew = 0;

			// The model's reply: the recorded round joins the request in progress.
			conversation = { turns: conversation.turns, activeRounds: [...conversation.activeRounds, round] };
			allIds.push(round.id);
			allRounds.push(round);
			if (allIds.length <= HEAD_ROUNDS) headIds.add(round.id);
			pendingNew += roundTokens(round);
			continuity.addRound(round);
			if (productSettings(strategy)) {
				for (const call of round.toolCalls) {
					if (noteToolCall(fit, call.name, call.arguments, call.result)) loopBreaks++;
				}
			}
		}
		// The request ends: its rounds become a past turn (keeping any summaries and elisions on them).
		conversation = {
			turns: [
				...conversation.turns,
				{
					user: turn.user,
					rounds: conversation.activeRounds,
					...(turn.maxToolCallsExceeded ? { maxToolCallsExceeded: true } : {}),
					...(turn.cancelled ? { cancelled: true } : {}),
				},
			],
			activeRounds: [],
		};
	}

	const afterCompaction = records.filter(r => r.compactions > 0).map(r => r.verbatimRounds);
	const sent = records.filter(r => !r.overflow);
	const totalTokenized = records.reduce((s, r) => s + r.tokenized, 0);
	const totalOutside = records.reduce((s, r) => s + r.tokenizedOutsideCompaction, 0);
	const totalNew = records.reduce((s, r) => s + r.newTokens, 0);
	const fills = records.map(r => r.promptTokens / window);
	const reuses = records.flatMap(r => (r.prefixReuse === undefined ? [] : [r.prefixReuse]));
	const metrics: ReplayMetrics = {
		session: session.name,
		window,
		strategy,
		requests: records.length,
		summarizations,
		summarizerInputTokens,
		mainInputTokens: sent.reduce((s, r) => s + r.promptTokens, 0),
		overflows: records.length - sent.length,
		verbatimHorizonRounds: round3(mean(records.map(r => r.verbatimRounds))),
		verbatimAfterSummaryRounds: afterCompaction.length ? round3(mean(afterCompaction)) : null,
		verbatimLimitRounds: round3(mean(records.map(r => r.limitRounds))),
		fillRatioMean: round3(mean(fills)),
		fillRatioMin: round3(fills.length ? Math.min(...fills) : 0),
		prefixReuse: round3(mean(reuses)),
		renderMsP50: round3(percentile(renderMs, 50)),
		renderMsP95: round3(percentile(renderMs, 95)),
		planMsP50: planMs.length ? round3(percentile(planMs, 50)) : null,
		tokenizedPerNewToken: round3(totalNew ? totalTokenized / totalNew : 0),
		compactions: records.reduce((s, r) => s + r.compactions, 0),
		compactedRequests: afterCompaction.length,
		elidedToolResults,
		summarizerCalls,
		tokenizedPerNewTokenOutsideCompaction: round3(totalNew ? totalOutside / totalNew : 0),
		tokenizedShareInPlanner: round3(totalTokenized ? tokenizedInPlanner / totalTokenized : 0),
		messageBudget: budget.messages,
		toolTokens: budget.toolTokens,
		loopBreaks,
		droppedRounds,
		modelTokenRatio: modelRatio ?? null,
		calibratedRatio: round3(calibrationRatio(calibration)),
		modelRejections,
		recoveries,
		summarizerRejections,
		condensePasses,
		summaryTooLarge,
		truncationsAfterFailedSummary,
		truncations,
		...masking.metrics(),
		...continuity.metrics(),
		...blocks.metrics(),
		halfContextSplit: productSettings(strategy)?.mode === 'half-context' ? (options.halfContextSplit ?? 'tokens') : null,
		splitMovedSummarizations,
		multiTurnSummarizations,
		keptTokensMean: keptTokens.length ? Math.round(mean(keptTokens)) : null,
	};
	if (process.env.LONGHAUL_BENCH_DEBUG) for (const p of blocks.problems) process.stderr.write(`block order: ${p}\n`);
	return { metrics, perRequest: records };
}

type LayoutItem = { kind: 'user'; entry: PromptEntry } | { kind: 'round'; flat: ReturnType<typeof flattenRounds>[number] };

/** Every round in order, with each past turn's user message (and the request slot) ahead of its rounds. */
function flattenRoundsWithUsers(conversation: Conversation): LayoutItem[] {
	const flat = flattenRounds(conversation);
	const items: LayoutItem[] = [];
	let i = 0;
	conversation.turns.forEach((turn, turnIndex) => {
		items.push({ kind: 'user', entry: { kind: 'user', turnIndex, text: turn.user } });
		for (let r = 0; r < turn.rounds.length; r++) items.push({ kind: 'round', flat: flat[i++] });
	});
	items.push({ kind: 'user', entry: { kind: 'request' } });
	for (let r = 0; r < conversation.activeRounds.length; r++) items.push({ kind: 'round', flat: flat[i++] });
	return items;
}

/** One fit event in a few words, for LONGHAUL_BENCH_DEBUG traces. */
function describeEvent(event: FitEvent): string {
	switch (event.kind) {
		case 'summarized':
			return `summarized(${event.source}, ${event.prepared.plan.summarizeRoundIds.length} rounds, kept ${event.prepared.plan.stats.tokens?.kept ?? '?'} tokens)`;
		case 'loop-breaker':
			return `loop-breaker(${event.scope}: ${event.why})`;
		case 'elided':
		case 'cut-newest':
			return `${event.kind}(${event.calls} calls, need ${event.neededTokens})`;
		case 'dropped':
			return `dropped(${event.plan.summarizeRoundIds.length} rounds, need ${event.neededTokens})`;
		default:
			return event.kind;
	}
}
