// Failures of a model provider that are neither "prompt too long" (promptTooLong.ts) nor a plain
// crash, read from whatever shape reached us: a vscode.LanguageModelError with its `code`, an error
// whose `name` the provider set (GitHub Copilot's wrapper names quota and rate-limit errors
// `ChatQuotaExceeded` and `ChatRateLimited`), or only the provider's words. A rate limit passes:
// the caller waits and tries again (backoff.ts). The others do not pass by waiting a few seconds,
// so the request ends with a clear message and the conversation is kept; they are never a summary
// that failed on its own merits, so they never lead to truncation.

export type ProviderFailureKind = 'rate-limited' | 'quota' | 'blocked' | 'no-permission' | 'not-found';

export interface ProviderFailure {
	readonly kind: ProviderFailureKind;
	/** How long the provider asked to wait, when it said. */
	readonly retryAfterMs?: number;
	/** The provider's own words, shortened, for the message and the log. */
	readonly text: string;
}

interface ErrorFields {
	readonly names: string[];
	readonly texts: string[];
	retryAfterMs?: number;
}

const NAMED: readonly { kind: ProviderFailureKind; names: readonly string[] }[] = [
	{ kind: 'no-permission', names: ['nopermissions', 'nopermission', 'permissiondenied'] },
	{ kind: 'not-found', names: ['notfound', 'modelnotfound'] },
	{ kind: 'quota', names: ['chatquotaexceeded', 'quotaexceeded', 'insufficientquota', 'insufficient_quota'] },
	{ kind: 'blocked', names: ['blocked'] },
	{ kind: 'rate-limited', names: ['chatratelimited', 'ratelimited', 'rate_limited', 'ratelimiterror', 'too_many_requests'] },
];

/** Provider words, checked in this order (a "blocked for too many requests" is blocked, not a rate limit). */
const WORDED: readonly { kind: ProviderFailureKind; pattern: RegExp }[] = [
	{ kind: 'quota', pattern: /\bquota\b|premium requests? (?:allowance|limit)|monthly (?:chat|premium)[\w ]* limit/i },
	{ kind: 'blocked', pattern: /temporarily blocked|has been blocked/i },
	{ kind: 'rate-limited', pattern: /rate[- ]?limit|too many requests|\b429\b/i },
];

const UNITS: Readonly<Record<string, number>> = {
	ms: 1,
	millisecond: 1,
	milliseconds: 1,
	s: 1000,
	sec: 1000,
	secs: 1000,
	second: 1000,
	seconds: 1000,
	m: 60_000,
	min: 60_000,
	mins: 60_000,
	minute: 60_000,
	minutes: 60_000,
};

/** "retry after 20 seconds", "wait 34 seconds", "try again in 2 minutes", "Retry-After: 5". */
export function retryAfterFromText(text: string): number | undefined {
	const worded = /(?:retry|try again|wait)\D{0,24}?(\d+(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m)\b/i.exec(text);
	if (worded) return Math.round(Number(worded[1]) * UNITS[worded[2].toLowerCase()]);
	const header = /retry-after:?\s*(\d+(?:\.\d+)?)\b/i.exec(text);
	return header ? Math.round(Number(header[1]) * 1000) : undefined;
}

function collect(error: unknown, into: ErrorFields, depth = 0): void {
	if (error === undefined || error === null || depth > 3) return;
	if (typeof error === 'string') {
		into.texts.push(error);
		return;
	}
	if (typeof error !== 'object') return;
	const e = error as { name?: unknown; code?: unknown; message?: unknown; status?: unknown; retryAfter?: unknown; cause?: unknown };
	for (const value of [e.code, e.name]) {
		if (typeof value === 'string' && value) into.names.push(value.toLowerCase());
	}
	if (typeof e.message === 'string' && e.message) into.texts.push(e.message);
	if (e.status === 429) into.names.push('ratelimited');
	// A `retryAfter` field in seconds, as some HTTP clients attach it.
	if (typeof e.retryAfter === 'number' && Number.isFinite(e.retryAfter) && e.retryAfter >= 0) into.retryAfterMs ??= e.retryAfter * 1000;
	collect(e.cause, into, depth + 1);
}

/** The failure `error` stands for, or undefined when it is none of these (a crash, or a prompt too long). */
export function classifyProviderFailure(error: unknown): ProviderFailure | undefined {
	const fields: ErrorFields = { names: [], texts: [] };
	collect(error, fields);
	const text = fields.texts.join('\n');
	const short = text.length > 300 ? `${text.slice(0, 300)}…` : text;
	const kind = NAMED.find(n => n.names.some(name => fields.names.includes(name)))?.kind ?? WORDED.find(w => w.pattern.test(text))?.kind;
	if (!kind) return undefined;
	const retryAfterMs = fields.retryAfterMs ?? retryAfterFromText(text);
	return { kind, text: short, ...(kind === 'rate-limited' && retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/** What the user reads when a failure ends the request. The conversation is always kept. */
export function failureMessage(failure: ProviderFailure, waited?: { readonly tries: number; readonly ms: number }): string {
	const words = failure.text ? ` ("${failure.text.replace(/\s+/g, ' ').trim()}")` : '';
	const kept = 'Nothing was lost: the conversation so far is kept';
	switch (failure.kind) {
		case 'rate-limited':
			return `The model is still rate-limited after ${waited?.tries ?? 0} tr${waited?.tries === 1 ? 'y' : 'ies'} over ${Math.round((waited?.ms ?? 0) / 1000)} s${words}. ${kept}; send your message again in a little while.`;
		case 'quota':
			return `The model's quota is used up${words}. ${kept}; pick another model in the model picker, or continue once the quota is renewed.`;
		case 'blocked':
			return `The model provider has blocked requests from this extension for now${words}. ${kept}; try again later, or pick another model.`;
		case 'no-permission':
			return `Longhaul may not use this model${words}. ${kept}; allow Longhaul to use it when VS Code asks (or in the language model access settings), or pick another model.`;
		case 'not-found':
			return `The selected model is no longer available${words}. ${kept}; pick another model in the model picker and send your message again.`;
	}
}
