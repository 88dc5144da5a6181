// Does the provider run one request at a time? A local model server usually does (one slot, first
// come first served, a started request runs to its end); a hosted API serves concurrent requests.
// On one slot, a background summary is not free: the agent's next call waits behind it, so the
// user waits anyway, and every summary prepared early or thrown away adds to that wait
// (docs/decisions.md decision 47). The user may say so (longhaul.providerRunsOneRequestAtATime);
// by default Longhaul learns it from the agent's own calls made while a summary call runs:
//   - the agent's reply began before that summary call ended: the provider served both at once
//     (a single slot cannot), so it is concurrent, for good;
//   - the agent's reply began only after that summary call ended, and later than its replies
//     usually begin by at least half the time the summary call still had to run: it waited
//     behind it. Twice, with no sign of concurrency, and the provider counts as one slot.
// Pure: the caller gives the times (ms on one clock) and keeps the state (one per model).

/** longhaul.providerRunsOneRequestAtATime */
export type OneAtATimeSetting = 'auto' | 'yes' | 'no';

/** Waits behind a summary call that say "one slot" before Longhaul believes it (a slow provider is sometimes just slow). */
export const SERIAL_EVIDENCE_NEEDED = 2;
/** A reply that began this share of the summary call's remaining time later than usual waited behind it. */
const WAITED_SHARE = 0.5;

/** What the agent's calls have shown so far. Plain data. */
export interface SlotEvidence {
	/** Agent calls that waited behind a summary call. */
	readonly serial: number;
	/** Agent calls answered while a summary call still ran. */
	readonly concurrent: number;
	/** How long the agent's replies usually take to begin when no summary runs (a running mean); undefined until one was seen. */
	readonly usualReplyMs?: number;
	readonly quietCalls: number;
}

export const NO_SLOT_EVIDENCE: SlotEvidence = { serial: 0, concurrent: 0, quietCalls: 0 };

/** One model call: when it was sent, and when its reply began (or ended, when nothing streamed). */
export interface TimedCall {
	readonly sentAt: number;
	readonly repliedAt: number;
}

/** A summary call: when it started and, once it did, when it ended. */
export interface SummaryCallSpan {
	readonly startedAt: number;
	readonly endedAt?: number;
}

/** The quiet calls the usual reply time is a mean of, at most (then it follows recent calls). */
const USUAL_WINDOW = 8;

/**
 * Learns from one agent call. `summaryCalls`: the summary calls that overlapped it (started before
 * its reply began, not ended before it was sent); none: a quiet call, which teaches the usual time.
 */
export function observeAgentCall(evidence: SlotEvidence, call: TimedCall, summaryCalls: readonly SummaryCallSpan[]): SlotEvidence {
	const replyMs = call.repliedAt - call.sentAt;
	if (!(replyMs >= 0)) return evidence;
	const running = summaryCalls.filter(s => s.startedAt <= call.sentAt && (s.endedAt === undefined || s.endedAt > call.sentAt));
	if (running.length === 0) {
		if (summaryCalls.some(s => s.startedAt < call.repliedAt)) return evidence; // started meanwhile: neither quiet nor telling
		const n = Math.min(evidence.quietCalls, USUAL_WINDOW - 1);
		const usualReplyMs = evidence.usualReplyMs === undefined ? replyMs : (evidence.usualReplyMs * n + replyMs) / (n + 1);
		return { ...evidence, usualReplyMs, quietCalls: evidence.quietCalls + 1 };
	}
	if (running.some(s => s.endedAt === undefined || s.endedAt > call.repliedAt)) return { ...evidence, concurrent: evidence.concurrent + 1 };
	// Every running summary call had ended before the reply began: did the reply wait for them?
	if (evidence.usualReplyMs === undefined) return evidence;
	const remaining = Math.max(...running.map(s => s.endedAt! - call.sentAt));
	const late = replyMs - evidence.usualReplyMs;
	return late >= WAITED_SHARE * remaining ? { ...evidence, serial: evidence.serial + 1 } : evidence;
}

/** Whether the provider runs one request at a time: as the user set it, else as learned (concurrent until shown otherwise). */
export function runsOneAtATime(setting: OneAtATimeSetting, evidence: SlotEvidence): boolean {
	if (setting !== 'auto') return setting === 'yes';
	return evidence.concurrent === 0 && evidence.serial >= SERIAL_EVIDENCE_NEEDED;
}
