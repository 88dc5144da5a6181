// What the Node replay benchmark (bench/replay) predicts for a replay through the real participant.
//
// The benchmark renders the same prompts with the same planners and tokenizer, but it charges one
// `bash` tool definition and writes `bash` and `/testbed` into the instructions, while the real
// participant charges the definitions of every tool it offers and names them (and the real
// workspace folder) in the instructions. Both differences are constant per request, so the
// benchmark is run at the window whose message budget equals what the real prompt leaves for the
// same conversation: the real budget minus the extra instruction tokens. The stand-in summary
// follows the target the benchmark's summarizer prompt states for that budget, in the fixture as
// in the benchmark (ReplayOptions.summaryTarget), so both write the same summaries. The recording is fed to the benchmark as Longhaul stores it (calls on the replay
// tool, the closing rounds: replayScript.ts storedConversation).
import type { Conversation } from '../../src/common/conversation/conversation';
import { computeBudget, summaryBudget, toolResultBudget } from '../../src/common/tokens/budget';
import { TiktokenTokenizer } from '../../src/common/tokens/tokenizer';
import { agentInstructions } from '../../src/prompts/agentInstructions';
import { replaySession, type ReplayResult, type StrategyName } from '../../bench/replay/replay';
import { TOOL_NAMES, WORKSPACE } from '../../bench/replay/replayState';
import { benchToolTokens } from '../../bench/replay/session';
import type { ReplayBudgetInput } from '../fixtures/scripted-model/src/replayMode';
import { storedConversation, type ReplayScript } from '../fixtures/scripted-model/src/replayScript';

const tokenizer = new TiktokenTokenizer();

export interface BenchEquivalent {
	/** Tokens of the tool definitions the real participant sent. */
	readonly toolTokens: number;
	/** The real message budget (window - tool definitions - reserve). */
	readonly messages: number;
	/** Real instructions minus the benchmark's, in tokens. */
	readonly instructionsDelta: number;
	/** The benchmark window whose message budget is `messages - instructionsDelta`. */
	readonly benchWindow: number;
	readonly benchMessages: number;
	/** The benchmark's summary cap at `benchWindow` (summaryBudget; its prompt states summaryLength(cap).targetTokens). */
	readonly summaryTokens: number;
	/** Tool results longer than this are cut by the benchmark but not by the product, or the other way round. */
	readonly toolResultCaps: { readonly product: number; readonly bench: number };
}

export function benchEquivalent(seen: ReplayBudgetInput): BenchEquivalent {
	const toolTokens = seen.toolDefinitions ? tokenizer.countTokens(seen.toolDefinitions) : 0;
	const real = computeBudget(seen.window, toolTokens);
	const instructionsDelta =
		tokenizer.countTokens(seen.instructions) - tokenizer.countTokens(agentInstructions({ toolNames: TOOL_NAMES, workspace: WORKSPACE, hasDoneLedger: false }));
	const benchMessages = real.messages - instructionsDelta;
	// The message budget grows by 0 or 1 token per token of window, so some window hits it exactly.
	let benchWindow = Math.max(1, benchMessages);
	while (computeBudget(benchWindow, benchToolTokens(tokenizer)).messages < benchMessages) benchWindow++;
	const bench = computeBudget(benchWindow, benchToolTokens(tokenizer));
	if (bench.messages !== benchMessages) throw new Error(`no benchmark window leaves exactly ${benchMessages} message tokens`);
	return {
		toolTokens,
		messages: real.messages,
		instructionsDelta,
		benchWindow,
		benchMessages,
		summaryTokens: summaryBudget(bench),
		toolResultCaps: { product: toolResultBudget(real), bench: toolResultBudget(bench) },
	};
}

/** The benchmark's replay of the session as the participant lived it (user messages as they arrived). */
export async function predictReplay(
	script: ReplayScript,
	userTexts: readonly string[],
	seen: ReplayBudgetInput,
	strategy: StrategyName,
): Promise<{ equivalent: BenchEquivalent; result: ReplayResult }> {
	const equivalent = benchEquivalent(seen);
	const result = await replaySession({ name: script.name, conversation: livedConversation(script, userTexts) }, { window: equivalent.benchWindow, strategy });
	return { equivalent, result };
}

/** The recorded chat with the user messages as they arrived: what the Node replay plays. */
function livedConversation(script: ReplayScript, userTexts: readonly string[]): Conversation {
	const stored = storedConversation(script);
	return { turns: stored.turns.map((t, i) => ({ ...t, user: userTexts[i] ?? t.user })), activeRounds: [] };
}

/** Tool results the two caps would treat differently (cut by one, not by the other). */
export function resultsBetweenCaps(script: ReplayScript, caps: BenchEquivalent['toolResultCaps']): number {
	const low = Math.min(caps.product, caps.bench);
	const high = Math.max(caps.product, caps.bench);
	let n = 0;
	for (const turn of script.turns) {
		for (const round of turn.rounds) {
			for (const call of round.calls) {
				const tokens = tokenizer.countTokens(call.result);
				if (tokens > low && tokens <= high) n++;
			}
		}
	}
	return n;
}

/**
 * The Node replay's summarizations at windows around the equivalent one (`spread` tokens either
 * side, every `step`). The count is not smooth in the window: on the day-long chat of three corpus
 * sessions at 16k it moves between 13 and 18 within 30 tokens (12,800-12,830: 18 18 17 14 14 17 17
 * 17 13 13 13 14 …), because one round more or less kept verbatim moves every later split. The
 * equivalence itself is good to a few tokens only (the instructions the participant sends grow by a
 * few tokens with the workspace path and once recall is offered), so a single window's count is not
 * a prediction the participant can be held to; the range around it is. `predicted` is
 * predictReplay's answer at the equivalent window, which is not played again.
 */
export async function predictedRange(
	script: ReplayScript,
	userTexts: readonly string[],
	predicted: { readonly equivalent: BenchEquivalent; readonly result: ReplayResult },
	strategy: StrategyName,
	spread = 16,
	step = 4,
): Promise<{ min: number; max: number; byWindow: string }> {
	const { benchWindow } = predicted.equivalent;
	const conversation = livedConversation(script, userTexts);
	const counts: [number, number][] = [];
	for (let window = benchWindow - spread; window <= benchWindow + spread; window += step) {
		const result = window === benchWindow ? predicted.result : await replaySession({ name: script.name, conversation }, { window, strategy });
		counts.push([window, result.metrics.summarizations]);
	}
	const values = counts.map(([, n]) => n);
	return { min: Math.min(...values), max: Math.max(...values), byWindow: counts.map(([w, n]) => `${w}:${n}`).join(' ') };
}

/** The real count is within the range the Node replay gives around the equivalent window, or one beyond it (the drift of assertNearPrediction). */
export function assertWithinPredictedRange(real: number, range: { min: number; max: number; byWindow: string }, what: string): void {
	if (real < range.min - 1 || real > range.max + 1) {
		throw new Error(
			`${what}: the real participant made ${real}, the Node replay makes ${range.min}-${range.max} around the equivalent window (${range.byWindow})`,
		);
	}
}

/**
 * The real participant's count of summarizations against the Node replay's. They run the same
 * pipeline on the same recording at an equivalent budget, but not an identical one: the product
 * calibrates its budget against the model's own token count as the request goes (issue 13: the
 * scripted model's count is not Longhaul's to the token, and the learned ratio moves the budget by
 * a few hundred tokens), which the replay without --model-token-ratio does not, and the stand-in summary's
 * length is drawn from a hash of what it summarizes, so a compaction one round later changes
 * every summary after it. One summarization apart, or a tenth of them on long runs, is that drift;
 * more is a difference between the product and the benchmark.
 */
export function assertNearPrediction(real: number, predicted: number, what: string): void {
	const allowed = Math.max(1, Math.round(predicted * 0.1));
	if (Math.abs(real - predicted) > allowed) {
		throw new Error(`${what}: the real participant made ${real}, the Node replay predicts ${predicted} (at most ${allowed} apart)`);
	}
}
