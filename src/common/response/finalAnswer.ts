// Where a chat response's final answer starts, by VS Code's rule, and the order of the end of a
// Longhaul response that keeps the answer in view.
//
// VS Code 1.139 (`chat.agent.collapseCompletedResponses`, on by default) folds a finished response
// into "Completed N steps" up to its final answer, which it takes to be the run of consecutive
// markdown parts that holds the last non-empty markdown part (chatListRenderer: the start of that
// run is found by walking back from the end over markdown parts only). Any other part (a button, a
// progress message, a tool invocation) between two markdown texts ends the run: with buttons and
// then a muted token line after the model's answer, the token line alone was the "final answer"
// and the answer was folded away. Parts after the run stay visible.
//
// So the end of a response writes all of its text first and its buttons last.

/** The kinds of response parts that matter to the folding rule. */
export type ResponsePartKind = 'markdown' | 'button' | 'progress' | 'tool' | 'other';

export interface ResponsePart {
	readonly kind: ResponsePartKind;
	/** Markdown text; empty for other parts. */
	readonly text: string;
}

/**
 * The index of the first part VS Code shows as the final answer (everything before it may be
 * folded), or undefined when the response has no non-empty markdown (nothing is folded).
 */
export function finalAnswerStart(parts: readonly ResponsePart[]): number | undefined {
	let last = parts.length - 1;
	while (last >= 0 && !(parts[last].kind === 'markdown' && parts[last].text.length > 0)) last--;
	if (last < 0) return undefined;
	let start = last;
	while (start > 0 && parts[start - 1].kind === 'markdown') start--;
	return start;
}

/**
 * The text VS Code leaves in view after folding: the final answer's run and everything after it.
 * @internal VS Code's rule stated beside finalAnswerStart; unit and real-host tests read responses with it.
 */
export function textInView(parts: readonly ResponsePart[]): string {
	const start = finalAnswerStart(parts) ?? 0;
	return parts
		.slice(start)
		.filter(p => p.kind === 'markdown')
		.map(p => p.text)
		.join('');
}

export type EpilogueItem<B> = { readonly kind: 'markdown'; readonly text: string } | { readonly kind: 'button'; readonly button: B };

/**
 * The end of a response in the order it is written: every text in the order given, then every
 * button in the order given, so that the texts join the final answer's run and the buttons follow it.
 */
export function epilogueOrder<B>(items: readonly EpilogueItem<B>[]): EpilogueItem<B>[] {
	return [...items.filter(i => i.kind === 'markdown' && i.text.length > 0), ...items.filter(i => i.kind === 'button')];
}
