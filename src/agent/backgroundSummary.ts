// What the agent's background summaries keep beyond one request, owned by the extension (created in
// activate, disposed with it): the learned speed of each model's summaries, and the job a request
// hands over to the next request of its chat. The rule itself is src/common/background (when to
// start, the job's life, when a prepared summary still applies); each request's Compactor runs the
// jobs (requestCompactor.ts). Also the progress and /context lines about them.
import * as vscode from 'vscode';
import {
	BackgroundSummaries,
	dropCarried,
	newBackgroundStats,
	type BackgroundState,
	type BackgroundStats,
	type CarriedJob,
} from '../common/background/backgroundJob';
import { observeSummary, UNLEARNED_SPEED, type LearnedSpeed } from '../common/background/latency';
import { NO_SLOT_EVIDENCE, observeAgentCall, runsOneAtATime, type OneAtATimeSetting, type SlotEvidence } from '../common/background/providerSlots';
import type { Conversation } from '../common/conversation/conversation';
import type { PreparedSummary } from '../common/fitting/preparedSummary';
import { log } from './log';

/** A prepared summary that was not attached: every attempt failed, or it no longer fitted the conversation. */
export type UnusedSummary = (prepared: PreparedSummary, outcome: 'failed' | 'discarded') => void;

/** What Longhaul learned of each model's summary speed, for this window (a session's models are few). */
export class SummarySpeeds {
	private readonly speeds = new Map<string, LearnedSpeed>();

	/** The model's learned speed; the field estimate until one was learned. */
	of(modelId: string): LearnedSpeed {
		return this.speeds.get(modelId) ?? UNLEARNED_SPEED;
	}

	/** The model's learned speed, for /context; undefined until one summary was measured. */
	learned(modelId: string): LearnedSpeed | undefined {
		return this.speeds.get(modelId);
	}

	/** Learns the model's speed from a summary it made (each request's input and output). */
	learn(modelId: string, prepared: PreparedSummary): void {
		this.speeds.set(modelId, observeSummary(this.of(modelId), prepared.attempts, prepared.durationMs));
	}
}

/** A summary call's span on the performance clock; `endedAt` once it ended. */
interface SummaryCall {
	readonly startedAt: number;
	endedAt?: number;
}

/**
 * Whether each model's provider runs one request at a time (src/common/background/providerSlots.ts):
 * the background summary calls are timed, and each agent call is checked against those that ran
 * while it was sent. For this window, per model.
 */
export class ProviderSlots {
	private readonly evidence = new Map<string, SlotEvidence>();
	private readonly calls = new Map<string, SummaryCall[]>();

	/** Runs one summary call of a background job, timed. */
	async summaryCall<T>(modelId: string, call: () => Promise<T>): Promise<T> {
		const span: SummaryCall = { startedAt: performance.now() };
		const list = this.calls.get(modelId) ?? [];
		this.calls.set(modelId, [...list, span]);
		try {
			return await call();
		} finally {
			span.endedAt = performance.now();
		}
	}

	/** Runs one agent call, and learns from how long it took while summary calls ran (or none). */
	async agentCall<T>(modelId: string, call: () => Promise<T>): Promise<T> {
		const sentAt = performance.now();
		// Summary calls that ended before this one was sent say nothing about it.
		const open = (this.calls.get(modelId) ?? []).filter(s => s.endedAt === undefined || s.endedAt > sentAt);
		this.calls.set(modelId, open);
		const reply = await call();
		const repliedAt = performance.now();
		const overlapping = (this.calls.get(modelId) ?? []).filter(s => s.startedAt < repliedAt).map(s => ({ ...s }));
		const before = this.evidence.get(modelId) ?? NO_SLOT_EVIDENCE;
		const after = observeAgentCall(before, { sentAt, repliedAt }, overlapping);
		this.evidence.set(modelId, after);
		if (runsOneAtATime('auto', after) !== runsOneAtATime('auto', before)) {
			log().info(`model ${modelId}: its provider ${runsOneAtATime('auto', after) ? 'runs one request at a time' : 'serves requests concurrently'}`);
		}
		return reply;
	}

	/** Whether the model's provider runs one request at a time: the setting, or what was learned. */
	oneAtATime(modelId: string, setting: OneAtATimeSetting): boolean {
		return runsOneAtATime(setting, this.evidence.get(modelId) ?? NO_SLOT_EVIDENCE);
	}
}

/** A job still under way (or ready) when its request ended, for the next request of the same chat. */
interface Carry {
	/** A holder of the handed-over jobs, to read their state. */
	readonly holder: BackgroundSummaries;
	/** The newest round of the conversation when the request ended: the next request's history ends with it. */
	readonly lastRoundId: string;
	readonly modelId: string;
	readonly carried: CarriedJob;
	readonly onUnused: UnusedSummary;
	readonly timer: ReturnType<typeof setTimeout>;
}

/** A carried job nobody adopted in this time is cancelled. */
const CARRY_MS = 10 * 60_000;

/** The background job a request handed over, until the next request of the chat adopts it (or drops it). */
export class CarriedJobs implements vscode.Disposable {
	private carry: Carry | undefined;

	/** Adopts the job the previous request handed over, if this conversation continues it with the same model. */
	adopt(background: BackgroundSummaries, modelId: string, conversation: Conversation): void {
		const carry = this.carry;
		if (!carry) return;
		if (carry.modelId !== modelId || carry.lastRoundId !== newestRoundId(conversation) || !background.adopt(carry.carried)) {
			this.drop(background.stats);
			return;
		}
		clearTimeout(carry.timer);
		this.carry = undefined;
		log().info('background summary carried over from the previous request');
	}

	/**
	 * The request ended: a job under way or ready is kept for the next request of this chat (the
	 * older rounds it summarizes stay as they are), unless the user cancelled (no final conversation).
	 */
	keep(background: BackgroundSummaries, modelId: string, finalConversation: Conversation | undefined, onUnused: UnusedSummary): void {
		const lastRoundId = finalConversation ? newestRoundId(finalConversation) : undefined;
		const carried = lastRoundId ? background.handOver() : undefined;
		if (!carried || !lastRoundId) {
			background.dispose();
			return;
		}
		this.drop(background.stats);
		const holder = new BackgroundSummaries({
			plan: () => undefined,
			summarize: () => ({ done: Promise.resolve(undefined), cancel: () => {} }),
			now: () => performance.now(),
		});
		holder.adopt(carried);
		this.carry = { holder, lastRoundId, modelId, carried, onUnused, timer: setTimeout(() => this.drop(newBackgroundStats()), CARRY_MS) };
	}

	/** What the last request handed over for the next one with this model. */
	state(modelId: string): BackgroundState {
		return this.carry && this.carry.modelId === modelId ? this.carry.holder.state() : { kind: 'none' };
	}

	private drop(stats: BackgroundStats): void {
		const carry = this.carry;
		if (!carry) return;
		clearTimeout(carry.timer);
		dropCarried(carry.carried, { onUnused: carry.onUnused }, stats);
		this.carry = undefined;
	}

	dispose(): void {
		this.drop(newBackgroundStats());
	}
}

/** The id of the newest round of a conversation (past turns, then the request in progress). */
function newestRoundId(conversation: Conversation): string | undefined {
	const active = conversation.activeRounds[conversation.activeRounds.length - 1];
	if (active) return active.id;
	for (let t = conversation.turns.length - 1; t >= 0; t--) {
		const rounds = conversation.turns[t].rounds;
		if (rounds.length) return rounds[rounds.length - 1].id;
	}
	return undefined;
}

/** The progress line while the user waits for a summary that is under way: how long it has run and about how long is left. */
export function waitingLine(forMs: number, expectedMs: number | undefined): string {
	const ran = Math.round(forMs / 1000);
	const left = expectedMs !== undefined ? Math.max(1, Math.round((expectedMs - forMs) / 1000)) : undefined;
	return left !== undefined
		? vscode.l10n.t('Finishing the summary prepared in the background (running for {0} s, about {1} s left)…', ran, left)
		: vscode.l10n.t('Finishing the summary prepared in the background (running for {0} s)…', ran);
}

/** /context's line on background work: what the last request handed over for the next one, and the learned speed. */
export function backgroundLine(speeds: SummarySpeeds, carried: CarriedJobs, modelId: string): string {
	const speed = speeds.learned(modelId);
	const state = carried.state(modelId);
	const what =
		state.kind === 'ready'
			? vscode.l10n.t('ready, covering {0} older rounds; the next overflow uses it without waiting', state.rounds)
			: state.kind === 'preparing'
				? vscode.l10n.t('preparing for {0} s ({1} older rounds)', Math.round(state.forMs / 1000), state.rounds)
				: vscode.l10n.t('none under way');
	if (!speed) return vscode.l10n.t('**Background summary:** {0}.', what);
	// In words, not as a factor: how this model's summaries compare with what Longhaul assumes before it has measured any.
	const times = speed.scale < 1 ? 1 / speed.scale : speed.scale;
	const factor = times < 10 ? times.toFixed(1) : String(Math.round(times));
	return speed.scale < 1
		? vscode.l10n.t(
				'**Background summary:** {0}; this model writes summaries about {1} times faster than Longhaul assumes before it has measured any (learned from {2} summaries).',
				what,
				factor,
				speed.samples,
			)
		: vscode.l10n.t(
				'**Background summary:** {0}; this model writes summaries about {1} times slower than Longhaul assumes before it has measured any (learned from {2} summaries).',
				what,
				factor,
				speed.samples,
			);
}
