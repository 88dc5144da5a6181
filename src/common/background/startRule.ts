// When to start preparing the next summary in the background. Waiting for a fixed share of the
// window starts too late when summaries are slow and rounds are fast: the user then waits at the
// overflow for the rest of it. So the rule predicts two durations, how long until the window
// overflows (recent growth per round and recent round duration) and how long the summary will take
// (its input and expected output at this model's learned speed), and starts when the summary would
// otherwise finish late. The share of the window set by the user
// (longhaul.backgroundSummarizationThreshold) stays the latest point to start.

/** One prompt sent: its size and when (ms on the caller's clock). */
export interface PromptSample {
	readonly tokens: number;
	readonly atMs: number;
}

/** Rounds of history the growth and pace are averaged over. */
export const PACE_WINDOW = 6;
/** The summary should be ready with this share of its duration to spare (estimates are rough). */
export const SAFETY_FACTOR = 1.5;
/** Never earlier than this share of the message budget: a summary of a nearly empty window frees little. */
export const EARLIEST_SHARE = 0.4;
/**
 * Every summary is a model request the user pays for: one started early (by the forecast) must
 * replace at least this share of the message budget. Otherwise a fast agent with a slow summarizer
 * would chain a new summary of one or two rounds after every round.
 */
export const MIN_EARLY_SLICE_SHARE = 0.1;

export interface StartInput {
	/** The prompts of this request so far, oldest first, the one just fitted last. */
	readonly history: readonly PromptSample[];
	readonly messageBudget: number;
	/** longhaul.backgroundSummarizationThreshold as a share (0 turns background work off). */
	readonly latestShare: number;
	/** The summary's expected duration if started now (latency.ts). */
	readonly summaryMs: number;
}

export interface Forecast {
	/** Tokens the prompt grows per round, recently (0 when it does not grow). */
	readonly growthPerRound: number;
	/** Ms per round, recently. */
	readonly msPerRound: number;
	/** Rounds until the prompt no longer fits (Infinity when it does not grow). */
	readonly roundsLeft: number;
	readonly msLeft: number;
}

/** The recent pace of the request: growth and duration per round, and when the window will be full. */
export function forecastOverflow(history: readonly PromptSample[], messageBudget: number): Forecast | undefined {
	if (history.length < 2) return undefined;
	const recent = history.slice(-(PACE_WINDOW + 1));
	const first = recent[0];
	const last = recent[recent.length - 1];
	const rounds = recent.length - 1;
	// Growth only counts upward moves: a summary or masking in between makes the prompt smaller.
	let growth = 0;
	for (let i = 1; i < recent.length; i++) growth += Math.max(0, recent[i].tokens - recent[i - 1].tokens);
	const growthPerRound = growth / rounds;
	const msPerRound = Math.max(0, last.atMs - first.atMs) / rounds;
	const roundsLeft = growthPerRound > 0 ? Math.max(0, messageBudget - last.tokens) / growthPerRound : Infinity;
	return { growthPerRound, msPerRound, roundsLeft, msLeft: roundsLeft * msPerRound };
}

export type StartDecision = { readonly start: false } | { readonly start: true; readonly why: 'threshold' | 'forecast'; readonly forecast?: Forecast };

/** Start now? At the user's threshold at the latest; earlier when the forecast says the summary would be late. */
export function shouldStartBackground(input: StartInput): StartDecision {
	const { history, messageBudget, latestShare } = input;
	const now = history[history.length - 1];
	if (!(latestShare > 0) || !now) return { start: false };
	if (now.tokens >= latestShare * messageBudget) return { start: true, why: 'threshold' };
	if (now.tokens < EARLIEST_SHARE * messageBudget) return { start: false };
	const forecast = forecastOverflow(history, messageBudget);
	if (!forecast || !Number.isFinite(forecast.msLeft)) return { start: false };
	// One more round is sent before the next check; start if waiting for it would be too late.
	const late = input.summaryMs * SAFETY_FACTOR >= forecast.msLeft - forecast.msPerRound;
	return late ? { start: true, why: 'forecast', forecast } : { start: false };
}
