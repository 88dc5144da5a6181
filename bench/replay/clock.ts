// The replay's virtual clock: how long the user would wait and how long the session would take,
// with models and tools as the field figures say (shared/notes/latency.md). Its rates are its own,
// written here from those figures: nothing is shared with the product's forecast
// (src/common/background/latency.ts), which has to learn the clock from the durations it observes.
// Every agent round costs one model call (its prompt in, the recorded response and tool-call text
// out) plus a time per tool call (the corpus records no durations); every summarizer call costs the
// same formula with its own input and its output, the `<analysis>` the summarizer prompt asks for
// included (analysisTokens, charged at the output rate). On top, seeded noise: each call's time is
// multiplied by a log-normal factor, a share of calls stalls for a heavy-tailed while (a Pareto
// draw, up to minutes: the field reports compactions of 3–7 min), and, as a fault kind of its own,
// a share of calls meets a rate limit and pauses before it is served (`--rate-limits P`).
// Deterministic: the same replay draws the same noise (a hash of the session's name and the
// call's index).
import type { Round } from '../../src/common/conversation/conversation';
import type { TextTokenizer } from '../../src/common/tokens/tokenizer';

export const CLOCKS = ['field', 'fast', 'slow', 'test', 'none'] as const;
export type ClockName = (typeof CLOCKS)[number];

export interface ClockProfile {
	/** Time to the first token, prefill per input token, generation per output token (ms). */
	readonly firstTokenMs: number;
	readonly msPerInputToken: number;
	readonly msPerOutputToken: number;
	/** Each tool call's own run time. */
	readonly toolMs: number;
	/** σ of the log-normal factor on each call (0: none). */
	readonly sigma: number;
	/** Share of calls that stall, and the stall's Pareto scale (ms), shape and cap. */
	readonly stallShare: number;
	readonly stallScaleMs: number;
	readonly stallShape: number;
	readonly stallMaxMs: number;
	/** Tokens of `<analysis>` a summarizer call writes before its summary (mean; drawn ±50 %). */
	readonly analysisTokens: number;
}

const QUIET = { sigma: 0, stallShare: 0, stallScaleMs: 0, stallShape: 1, stallMaxMs: 0 };
const NOISY = { sigma: 0.35, stallShare: 0.03, stallScaleMs: 15_000, stallShape: 1.5, stallMaxMs: 300_000 };

/**
 * field: a hosted frontier model as the notes give it (Claude Sonnet 4.5's median: 1.8 s to the first
 * token, 63 output tokens/s; cold prefill about 0.1 s per 1k tokens) and 2 s per tool call: one
 * agent step of 6–12 s (field: 4–26 s), a 16k compaction of 30–60 s with its analysis (field:
 * 20–60 s, reports of minutes). fast and slow: the ends of the field ranges (GPT-4.1's 0.5 s and
 * 150 tokens/s; a local model's 2.5 s, 2.5k tokens/s of prefill, 30 tokens/s). test: the real-host
 * test model's TEST_LATENCY (test/fixtures/scripted-model/src/realisticProfile.ts), instant tools,
 * no noise and no analysis.
 */
export const CLOCK_PROFILES: Record<Exclude<ClockName, 'none'>, ClockProfile> = {
	field: { firstTokenMs: 1800, msPerInputToken: 0.1, msPerOutputToken: 1000 / 63, toolMs: 2000, ...NOISY, analysisTokens: 800 },
	fast: { firstTokenMs: 500, msPerInputToken: 0.05, msPerOutputToken: 1000 / 150, toolMs: 800, ...NOISY, analysisTokens: 800 },
	slow: { firstTokenMs: 2500, msPerInputToken: 0.4, msPerOutputToken: 1000 / 30, toolMs: 5000, ...NOISY, analysisTokens: 800 },
	test: { firstTokenMs: 300, msPerInputToken: 0.015, msPerOutputToken: 1.2, toolMs: 0, ...QUIET, analysisTokens: 0 },
};

/** A rate limit's pause before the call is served (the Retry-After providers send: 20–60 s). */
export const RATE_LIMIT_PAUSE_MS = [20_000, 60_000] as const;

/** FNV-1a of the text, as a number in [0, 1). */
function unit(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	// One more mixing round so neighbouring indices spread.
	h ^= h >>> 16;
	h = Math.imul(h, 0x85ebca6b);
	h ^= h >>> 13;
	return (h >>> 0) / 0x1_0000_0000;
}

export interface ClockSettings {
	/** Seed of the noise (the session's name). */
	readonly seed: string;
	/** Share of calls (0–1) that meet a rate limit. */
	readonly rateLimits: number;
}

export class VirtualClock {
	/** Ms since the session started. */
	now = 0;
	/** Calls drawn so far (the noise's index), rate-limit pauses met, and their time. */
	private draws = 0;
	rateLimitPauses = 0;
	rateLimitMs = 0;
	/** Provider time of the agent's own calls and of summaries the user waited for: [start, end) in ms, in order. */
	readonly busy: [number, number][] = [];
	/** Rate-limit pauses those calls met, [start, end) in ms, in order (on a cloud provider they hold background calls too). */
	readonly ratePauses: [number, number][] = [];
	/** The user's waits for the provider's one slot (single-slot: behind a started background request), ms. */
	readonly slotWaits: number[] = [];
	/** The provider's admission of a call the session waits for (providerQueue.ts, single-slot): when it may start. */
	gate?: (at: number) => number;
	/** Noise draws by stream (a background job draws from its own, so its calls' noise does not depend on when they are computed). */
	private streamDraws = new Map<string, number>();
	/** The rate-limit pause of the last call drawn, ms. */
	private lastPauseMs = 0;
	constructor(
		readonly profile: ClockProfile,
		readonly settings: ClockSettings = { seed: '', rateLimits: 0 },
	) {}

	private drawKey = '';

	private draw(what: string): number {
		return unit(`${this.settings.seed}\u0000${this.drawKey}\u0000${what}`);
	}

	/** The next draw's key: the session's own sequence, or `stream`'s (a background job's). */
	private nextDraw(stream: string | undefined): void {
		if (stream === undefined) {
			this.draws++;
			this.drawKey = String(this.draws);
			return;
		}
		const n = (this.streamDraws.get(stream) ?? 0) + 1;
		this.streamDraws.set(stream, n);
		this.drawKey = `${stream}\u0000${n}`;
	}

	/** A model call's duration (summarizer, condense or agent), noise and any rate-limit pause included; `stream`: a background job's own draws. */
	callMs(inputTokens: number, outputTokens: number, stream?: string): number {
		const p = this.profile;
		this.nextDraw(stream);
		this.lastPauseMs = 0;
		const base = p.firstTokenMs + Math.max(0, inputTokens) * p.msPerInputToken + Math.max(0, outputTokens) * p.msPerOutputToken;
		// Box–Muller from two draws: a standard normal.
		const z = Math.sqrt(-2 * Math.log(1 - this.draw('u1'))) * Math.cos(2 * Math.PI * this.draw('u2'));
		let ms = base * Math.exp(p.sigma * z - (p.sigma * p.sigma) / 2);
		if (this.draw('stall') < p.stallShare) ms += Math.min(p.stallMaxMs, p.stallScaleMs / Math.pow(1 - this.draw('stall-size'), 1 / p.stallShape));
		if (this.draw('rate') < this.settings.rateLimits) {
			const [low, high] = RATE_LIMIT_PAUSE_MS;
			const pause = low + (high - low) * this.draw('rate-size');
			this.rateLimitPauses++;
			this.rateLimitMs += pause;
			this.lastPauseMs = pause;
			ms += pause;
		}
		return ms;
	}

	/** Tokens of the analysis one summarizer call writes (profile mean, ±50 %). */
	analysisTokens(stream?: string): number {
		// The key of the stream's last call (the session's draws: as before streams existed).
		this.drawKey = stream === undefined ? String(this.draws) : `${stream}\u0000${this.streamDraws.get(stream) ?? 0}`;
		return Math.round(this.profile.analysisTokens * (0.5 + this.draw('analysis')));
	}

	/** One agent round: the model writes the recorded response and calls (the provider is busy), then the tools run. */
	agentRound(promptTokens: number, round: Round, tokenizer: TextTokenizer): void {
		let output = tokenizer.countTokens(round.response);
		for (const call of round.toolCalls) output += tokenizer.countTokens(call.name) + tokenizer.countTokens(call.arguments);
		const ms = this.callMs(promptTokens, output);
		this.busyFor(ms, this.lastPauseMs);
		this.advance(round.toolCalls.length * this.profile.toolMs);
	}

	/**
	 * The provider serves a call the session waits for (the agent's, or a summary at an overflow):
	 * on a single-slot provider it first waits for the slot; then busy, and the clock moves on.
	 * `pauseMs`: the rate-limit pause at the call's start.
	 */
	busyFor(ms: number, pauseMs = 0): void {
		if (ms <= 0) return;
		if (this.gate) {
			const start = this.gate(this.now);
			if (start > this.now) {
				this.slotWaits.push(start - this.now);
				this.advance(start - this.now);
			}
		}
		if (pauseMs > 0) this.ratePauses.push([this.now, this.now + pauseMs]);
		this.busy.push([this.now, this.now + ms]);
		this.advance(ms);
		this.onBusyEnd?.(this.now);
	}

	/** Told the end of each call busyFor served (the single-slot provider's slot is taken until then). */
	onBusyEnd?: (end: number) => void;

	advance(ms: number): void {
		this.now += Math.max(0, ms);
	}
}
