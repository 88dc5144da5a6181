// How much more (or less) a model's own tokenizer counts than Longhaul's local o200k_base count,
// per model, learned from two sources:
//  - samples: `model.countTokens` (the provider's tokenizer) on what was actually sent, compared
//    with the local count of the same messages;
//  - rejections: a provider's "prompt too long" error that says its count and its limit.
// The budget is computed on `maxInputTokens / ratio` local tokens (budget.ts), so a model that
// counts 20% more gets a prompt 20% smaller in local tokens. Plain data, persisted by the caller.
//
// A sample only compares what the provider really counts. Some providers' `countTokens(message)`
// leaves parts out (GitHub Copilot's counts text, images and tool calls, and gives a tool result 0):
// compared with the local count of the whole message, such a model looks cheaper than it is and
// nothing is learned. So the provider's message count is probed once (judgeMessageCounting), and
// the messages it does not count whole are counted as strings, which every provider counts.

/** Never count a model cheaper than the local tokenizer: the reserve already covers small differences. */
export const MIN_RATIO = 1;
/** A bound, so one odd count (or a provider whose counter is broken) cannot starve the prompt. */
export const MAX_RATIO = 2.5;
/** Samples of fewer local tokens are noise (a few framing tokens change their ratio a lot). */
export const MIN_SAMPLE_TOKENS = 400;
/** A lower sample moves the estimate this share of the way down; a higher one moves it all the way up at once. */
export const FALL_SHARE = 0.25;
/** Each sample lowers the floor a rejection set by this share of its distance to the sampled estimate. */
export const FLOOR_RELAX_SHARE = 0.02;
/** Without numbers in the error, the ratio grows by this factor. */
export const BLIND_TIGHTEN = 1.15;
/** Models remembered; the least recently updated are forgotten first. */
export const MAX_MODELS = 16;

/**
 * How a model's `countTokens(message)` treats a message: 'whole' counts everything; 'text-only'
 * leaves tool results out; 'none' does not count message text at all (only strings are usable).
 */
export type MessageCounting = 'whole' | 'text-only' | 'none';

/** What the last sample compared (shown by /context). */
export interface SampleRecord {
	readonly localTokens: number;
	readonly modelTokens: number;
	/** Messages compared, and how many of them as strings because the message count leaves parts out. */
	readonly messages: number;
	readonly asText: number;
	/** Items left out because the model counted (almost) nothing of them. */
	readonly uncounted: number;
	readonly toolDefinitions: boolean;
}

export interface Calibration {
	/** How the model's message count was found to work (judgeMessageCounting), once probed. */
	readonly counting?: MessageCounting;
	readonly lastSample?: SampleRecord;
	/** The estimate from countTokens samples (1 until the first sample). */
	readonly sampled: number;
	/** The lowest ratio the model's own rejections allow. */
	readonly floor: number;
	readonly samples: number;
	readonly rejections: number;
	/** Date.now() of the last change. */
	readonly updatedAt: number;
}

export const UNCALIBRATED: Calibration = { sampled: 1, floor: 1, samples: 0, rejections: 0, updatedAt: 0 };

const clamp = (x: number) => Math.min(MAX_RATIO, Math.max(MIN_RATIO, x));

/** The ratio the budget uses: model tokens per local token, within [MIN_RATIO, MAX_RATIO]. */
export function calibrationRatio(calibration: Calibration): number {
	return clamp(Math.max(calibration.sampled, calibration.floor));
}

/**
 * One comparison of the model's count with the local count of the same messages. Rises at once
 * (an underestimate is what makes a request bounce), falls slowly.
 */
export function observeSample(calibration: Calibration, localTokens: number, modelTokens: number, now: number): Calibration {
	if (!(localTokens >= MIN_SAMPLE_TOKENS) || !(modelTokens > 0) || !Number.isFinite(modelTokens)) return calibration;
	const sample = clamp(modelTokens / localTokens);
	const sampled = calibration.samples === 0 || sample >= calibration.sampled ? sample : calibration.sampled - (calibration.sampled - sample) * FALL_SHARE;
	const floor = calibration.floor > sampled ? calibration.floor - (calibration.floor - sampled) * FLOOR_RELAX_SHARE : calibration.floor;
	return { ...calibration, sampled, floor, samples: calibration.samples + 1, updatedAt: now };
}

/** A probe count below this share of the same text counted as a string means the part was left out. */
export const LEFT_OUT_SHARE = 0.5;
/** Probe texts smaller than this (model count as a string) say nothing. */
export const MIN_PROBE_TOKENS = 20;

/**
 * The provider's message count, judged from one text counted three ways: as a string, as the text
 * of a user message, and as a tool result in a user message. Undefined when the string count is
 * too small to judge by.
 */
export function judgeMessageCounting(probe: {
	readonly string: number;
	readonly textMessage: number;
	readonly resultMessage: number;
}): MessageCounting | undefined {
	if (!(probe.string >= MIN_PROBE_TOKENS)) return undefined;
	if (!(probe.textMessage >= probe.string * LEFT_OUT_SHARE)) return 'none';
	if (!(probe.resultMessage >= probe.string * LEFT_OUT_SHARE)) return 'text-only';
	return 'whole';
}

/** Whether a message goes into a sample as a string rather than as a message. */
export function countAsText(counting: MessageCounting | undefined, hasToolResults: boolean): boolean {
	return counting === undefined || counting === 'none' || (counting === 'text-only' && hasToolResults);
}

/** Below this share of the local count, the model did not count the item (a part it leaves out): the item is not compared. */
export const UNCOUNTED_SHARE = 0.2;
/** Items smaller than this are compared whatever the model says (framing alone can be most of them). */
export const MIN_JUDGED_TOKENS = 50;

export function isUncounted(localTokens: number, modelTokens: number): boolean {
	return localTokens >= MIN_JUDGED_TOKENS && !(modelTokens >= localTokens * UNCOUNTED_SHARE);
}

/** The calibration with the probe's finding and the last sample recorded. */
export function withSampleRecord(calibration: Calibration, counting: MessageCounting | undefined, record: SampleRecord): Calibration {
	return { ...calibration, ...(counting ? { counting } : {}), lastSample: record };
}

export interface Rejection {
	/** The provider's count of the rejected request, if it said. */
	readonly promptTokens?: number;
	/** The provider's limit, if it said. */
	readonly limit?: number;
}

/**
 * A request the provider rejected as too long. `localTokens` is the local count of everything that
 * was sent (messages and tool definitions), `window` the model's `maxInputTokens`. With numbers, the
 * new floor is the provider's count per local token, scaled by how much smaller its limit is than the
 * advertised window (some report a window larger than what they accept). Without, the ratio grows
 * by {@link BLIND_TIGHTEN}.
 */
export function observeRejection(calibration: Calibration, rejection: Rejection, localTokens: number, window: number, now: number): Calibration {
	const current = calibrationRatio(calibration);
	let floor: number;
	if (rejection.promptTokens && localTokens > 0) {
		const limitShrink = rejection.limit && window > 0 && rejection.limit < window ? window / rejection.limit : 1;
		// At least a little tighter than now: the request that bounced was sent at the current ratio.
		floor = Math.max((rejection.promptTokens / localTokens) * limitShrink, current * 1.02);
	} else if (rejection.limit && window > 0 && rejection.limit < window) {
		floor = Math.max(current * (window / rejection.limit), current * BLIND_TIGHTEN);
	} else {
		floor = current * BLIND_TIGHTEN;
	}
	return { ...calibration, floor: clamp(Math.max(calibration.floor, floor)), rejections: calibration.rejections + 1, updatedAt: now };
}

/** Calibrations of several models, keyed by {@link modelKey}. */
export type CalibrationStore = Readonly<Record<string, Calibration>>;

export function modelKey(model: { readonly vendor: string; readonly id: string }): string {
	return `${model.vendor}/${model.id}`;
}

/** A stored value read back, whatever it holds: bad entries are dropped, numbers put back in bounds. */
export function readCalibrationStore(raw: unknown): CalibrationStore {
	if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
	const store: Record<string, Calibration> = {};
	for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
		if (!value || typeof value !== 'object') continue;
		const v = value as Record<string, unknown>;
		const num = (x: unknown, fallback: number) => (typeof x === 'number' && Number.isFinite(x) ? x : fallback);
		const counting = v.counting === 'whole' || v.counting === 'text-only' || v.counting === 'none' ? v.counting : undefined;
		const lastSample = readSampleRecord(v.lastSample);
		store[key] = {
			...(counting ? { counting } : {}),
			...(lastSample ? { lastSample } : {}),
			sampled: clamp(num(v.sampled, 1)),
			floor: clamp(num(v.floor, 1)),
			samples: Math.max(0, Math.floor(num(v.samples, 0))),
			rejections: Math.max(0, Math.floor(num(v.rejections, 0))),
			updatedAt: num(v.updatedAt, 0),
		};
	}
	return withBound(store);
}

function readSampleRecord(raw: unknown): SampleRecord | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const r = raw as Record<string, unknown>;
	const count = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? Math.floor(x) : undefined);
	const fields = [r.localTokens, r.modelTokens, r.messages, r.asText, r.uncounted].map(count);
	if (fields.some(f => f === undefined)) return undefined;
	const [localTokens, modelTokens, messages, asText, uncounted] = fields as number[];
	return { localTokens, modelTokens, messages, asText, uncounted, toolDefinitions: r.toolDefinitions === true };
}

/** The store with `key` set, keeping the {@link MAX_MODELS} most recently updated models. */
export function storeCalibration(store: CalibrationStore, key: string, calibration: Calibration): CalibrationStore {
	return withBound({ ...store, [key]: calibration });
}

function withBound(store: Record<string, Calibration>): CalibrationStore {
	const entries = Object.entries(store);
	if (entries.length <= MAX_MODELS) return store;
	return Object.fromEntries(entries.sort((a, b) => b[1].updatedAt - a[1].updatedAt).slice(0, MAX_MODELS));
}

/** Model calls of one chat request at which the agent samples the model's count: the first, then every {@link SAMPLE_EVERY}th. */
export const SAMPLE_EVERY = 4;

export function shouldSample(modelCallIndex: number): boolean {
	return modelCallIndex % SAMPLE_EVERY === 0;
}
