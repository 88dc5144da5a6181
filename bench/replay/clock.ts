// The replay's virtual clock: how long the user would wait and how long the session would take,
// with models and tools as fast as the field figures say (shared/notes/latency.md). Deterministic:
// the same replay gives the same times. Every agent round costs one model call (its prompt in, the
// recorded response and tool-call text out) plus a fixed time per tool call (the corpus records no
// durations); every summarizer or condense call costs the same formula with its own input and output.
import { callDurationMs, FAST_RATES, FIELD_RATES, SLOW_RATES, type LatencyRates } from '../../src/common/background/latency';
import type { Round } from '../../src/common/conversation/conversation';
import type { TextTokenizer } from '../../src/common/tokens/tokenizer';

export const CLOCKS = ['field', 'fast', 'slow', 'test', 'none'] as const;
export type ClockName = (typeof CLOCKS)[number];

export interface ClockProfile {
	readonly rates: LatencyRates;
	/** Each tool call's own run time. */
	readonly toolMs: number;
}

/**
 * field: a hosted frontier model (1 s to the first token, 60 output tokens/s) and 2 s per tool call,
 * which puts one agent step at 6–12 s (field: 4–26 s) and a 16k compaction near 30 s (field: 20–60 s).
 * fast and slow: the ends of the field ranges. test: the real-host test model's TEST_LATENCY
 * (test/fixtures/scripted-model/src/realisticProfile.ts), with instant tools.
 */
export const CLOCK_PROFILES: Record<Exclude<ClockName, 'none'>, ClockProfile> = {
	field: { rates: FIELD_RATES, toolMs: 2000 },
	fast: { rates: FAST_RATES, toolMs: 800 },
	slow: { rates: SLOW_RATES, toolMs: 5000 },
	test: { rates: { firstTokenMs: 300, msPerInputToken: 0.015, msPerOutputToken: 1.2 }, toolMs: 0 },
};

export class VirtualClock {
	/** Ms since the session started. */
	now = 0;
	constructor(readonly profile: ClockProfile) {}

	/** A model call's duration (summarizer, condense or agent). */
	callMs(inputTokens: number, outputTokens: number): number {
		return callDurationMs(this.profile.rates, inputTokens, outputTokens);
	}

	/** One agent round: the model writes the recorded response and calls, then the tools run. */
	roundMs(promptTokens: number, round: Round, tokenizer: TextTokenizer): number {
		let output = tokenizer.countTokens(round.response);
		for (const call of round.toolCalls) output += tokenizer.countTokens(call.name) + tokenizer.countTokens(call.arguments);
		return this.callMs(promptTokens, output) + round.toolCalls.length * this.profile.toolMs;
	}

	advance(ms: number): void {
		this.now += Math.max(0, ms);
	}
}
