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

/** Each new sample moves the learned scale (in log space) at most this share of the way. */
const LEARN_SHARE = 0.5;
/**
 * One sample counts as at most 50× faster or 20× slower than the field rates: a timer glitch or a
 * stall of minutes is not the model's speed.
 */
const SAMPLE_RANGE = [0.02, 20] as const;

/**
 * What Longhaul learned of one model's speed: a scale on the field rates, from the durations of
 * the summaries it made (a model twice as slow as the field figures learns 2). Plain data.
 */
export interface LearnedSpeed {
	readonly scale: number;
	readonly samples: number;
}

export const UNLEARNED_SPEED: LearnedSpeed = { scale: 1, samples: 0 };

/**
 * One observed duration of `calls` calls with `inputTokens` in and `outputTokens` out in all. Every
 * call counts, however short (a fast model summarizes in 50 ms; docs/decisions.md decision 7), but
 * its weight is the share of its field-rate duration that is per-token work rather than the calls'
 * first-token overhead: a call of a few tokens says little about the rate, whatever the model's
 * speed. The scale moves in log space (a ratio: one stall of 10× must not outweigh ten calls at 1×),
 * from the field default (1) as much as the first sample's weight, then by half of that for later ones.
 */
export function observeCall(speed: LearnedSpeed, inputTokens: number, outputTokens: number, durationMs: number, calls = 1): LearnedSpeed {
	const overhead = Math.max(1, calls) * FIELD_RATES.firstTokenMs;
	const predicted = callDurationMs(FIELD_RATES, inputTokens, outputTokens) - FIELD_RATES.firstTokenMs + overhead;
	if (!(durationMs > 0) || !Number.isFinite(durationMs) || !(predicted > 0)) return speed;
	const weight = (predicted - overhead) / predicted;
	const sample = Math.log(Math.min(SAMPLE_RANGE[1], Math.max(SAMPLE_RANGE[0], durationMs / predicted)));
	const share = speed.samples === 0 ? weight : weight * LEARN_SHARE;
	const learned = Math.log(speed.scale);
	return { scale: Math.exp(learned + (sample - learned) * share), samples: speed.samples + 1 };
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
	return observeCall(speed, input, output, durationMs, calls.length);
}
