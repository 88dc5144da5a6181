// The Full → Simple chain of seed 002, with every dependency injected so it is
// tested without a model. The caller falls back to deterministic truncation when
// this returns no summary; cancellation propagates as the caller's own error.

export type SummaryPromptMode = 'full' | 'simple';

export type AttemptOutcome =
	| 'ok'
	/** The summarizer prompt itself did not fit the model's window. */
	| 'prompt-too-large'
	/** The model call failed (network, quota, refused). */
	| 'model-error'
	| 'empty'
	/** The summary is larger than the summary budget. */
	| 'summary-too-large';

export interface SummaryAttempt {
	readonly mode: SummaryPromptMode;
	readonly outcome: AttemptOutcome;
	readonly detail?: string;
	readonly summaryTokens?: number;
	readonly promptTokens?: number;
}

export interface SummaryFlowDeps<P> {
	/** Renders the summarizer prompt; throws when it does not fit (see `isPromptTooLarge`). */
	render(mode: SummaryPromptMode): Promise<{ prompt: P; tokenCount: number }>;
	/** Sends it to the model and returns the summary text it wrote (already extracted). */
	send(prompt: P): Promise<string | undefined>;
	countTokens(text: string): number;
	isPromptTooLarge(error: unknown): boolean;
	/** Errors that must stop everything (the user cancelled): rethrown untouched. */
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
	readonly attempts: readonly SummaryAttempt[];
}

function describe(error: unknown): string {
	return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

export async function produceSummary<P>(deps: SummaryFlowDeps<P>, maxSummaryTokens: number): Promise<SummaryFlowResult> {
	const attempts: SummaryAttempt[] = [];
	for (const mode of ['full', 'simple'] as const) {
		if (deps.isCancelled()) throw deps.cancellationError();
		let rendered: { prompt: P; tokenCount: number };
		try {
			rendered = await deps.render(mode);
		} catch (error) {
			if (deps.isCancellation(error)) throw error;
			attempts.push({ mode, outcome: deps.isPromptTooLarge(error) ? 'prompt-too-large' : 'model-error', detail: describe(error) });
			continue;
		}
		let text: string | undefined;
		try {
			text = await deps.send(rendered.prompt);
		} catch (error) {
			if (deps.isCancellation(error) || deps.isCancelled()) throw deps.isCancellation(error) ? error : deps.cancellationError();
			attempts.push({ mode, outcome: 'model-error', detail: describe(error), promptTokens: rendered.tokenCount });
			continue;
		}
		if (deps.isCancelled()) throw deps.cancellationError();
		if (!text || text.trim() === '') {
			attempts.push({ mode, outcome: 'empty', promptTokens: rendered.tokenCount });
			continue;
		}
		const summaryTokens = deps.countTokens(text);
		if (summaryTokens > maxSummaryTokens) {
			attempts.push({
				mode,
				outcome: 'summary-too-large',
				summaryTokens,
				promptTokens: rendered.tokenCount,
				detail: `${summaryTokens} > ${maxSummaryTokens} tokens`,
			});
			continue;
		}
		attempts.push({ mode, outcome: 'ok', summaryTokens, promptTokens: rendered.tokenCount });
		return { summary: text.trim(), mode, attempts };
	}
	return { attempts };
}
