// How long a model call takes: time to the first token, prefill per input token, and generation
// per output token. Used three ways: the benchmark's virtual clock (fixed profiles grounded in field
// figures), the scripted test model's delays, and the agent's estimate of how long a summary will
// take, learned per model from the summaries it has made (like the token ratio).

export interface LatencyRates {
	readonly firstTokenMs: number;
	readonly msPerInputToken: number;
	readonly msPerOutputToken: number;
}

/** The duration of one call with `inputTokens` in and `outputTokens` out. */
export function callDurationMs(rates: LatencyRates, inputTokens: number, outputTokens: number): number {
	return rates.firstTokenMs + Math.max(0, inputTokens) * rates.msPerInputToken + Math.max(0, outputTokens) * rates.msPerOutputToken;
}

/**
 * A hosted frontier model as users meet it (shared/notes/latency.md): about a second to the first
 * token, 0.1 s of prefill per 1k input tokens, 60 output tokens/s. A 1,500-token summary of a 16k
 * transcript takes about 28 s; an agent step of 200 output tokens at 16k about 6 s before its tool.
 */
export const FIELD_RATES: LatencyRates = { firstTokenMs: 1000, msPerInputToken: 0.1, msPerOutputToken: 1000 / 60 };

/** Samples of shorter calls say little about the rate (the first token dominates). */
const MIN_SAMPLE_MS = 500;
/** Each new sample moves the learned scale this share of the way. */
const LEARN_SHARE = 0.5;

/**
 * What Longhaul learned of one model's speed: a scale on the field rates, from the durations of
 * the summaries it made (a model twice as slow as the field figures learns 2). Plain data.
 */
export interface LearnedSpeed {
	readonly scale: number;
	readonly samples: number;
}

export const UNLEARNED_SPEED: LearnedSpeed = { scale: 1, samples: 0 };

/** One observed call: how long it took against what the field rates predict. */
export function observeCall(speed: LearnedSpeed, inputTokens: number, outputTokens: number, durationMs: number): LearnedSpeed {
	const predicted = callDurationMs(FIELD_RATES, inputTokens, outputTokens);
	if (!(durationMs >= MIN_SAMPLE_MS) || !(predicted > 0)) return speed;
	const sample = Math.min(20, Math.max(0.02, durationMs / predicted));
	const scale = speed.samples === 0 ? sample : speed.scale + (sample - speed.scale) * LEARN_SHARE;
	return { scale, samples: speed.samples + 1 };
}

/** The rates a learned speed stands for. */
export function learnedRates(speed: LearnedSpeed): LatencyRates {
	return {
		firstTokenMs: FIELD_RATES.firstTokenMs * speed.scale,
		msPerInputToken: FIELD_RATES.msPerInputToken * speed.scale,
		msPerOutputToken: FIELD_RATES.msPerOutputToken * speed.scale,
	};
}

/** One summary's calls, as the summarizer flow records them (summarizationFlow.ts attempts). */
export interface SummaryCall {
	readonly promptTokens?: number;
	readonly summaryTokens?: number;
}

/** Learns from a summary that took `durationMs` in all: its calls' input and output against the field rates. */
export function observeSummary(speed: LearnedSpeed, calls: readonly SummaryCall[], durationMs: number): LearnedSpeed {
	const input = calls.reduce((n, c) => n + (c.promptTokens ?? 0), 0);
	const output = calls.reduce((n, c) => n + (c.summaryTokens ?? 0), 0);
	// Each call has its own first token: fold the extra ones into the input the rate sees.
	const extraFirstTokens = Math.max(0, calls.length - 1) * (FIELD_RATES.firstTokenMs / FIELD_RATES.msPerInputToken);
	return observeCall(speed, input + extraFirstTokens, output, durationMs);
}
