// How long to wait before trying a rate-limited model request again: exponential (2 s, 4 s, 8 s,
// 16 s) with a little jitter, or what the provider asked for when it said, within bounds. The total
// is bounded so a request never hangs on a provider that keeps refusing: past the bound the request
// ends with a clear message (providerErrors.ts). Pure: the caller sleeps, cancellably.

export interface BackoffPolicy {
	readonly firstDelayMs: number;
	readonly factor: number;
	/** No single wait is longer; a provider asking for more is not waited for. */
	readonly maxDelayMs: number;
	/** No single wait is shorter, even when the provider asks for less. */
	readonly minDelayMs: number;
	readonly maxRetries: number;
	/** All waits of one call together. */
	readonly maxTotalMs: number;
	/** Share of a computed delay added or taken at random, so parallel callers do not retry in step. */
	readonly jitter: number;
}

export const RATE_LIMIT_BACKOFF: BackoffPolicy = {
	firstDelayMs: 2_000,
	factor: 2,
	maxDelayMs: 60_000,
	minDelayMs: 500,
	maxRetries: 4,
	maxTotalMs: 120_000,
	jitter: 0.2,
};

/**
 * The wait before retry number `retries + 1`, or undefined when the call should give up: the
 * retries are used up, the provider asks for longer than {@link BackoffPolicy.maxDelayMs}, or the
 * wait would take the total past {@link BackoffPolicy.maxTotalMs}. `random` is in [0, 1).
 */
export function nextBackoff(
	policy: BackoffPolicy,
	retries: number,
	waitedMs: number,
	retryAfterMs?: number,
	random: () => number = Math.random,
): number | undefined {
	if (retries >= policy.maxRetries) return undefined;
	let delay: number;
	if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
		if (retryAfterMs > policy.maxDelayMs) return undefined;
		delay = Math.max(policy.minDelayMs, retryAfterMs);
	} else {
		const base = Math.min(policy.maxDelayMs, policy.firstDelayMs * policy.factor ** retries);
		delay = Math.max(policy.minDelayMs, Math.round(base * (1 + policy.jitter * (2 * random() - 1))));
	}
	return waitedMs + delay > policy.maxTotalMs ? undefined : delay;
}

/** "4 s", "1 min 5 s": a wait as the progress line shows it. */
export function describeWait(ms: number): string {
	const seconds = Math.max(1, Math.round(ms / 1000));
	return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
}
