// How much more (or less) a model's own tokenizer counts than Longhaul's local o200k_base count,
// per model, learned from two sources:
//  - samples: `model.countTokens` (the provider's tokenizer) on what was actually sent, compared
//    with the local count of the same messages;
//  - rejections: a provider's "prompt too long" error that says its count and its limit.
// The budget is computed on `maxInputTokens / ratio` local tokens (budget.ts), so a model that
// counts 20% more gets a prompt 20% smaller in local tokens. Plain data, persisted by the caller.

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

export interface Calibration {
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
		store[key] = {
			sampled: clamp(num(v.sampled, 1)),
			floor: clamp(num(v.floor, 1)),
			samples: Math.max(0, Math.floor(num(v.samples, 0))),
			rejections: Math.max(0, Math.floor(num(v.rejections, 0))),
			updatedAt: num(v.updatedAt, 0),
		};
	}
	return withBound(store);
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
