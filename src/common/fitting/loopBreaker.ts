// The loop breaker: signs that summarizing with the model is making things worse for
// this request, after which the agent loop falls back to deterministic truncation.
//
// "Repeating" means: right after a summary, the agent makes the same call (same tool, same
// arguments) and gets the same result, three times, and that call with that result is one the
// summaries of this request took out of the prompt. Running the tests again after an edit, or
// re-reading a file that changed, gives a different result and is progress, not a loop; real
// sessions do that all the time (the corpus replay tripped an earlier, argument-only rule). Nor is
// repeating a call the agent still sees verbatim: a recorded session restores a backup with the
// same `cp` after each failed fix attempt, which says nothing about the summary. And the repeats
// must be most of what the agent does right after the summary: in legacy mode that `cp` was
// summarized away too, yet the agent did new work between the restores, which is not a loop
// (decision 9).

/** Identical calls with identical results, right after a summary, that count as a loop. */
export const REPEATS_AFTER_SUMMARY = 3;
/** How many calls after a summary are "right after" it. */
export const CALLS_WATCHED_AFTER_SUMMARY = 12;

/** Counts identical calls made right after the last summary of the request. */
export interface RepeatTracker {
	/** Calls still watched since the last summary; 0 before the first summary and once the window is over. */
	watchedLeft: number;
	/** Finished calls watched since the last summary, and how many of them repeated a summarized call. */
	watched: number;
	repeated: number;
	/** The loop was reported for the current summary. */
	fired: boolean;
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
	return { watchedLeft: 0, watched: 0, repeated: 0, fired: false, counts: new Map(), summarizedAway: new Set() };
}

/** A summary replacing `replaced` (the calls of the rounds it stands for) was just made: counting starts over. */
export function noteSummary(tracker: RepeatTracker, replaced: Iterable<NotedCall>): void {
	tracker.watchedLeft = CALLS_WATCHED_AFTER_SUMMARY;
	tracker.watched = 0;
	tracker.repeated = 0;
	tracker.fired = false;
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
 * a call a summary replaced, and at least half of the calls since that summary repeat summarized
 * ones. Fires once per summary.
 */
export function noteCall(tracker: RepeatTracker, name: string, args: string, result: string | undefined): boolean {
	if (tracker.watchedLeft <= 0) {
		return false;
	}
	tracker.watchedLeft--;
	if (result === undefined) {
		return false;
	}
	tracker.watched++;
	const key = callKey(name, args, result);
	if (!tracker.summarizedAway.has(key)) {
		return false;
	}
	tracker.repeated++;
	const count = (tracker.counts.get(key) ?? 0) + 1;
	tracker.counts.set(key, count);
	if (tracker.fired || count < REPEATS_AFTER_SUMMARY || tracker.repeated * 2 < tracker.watched) {
		return false;
	}
	tracker.fired = true;
	return true;
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
