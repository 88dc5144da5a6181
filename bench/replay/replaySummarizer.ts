// The summarizer in the replay: the product's Full → Simple flow with its condense passes
// (produceSummary) and its real prompts, rendered and counted as sent; only the model's reply is a
// stand-in (standInSummary.ts), which follows the length the prompt states. With a stand-in model
// that counts more tokens than we do, it refuses summarizer prompts over the window as well. Its
// reply is a whole model reply (analysis, then the summary in its tags), read by the product's
// summaryOfReply after the product's quiet retry; --summarizer-faults makes some of them fail
// (summarizerFaults.ts). Which stand-in writes the summary is the replay's `summaryInformation`:
// a share N of the facts (informationSummary.ts, the benchmark's default) or `copying`
// (standInSummary.ts, kept by name for comparison).
import { summarizerPromptBudget, summaryBudget } from '../../src/common/tokens/budget';
import { condensePasses, describeAttempts, produceSummary, type SummaryAttempt } from '../../src/common/summaries/summarizationFlow';
import type { SummarizerEntry } from '../../src/common/summaries/summarizerInput';
import { summaryLength } from '../../src/common/summaries/summaryLength';
import { isBudgetExceededError, renderCondenseBlockPrompt, renderCondensePrompt, renderSummarizerPrompt, type RenderedPrompt } from '../../src/prompts/render';
import { promptTooLongError } from './standInModel';
import { endingOf, nextFault, standInReply, type FaultCaller, type FaultHit } from './summarizerFaults';
import { sendWithQuietRetry } from '../../src/common/provider/quietRetry';
import { recognizePromptTooLong } from '../../src/common/tokens/promptTooLong';
import { summaryOfReply } from '../../src/prompts/extractSummary';
import { cutToLength, standInCondense, standInLength, standInSummary, statedTarget, summarySeed } from './standInSummary';
import { informationSummary } from './informationSummary';
import type { TextTokenizer } from '../../src/common/tokens/tokenizer';
import { budgetNow, learnRefusal, modelCount, promptText, refusedByModel, type ReplayState } from './replayState';

/** Where a background job's calls go: their durations (not the user's time) and the noise stream they draw from. */
export interface CallMeter {
	readonly calls: number[];
	readonly stream: string;
}

/** A call's time: the job's own with a meter, else the caller's (r.timing.callMs). */
function chargeCall(r: ReplayState, ms: number, meter: CallMeter | undefined): void {
	if (meter) meter.calls.push(ms);
	else r.timing.callMs += ms;
}

export interface ReplaySummary {
	readonly summary?: string;
	readonly attempts: readonly SummaryAttempt[];
}

/**
 * One block's summary (Full, then Simple), no summary when none could be made; counts what the
 * summarizer was sent and wrote, and adds its calls' time to `r.timing.callMs` (the caller decides
 * whose time it is: the user's wait, or a background job's).
 */
export async function summarizeInReplay(
	r: ReplayState,
	entries: SummarizerEntry[],
	previousSummary: string | undefined,
	caller: FaultCaller = 'foreground',
	meter?: CallMeter,
): Promise<ReplaySummary> {
	const { tok } = r;
	const current = budgetNow(r);
	const maxSummary = summaryBudget(current);
	const length = summaryLength(maxSummary);
	const asSent = (rendered: RenderedPrompt) => ({ prompt: rendered, tokenCount: rendered.tokenCount });
	const call: StandInCall = { r, entries, previousSummary, maxSummary, where: { mode: 'full' }, hits: [] };
	const result = await produceSummary<RenderedPrompt>(
		{
			render: async mode => {
				call.where = { mode };
				return asSent(
					await renderSummarizerPrompt({ mode, rounds: entries, previousSummary, length }, { tokenizer: tok, budget: summarizerPromptBudget(current) }),
				);
			},
			renderCondense: async summary => {
				call.where = { mode: call.where.mode, pass: 'condense' };
				return asSent(await renderCondensePrompt({ summary, length }, { tokenizer: tok, budget: summarizerPromptBudget(current) }));
			},
			send: async prompt => {
				const before = call.hits.length;
				// The product's quiet retry (callModelQuietly); the stand-in's refusals are final, as they would only repeat.
				const reply = await sendWithQuietRetry(
					() => standInSend(call, prompt),
					error => recognizePromptTooLong(error) !== undefined,
				);
				const thrown = call.hits.slice(before).find(h => h.kind === 'error');
				if (thrown) thrown.retried = true;
				return reply;
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
			r.counters.summarizerInputTokens += attempt.promptTokens;
			r.counters.summarizerOutputTokens += attempt.summaryTokens ?? 0;
			r.counters.summarizerCalls++;
			if (r.clock) {
				// The <analysis> the prompt asks for is written before the summary: output time, not summary.
				const analysis = r.clock.analysisTokens(meter?.stream);
				r.counters.analysisTokens += analysis;
				chargeCall(r, r.clock.callMs(attempt.promptTokens, (attempt.summaryTokens ?? 0) + analysis, meter?.stream), meter);
			}
		}
		if (attempt.outcome === 'summary-too-large') r.counters.summaryTooLarge++;
	}
	for (const hit of call.hits) {
		const ending = endingOf(hit, result, caller);
		r.faults.endings[ending]++;
		const attempt = result.attempts.find(a => a.mode === hit.mode && a.pass === hit.pass);
		if (attempt?.outcome === 'not-a-summary') r.faults.rejected[hit.kind]++;
		if (process.env.LONGHAUL_BENCH_DEBUG) {
			process.stderr.write(
				`fault ${hit.kind} at ${hit.mode}${hit.pass ? '/condense' : ''} (${caller}): ${ending} after ${describeAttempts(result.attempts)}\n`,
			);
		}
	}
	return result;
}

/** One summarizer call's stand-in: what it summarizes, the cap, where in the flow it is, and the faults it met. */
interface StandInCall {
	readonly r: ReplayState;
	readonly entries: SummarizerEntry[];
	readonly previousSummary: string | undefined;
	readonly maxSummary: number;
	where: { mode: 'full' | 'simple'; pass?: 'condense' };
	readonly hits: FaultHit[];
}

/** The stand-in model's answer to one summarizer or condense prompt, read by the product's summaryOfReply; a fault when one is drawn. */
async function standInSend(call: StandInCall, prompt: RenderedPrompt): Promise<ReturnType<typeof summaryOfReply>> {
	const { r, entries, previousSummary } = call;
	const { tok } = r;
	const text = promptText(prompt);
	const sent = { tokens: prompt.tokenCount, text };
	if (refusedByModel(r, sent)) {
		r.counters.summarizerRejections++;
		learnRefusal(r, sent);
		throw promptTooLongError(modelCount(r, sent), r.window);
	}
	const fault = nextFault(r.faults);
	if (fault) call.hits.push({ kind: fault, ...call.where, retried: false });
	const condense = /<summary-to-condense>\n([\s\S]*?)\n<\/summary-to-condense>/.exec(text)?.[1];
	const write = summaryWriter(r);
	const summary =
		condense !== undefined
			? standInCondense(condense, standInLength(statedTarget(text), condense), tok)
			: write(entries, previousSummary, standInLength(statedTarget(text), summarySeed(text)), tok);
	return summaryOfReply(standInReply(summary, fault, () => write(entries, previousSummary, 2 * call.maxSummary, tok), text));
}

type SummaryWriter = (entries: readonly SummarizerEntry[], previous: string | undefined, length: number, tokenizer: TextTokenizer) => string;

/** The replay's stand-in: the copying one, or the information-limited one at its share. */
function summaryWriter(r: ReplayState): SummaryWriter {
	const information = r.options.summaryInformation ?? 'copying';
	if (information === 'copying') return standInSummary;
	return (entries, previous, length, tokenizer) => informationSummary(entries, previous, length, information, tokenizer);
}

/** Condense passes of a summary made outside the pipeline (keep-head-tail's). */
export function countReferenceCondensePasses(r: ReplayState, result: ReplaySummary): void {
	r.counters.referenceCondensePasses += condensePasses(result.attempts);
}

/**
 * The stand-in's answer to a request to shorten an older block: like a model asked for N tokens
 * that writes a quarter more (the upper end of how far models miss a stated length), so the
 * product's deterministic cut always follows. The request is rendered and counted as sent.
 */
export async function condenseInReplay(r: ReplayState, block: string, target: number, meter?: CallMeter): Promise<string> {
	const rendered = await renderCondenseBlockPrompt({ block, targetTokens: target }, { tokenizer: r.tok, budget: Number.MAX_SAFE_INTEGER });
	const text = cutToLength(block, Math.round(target * 1.25), r.tok);
	const output = r.mt.countTokens(text);
	r.counters.summarizerInputTokens += rendered.tokenCount;
	r.counters.summarizerOutputTokens += output;
	r.counters.summarizerCalls++;
	if (r.clock) chargeCall(r, r.clock.callMs(rendered.tokenCount, output, meter?.stream), meter);
	return text;
}
