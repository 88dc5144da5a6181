// The loop breaker (issue 7): signs that summarizing with the model is making things worse for
// this request, after which the agent loop falls back to deterministic truncation.
//
// "Repeating" means: right after a summary, the agent makes the same call (same tool, same
// arguments) and gets the same result, three times, and that call with that result is one the
// summaries of this request took out of the prompt. Running the tests again after an edit, or
// re-reading a file that changed, gives a different result and is progress, not a loop; real
// sessions do that all the time (the corpus replay tripped an earlier, argument-only rule). Nor is
// repeating a call the agent still sees verbatim: a recorded session restores a backup with the
// same `cp` after each failed fix attempt, which says nothing about the summary (decision 9).

/** Identical calls with identical results, right after a summary, that count as a loop. */
export const REPEATS_AFTER_SUMMARY = 3;
/** How many calls after a summary are "right after" it. */
export const CALLS_WATCHED_AFTER_SUMMARY = 12;

/** Counts identical calls made right after the last summary of the request. */
export interface RepeatTracker {
	/** Calls still watched since the last summary; 0 before the first summary and once the window is over. */
	watchedLeft: number;
	readonly counts: Map<string, number>;
	/** Calls (with their results) that summaries of this request replaced: only these count as repeats. */
	readonly summarizedAway: Set<string>;
}

/** One finished call as the tracker compares it. */
export interface NotedCall {
	readonly name: string;
	readonly arguments: string;
	readonly result?: string;
}

export function newRepeatTracker(): RepeatTracker {
	return { watchedLeft: 0, counts: new Map(), summarizedAway: new Set() };
}

/** A summary replacing `replaced` (the calls of the rounds it stands for) was just made: counting starts over. */
export function noteSummary(tracker: RepeatTracker, replaced: Iterable<NotedCall>): void {
	tracker.watchedLeft = CALLS_WATCHED_AFTER_SUMMARY;
	tracker.counts.clear();
	for (const call of replaced) {
		if (call.result !== undefined) tracker.summarizedAway.add(callKey(call.name, call.arguments, call.result));
	}
}

/**
 * Records one finished call. Arguments are compared as parsed JSON with sorted keys, so key order
 * and spacing do not hide a repeat; results are compared as text (undefined: the call did not
 * finish, which never counts). Returns true when this call makes {@link REPEATS_AFTER_SUMMARY}
 * identical calls within the {@link CALLS_WATCHED_AFTER_SUMMARY} calls after the last summary, of
 * a call a summary replaced.
 */
export function noteCall(tracker: RepeatTracker, name: string, args: string, result: string | undefined): boolean {
	if (tracker.watchedLeft <= 0) {
		return false;
	}
	tracker.watchedLeft--;
	if (result === undefined) {
		return false;
	}
	const key = callKey(name, args, result);
	if (!tracker.summarizedAway.has(key)) {
		return false;
	}
	const count = (tracker.counts.get(key) ?? 0) + 1;
	tracker.counts.set(key, count);
	return count === REPEATS_AFTER_SUMMARY;
}

function callKey(name: string, args: string, result: string): string {
	return `${name}\u0000${canonicalArguments(args)}\u0000${result}`;
}

function canonicalArguments(args: string): string {
	try {
		return JSON.stringify(sortKeys(JSON.parse(args)));
	} catch {
		return args.trim();
	}
}

function sortKeys(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(sortKeys);
	if (value && typeof value === 'object') {
		return Object.fromEntries(
			Object.keys(value)
				.sort()
				.map(k => [k, sortKeys((value as Record<string, unknown>)[k])]),
		);
	}
	return value;
}
