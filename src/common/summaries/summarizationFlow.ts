// The Full → Simple chain (docs/decisions.md decision 6), with every dependency injected so it is
// tested without a model. A summary that comes back longer than the cap gets one condense pass
// (the same model shortens that summary alone, a cheap request) before the next mode is tried.
// The caller falls back to deterministic truncation when this returns no summary; cancellation
// propagates as the caller's own error. A reply that is not a summary (summaryAcceptance.ts) is a
// failed attempt like an empty one: nothing is ever replaced by it.
import { notASummary, type SummaryReply } from './summaryAcceptance';

export type SummaryPromptMode = 'full' | 'simple';

export type AttemptOutcome =
	| 'ok'
	/** The summarizer prompt itself did not fit the model's window. */
	| 'prompt-too-large'
	/** The model call failed (network, quota, refused). */
	| 'model-error'
	| 'empty'
	/** The reply stopped before its summary was complete (no closing tag): its end, the newest work, is missing. */
	| 'cut-off'
	/** The reply is no summary: an echo of the prompt, or without tags too short for one (summaryAcceptance.ts). */
	| 'not-a-summary'
	/** The summary is larger than the summary budget. */
	| 'summary-too-large';

export interface SummaryAttempt {
	readonly mode: SummaryPromptMode;
	/** Set on a condense pass: the model was asked to shorten the too-long summary of the attempt before. */
	readonly pass?: 'condense';
	readonly outcome: AttemptOutcome;
	readonly detail?: string;
	readonly summaryTokens?: number;
	readonly promptTokens?: number;
}

export interface SummaryFlowDeps<P> {
	/** Renders the summarizer prompt; throws when it does not fit (see `isPromptTooLarge`). */
	render(mode: SummaryPromptMode): Promise<{ prompt: P; tokenCount: number }>;
	/**
	 * Renders the condense prompt for a summary that came back over the cap; throws like `render`.
	 * Without it, a summary over the cap is dropped and the next mode is tried.
	 */
	renderCondense?(summary: string): Promise<{ prompt: P; tokenCount: number }>;
	/** Sends a prompt to the model and returns its reply as summaryOfReply reads it. */
	send(prompt: P): Promise<SummaryReply>;
	countTokens(text: string): number;
	isPromptTooLarge(error: unknown): boolean;
	/**
	 * Errors that must stop everything, rethrown untouched: the user cancelled, or the provider
	 * refuses every request for now (quota, blocked), which no other prompt mode would change.
	 */
	isCancellation(error: unknown): boolean;
	/**
	 * True once the user has cancelled. Checked before each attempt and after each reply, because
	 * some providers end a cancelled stream quietly (an empty reply) instead of throwing.
	 */
	isCancelled(): boolean;
	/** The error to throw when {@link isCancelled} turns true. */
	cancellationError(): Error;
}

export interface SummaryFlowResult {
	readonly summary?: string;
	readonly mode?: SummaryPromptMode;
	/** The summary is the result of a condense pass. */
	readonly condensed?: boolean;
	readonly attempts: readonly SummaryAttempt[];
}

function describe(error: unknown): string {
	return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Condense passes among `attempts` (for logs, metadata and the benchmark). */
export function condensePasses(attempts: readonly SummaryAttempt[]): number {
	return attempts.filter(a => a.pass === 'condense').length;
}

/** One line per attempt, e.g. `full:summary-too-large, full/condense:ok`. */
export function describeAttempts(attempts: readonly SummaryAttempt[]): string {
	return attempts.map(a => `${a.mode}${a.pass ? `/${a.pass}` : ''}:${a.outcome}`).join(', ');
}

/**
 * The same for the chat, in words: `try 1: the summary came out too long; shortening it: written`.
 * Tries are numbered on their own; a condense pass belongs to the try before it.
 */
export function describeAttemptsForUser(attempts: readonly SummaryAttempt[]): string {
	let tries = 0;
	return attempts.map(a => `${a.pass ? 'shortening it' : `try ${++tries}`}: ${OUTCOME_WORDS[a.outcome]}`).join('; ');
}

/** Each outcome in words a user reads (the codes stay in the log and telemetry). */
const OUTCOME_WORDS: Record<AttemptOutcome, string> = {
	ok: 'written',
	'prompt-too-large': "the request for it did not fit the model's window",
	'model-error': 'the model call failed',
	empty: 'the model answered nothing',
	'cut-off': 'the answer stopped before the summary ended',
	'not-a-summary': 'the answer was not a summary',
	'summary-too-large': 'the summary came out too long',
};

export async function produceSummary<P>(deps: SummaryFlowDeps<P>, maxSummaryTokens: number): Promise<SummaryFlowResult> {
	const attempts: SummaryAttempt[] = [];
	/** Renders, sends and checks one request; the attempt and the text it got (also when too large). */
	const once = async (
		mode: SummaryPromptMode,
		pass: 'condense' | undefined,
		render: () => Promise<{ prompt: P; tokenCount: number }>,
	): Promise<{ attempt: SummaryAttempt; text?: string }> => {
		const tag = pass ? { pass } : {};
		if (deps.isCancelled()) throw deps.cancellationError();
		let rendered: { prompt: P; tokenCount: number };
		try {
			rendered = await render();
		} catch (error) {
			if (deps.isCancellation(error)) throw error;
			return { attempt: { mode, ...tag, outcome: deps.isPromptTooLarge(error) ? 'prompt-too-large' : 'model-error', detail: describe(error) } };
		}
		let reply: SummaryReply;
		try {
			reply = await deps.send(rendered.prompt);
		} catch (error) {
			if (deps.isCancellation(error) || deps.isCancelled()) throw deps.isCancellation(error) ? error : deps.cancellationError();
			return { attempt: { mode, ...tag, outcome: 'model-error', detail: describe(error), promptTokens: rendered.tokenCount } };
		}
		if (deps.isCancelled()) throw deps.cancellationError();
		if (reply?.kind === 'cut-off') {
			return { attempt: { mode, ...tag, outcome: 'cut-off', detail: 'the reply stopped before </summary>', promptTokens: rendered.tokenCount } };
		}
		if (reply === undefined || (reply.kind === 'summary' && reply.text.trim() === '')) {
			return { attempt: { mode, ...tag, outcome: 'empty', promptTokens: rendered.tokenCount } };
		}
		const text = reply.kind === 'summary' ? reply.text : '';
		const summaryTokens = deps.countTokens(text);
		const rejected = notASummary(reply, summaryTokens, rendered.tokenCount, maxSummaryTokens);
		if (rejected) {
			return { attempt: { mode, ...tag, outcome: 'not-a-summary', detail: rejected, summaryTokens, promptTokens: rendered.tokenCount } };
		}
		if (summaryTokens > maxSummaryTokens) {
			return {
				attempt: {
					mode,
					...tag,
					outcome: 'summary-too-large',
					summaryTokens,
					promptTokens: rendered.tokenCount,
					detail: `${summaryTokens} > ${maxSummaryTokens} tokens`,
				},
				text,
			};
		}
		return { attempt: { mode, ...tag, outcome: 'ok', summaryTokens, promptTokens: rendered.tokenCount }, text };
	};

	for (const mode of ['full', 'simple'] as const) {
		const first = await once(mode, undefined, () => deps.render(mode));
		attempts.push(first.attempt);
		if (first.attempt.outcome === 'ok') return { summary: first.text!.trim(), mode, attempts };
		const renderCondense = deps.renderCondense;
		if (first.attempt.outcome !== 'summary-too-large' || !renderCondense) continue;
		const tooLong = first.text!.trim();
		const condensed = await once(mode, 'condense', () => renderCondense(tooLong));
		attempts.push(condensed.attempt);
		if (condensed.attempt.outcome === 'ok') return { summary: condensed.text!.trim(), mode, condensed: true, attempts };
	}
	return { attempts };
}
