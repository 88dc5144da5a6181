// A summarizer that can fail (--summarizer-faults P): a share P of the stand-in summarizer's replies
// fail the ways real ones do, chosen by a hash of the session's name and the call's index (the
// same replay always fails the same calls, whatever the strategy):
//   error     the call throws (a provider's 500);
//   empty     the reply is empty;
//   no-tags   the analysis, then the summary without its <summary> tags;
//   over-cap  a summary twice the cap the product checks (the stand-in asked for 2× the cap);
//   cut-off   the reply stops in the middle of a sentence of its summary, before </summary>.
//   echo      the reply repeats the start of the prompt's material (<previous-summary>, the transcript);
//   refusal   one sentence declining the task, no tags;
//   few-tokens a reply of a few tokens ("Summary written."), no tags.
// The last three are no summary (src/common/summaries/summaryAcceptance.ts): each must end as a failed
// attempt ('not-a-summary', counted per kind in `rejected`), never as the summary.
// Every reply goes through the product's own rules: the quiet retry of callModelQuietly
// (src/common/provider/quietRetry.ts), summaryOfReply / extractSummary, and the Full → Simple flow
// with its condense pass (summarizationFlow.ts); when no summary comes out, the overflow pipeline
// truncates with its notice (fitPrompt.ts summary-failed). Condense requests of the flow are
// summarizer calls too; the shortening of an older block (condenseInReplay) is not.
// How each fault ended (endingOf), counted per fault:
//   retry       the product asked again and used that reply: the quiet retry after an error, or a
//               failed background summary made again in the foreground at the overflow;
//   condense    the over-long reply was condensed by the flow's condense pass;
//   simple      the flow fell back to the Simple prompt and used its summary;
//   read        extractSummary read the untagged reply as the summary (no-tags: nothing was lost);
//   truncation  no summary: the pipeline truncated, with its notice;
//   other       none of these: a bug of the bench or the product (the target is 0), or a failed
//               summary of keep-head-tail, which has no fallback (its request then overflows).

export const FAULT_KINDS = ['error', 'empty', 'no-tags', 'over-cap', 'cut-off', 'echo', 'refusal', 'few-tokens'] as const;
/** The kinds whose reply is no summary: the flow must count each as a failed attempt. */
export const NOT_A_SUMMARY_KINDS: readonly FaultKind[] = ['echo', 'refusal', 'few-tokens'];
export type FaultKind = (typeof FAULT_KINDS)[number];
export const FAULT_ENDINGS = ['retry', 'condense', 'simple', 'read', 'truncation', 'other'] as const;
export type FaultEnding = (typeof FAULT_ENDINGS)[number];

/** One replay's faults: the share, the seed, the calls so far, and the counts. */
export interface FaultState {
	readonly share: number;
	readonly seed: string;
	calls: number;
	readonly injected: Record<FaultKind, number>;
	readonly endings: Record<FaultEnding, number>;
	/** Faults whose attempt the flow counted as no summary ('not-a-summary'), per kind. */
	readonly rejected: Record<FaultKind, number>;
}

export function newFaultState(share: number, seed: string): FaultState {
	const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map(k => [k, 0])) as Record<K, number>;
	return { share, seed, calls: 0, injected: zeros(FAULT_KINDS), endings: zeros(FAULT_ENDINGS), rejected: zeros(FAULT_KINDS) };
}

/** FNV-1a, 32 bits, then MurmurHash3's finalizer so that texts differing in one digit spread evenly. */
function hash(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	h ^= h >>> 16;
	h = Math.imul(h, 0x85ebca6b);
	h ^= h >>> 13;
	h = Math.imul(h, 0xc2b2ae35);
	h ^= h >>> 16;
	return h >>> 0;
}

/** The fault of summarizer call `index` of a replay seeded `seed`, at share `share`; undefined: a good reply. */
export function faultFor(seed: string, index: number, share: number): FaultKind | undefined {
	if (share <= 0 || hash(`${seed}#${index}`) / 0x1_0000_0000 >= share) return undefined;
	return FAULT_KINDS[hash(`${seed}#${index}#kind`) % FAULT_KINDS.length];
}

/** The next call's fault (and the call counted). */
export function nextFault(state: FaultState): FaultKind | undefined {
	const fault = faultFor(state.seed, state.calls++, state.share);
	if (fault) state.injected[fault]++;
	return fault;
}

const ANALYSIS = '<analysis>\nThe transcript: the requests, the files read and changed, the commands and their errors.\n</analysis>\n';

/** `text` cut in the middle of a sentence: about half of it, ending inside a word run. */
export function cutMidSentence(text: string): string {
	const half = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
	const lastSpace = half.lastIndexOf(' ');
	return (lastSpace > half.length / 2 ? half.slice(0, lastSpace) : half).replace(/[.!?]\s*$/, '');
}

/** What a model that echoes its prompt writes: the start of the prompt's material, from its first frame tag. */
export function echoOf(promptText: string): string {
	const start = Math.max(0, promptText.search(/<(previous-summary|conversation-transcript|summary-to-condense)>/));
	return promptText.slice(start, start + 300);
}

/**
 * The stand-in's whole reply for `summary` with `fault`; `overCap` writes the over-cap summary (2× the
 * cap), `prompt` is the prompt's text (for an echo). Throws for `error`, as a provider does.
 */
export function standInReply(summary: string, fault: FaultKind | undefined, overCap: () => string, prompt = ''): string {
	switch (fault) {
		case undefined:
			return `${ANALYSIS}<summary>\n${summary}\n</summary>`;
		case 'error':
			throw new Error('Request Failed: 500 {"error":{"message":"The server had an error while processing your request.","code":"internal_error"}}');
		case 'empty':
			return '';
		case 'no-tags':
			return `${ANALYSIS}${summary}`;
		case 'over-cap':
			return `${ANALYSIS}<summary>\n${overCap()}\n</summary>`;
		case 'cut-off':
			return `${ANALYSIS}<summary>\n${cutMidSentence(summary)}`;
		case 'echo':
			return echoOf(prompt);
		case 'refusal':
			return "I'm sorry, but I can't help with summarizing this conversation.";
		case 'few-tokens':
			return 'Summary written.';
	}
}

/** Where one fault hit: the flow's mode and pass, whether the quiet retry then got a reply, and its outcome's reading. */
export interface FaultHit {
	readonly kind: FaultKind;
	readonly mode: 'full' | 'simple';
	readonly pass?: 'condense';
	/** The quiet retry after this call's error returned a reply. */
	retried: boolean;
}

/** Who asked for the summary: the overflow pipeline, a background job (made again at the overflow when it fails), or keep-head-tail (no fallback). */
export type FaultCaller = 'foreground' | 'background' | 'reference';

/** How a fault ended, from where it hit and what the whole flow produced. */
export function endingOf(hit: FaultHit, result: { summary?: string; mode?: 'full' | 'simple'; condensed?: boolean }, caller: FaultCaller): FaultEnding {
	if (hit.retried) return 'retry';
	if (result.summary === undefined) return caller === 'background' ? 'retry' : caller === 'foreground' ? 'truncation' : 'other';
	const usedThisAttempt = result.mode === hit.mode && (hit.pass === 'condense') === (result.condensed === true);
	if (usedThisAttempt && hit.kind === 'no-tags') return 'read';
	if (result.mode === hit.mode && !hit.pass && result.condensed) return 'condense';
	if (result.mode === 'simple' && hit.mode === 'full') return 'simple';
	return 'other';
}

/** The faults' fields of the metrics (and requestsLost, which every strategy has). */
export interface FaultMetrics {
	/** --summarizer-faults P (0: none). */
	readonly summarizerFaults: number;
	readonly faultsInjected: number;
	readonly faultKinds: Readonly<Record<FaultKind, number>>;
	readonly faultEndings: Readonly<Record<FaultEnding, number>>;
	/** Faults the flow counted as no summary, per kind (NOT_A_SUMMARY_KINDS: all of them, the target). */
	readonly faultsRejected: Readonly<Record<FaultKind, number>>;
	/** Requests that ended without a reply: overflows, and requests the model still refused in the end. */
	readonly requestsLost: number;
}

export function faultMetrics(state: FaultState, overflows: number, refusedInTheEnd: number): FaultMetrics {
	return {
		summarizerFaults: state.share,
		faultsInjected: FAULT_KINDS.reduce((s, k) => s + state.injected[k], 0),
		faultKinds: { ...state.injected },
		faultEndings: { ...state.endings },
		faultsRejected: { ...state.rejected },
		requestsLost: overflows + refusedInTheEnd,
	};
}
