// The done-ledger in the replayed prompt, and what the agent can still know on each request.
//
// The product strategies render the ledger the way the agent is meant to (`ledgerForPrompt`:
// rendered within `doneLedgerCaps(messageBudget)` each time a new summary appears, the same
// text until the next one, none before the first summary; passed as AgentPrompt's `doneLedger`,
// dropped by render.ts when the prompt does not fit with it). `--ledger-live` re-renders it for
// every request instead (ahead of the history when nothing is summarized); `--no-ledger` is off.
//
// What is still known is measured by the knowledge probe (bench/knowledge/knowledgeProbe.ts), for
// every strategy: `continuity`, the share of an independent fact oracle's facts (requests, files
// read and changed, commands with their status) the prompt names on every request from the first
// compaction on, and the details probe's shares (visible, in a summary, recalled, lost). This
// file feeds it each request as sent, and compares the ledger on with off for the report.
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { addUserRequest, emptyLedger, extendLedger, type DoneLedger } from '../../src/common/ledger/doneLedger';
import { ledgerForPrompt, renderDoneLedger, type LedgerForPrompt } from '../../src/common/ledger/doneLedgerRender';
import { knowledgeProbe, type KnowledgeMetrics, type KnowledgeOptions, type ProbedRequest } from '../knowledge/knowledgeProbe';
import { messagesText } from '../knowledge/promptView';

export interface ContinuityMetrics extends KnowledgeMetrics {
	/** The ledger was rendered into the prompts of this replay. */
	readonly doneLedger: boolean;
	/** Requests whose prompt was given a ledger but sent without it (render.ts drops it when the prompt does not fit with it). */
	readonly ledgerOmittedRequests: number;
	/** Mean tokens of the ledger text given to the prompt (0 when off). */
	readonly ledgerTokensMean: number;
}

export interface ContinuityProbe {
	/** A new request starts (the recorded turn's user message). */
	startTurn(user: string): void;
	/** The model's round as recorded, before any later elision or summary. */
	addRound(round: Round): void;
	/**
	 * The `doneLedger` prop for a prompt of `conversation`; undefined when off, empty, or (at-summary)
	 * nothing is summarized yet. `compact`: within its base size (doneLedgerCaps, FitMemory.tight 'ledger').
	 */
	ledgerText(conversation: Conversation, compact?: boolean): string | undefined;
	/** One request's prompt as sent (knowledgeProbe.ts ProbedRequest). */
	recordRequest(request: ProbedRequest): Promise<void>;
	metrics(): ContinuityMetrics;
}

export interface ContinuityOptions {
	readonly enabled: boolean;
	/** at-summary (default): `ledgerForPrompt`; every-request: rendered again whenever the ledger changed. */
	readonly refresh?: 'at-summary' | 'every-request';
	readonly maxTokens: number;
	readonly targetTokens?: number;
	readonly countTokens: (text: string) => number;
	/** The knowledge probe's session and recall (every strategy). */
	readonly knowledge: KnowledgeOptions;
}

export function continuityProbe(options: ContinuityOptions): ContinuityProbe {
	let ledger = emptyLedger();
	const knowledge = knowledgeProbe(options.knowledge);
	let rendered: string | undefined;
	let renderedFor: DoneLedger | undefined;
	let atSummary: LedgerForPrompt | undefined;
	let lastGiven: string | undefined;
	let omitted = 0;
	const ledgerTokens: number[] = [];

	const ledgerText = (conversation: Conversation, compact = false): string | undefined => {
		lastGiven = undefined;
		if (!options.enabled) return undefined;
		if (options.refresh !== 'every-request') {
			atSummary = ledgerForPrompt(conversation, ledger, atSummary, compact ? { ...options, maxTokens: options.targetTokens ?? options.maxTokens } : options);
			lastGiven = atSummary?.text || undefined;
			return lastGiven;
		}
		if (renderedFor !== ledger) {
			rendered = renderDoneLedger(ledger, { maxTokens: options.maxTokens, targetTokens: options.targetTokens, countTokens: options.countTokens });
			renderedFor = ledger;
		}
		lastGiven = rendered || undefined;
		return lastGiven;
	};

	return {
		startTurn(user) {
			ledger = addUserRequest(ledger, user);
			knowledge.startTurn(user);
		},
		addRound(round) {
			ledger = extendLedger(ledger, round);
			knowledge.addRound(round);
		},
		ledgerText,
		async recordRequest(request) {
			const given = lastGiven;
			if (given) {
				ledgerTokens.push(options.countTokens(given));
				if (!messagesText(request.messages).includes('<done-ledger>')) omitted++;
			}
			await knowledge.recordRequest(request);
		},
		metrics() {
			const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
			return {
				...knowledge.metrics(),
				doneLedger: options.enabled,
				ledgerOmittedRequests: omitted,
				ledgerTokensMean: Math.round(mean(ledgerTokens) * 10) / 10,
			};
		},
	};
}

// ---- ledger on versus off, for the report ----

/** What the same replay gives with the ledger off (main.ts runs it for the product strategies). */
export interface LedgerOffComparison {
	readonly continuity: number | null;
	readonly detailsReachable: number | null;
	readonly summarizations: number;
	readonly verbatimAfterSummaryRounds: number | null;
	readonly prefixReuse: number;
	readonly mainInputTokens: number;
}

interface ComparableRow extends ContinuityMetrics {
	readonly session: string;
	readonly window: number;
	readonly strategy: string;
	readonly summarizations: number;
	readonly verbatimAfterSummaryRounds: number | null;
	readonly prefixReuse: number;
	readonly mainInputTokens: number;
	readonly compactedRequests: number;
	readonly ledgerOff?: LedgerOffComparison;
}

export function ledgerOffComparison(off: ComparableRow): LedgerOffComparison {
	return {
		continuity: off.continuity,
		detailsReachable: off.detailsReachable,
		summarizations: off.summarizations,
		verbatimAfterSummaryRounds: off.verbatimAfterSummaryRounds,
		prefixReuse: off.prefixReuse,
		mainInputTokens: off.mainInputTokens,
	};
}

export interface ContinuitySummary {
	readonly window: number;
	readonly strategy: string;
	/** Requests probed for continuity over the sessions (ledger on): every request from the first compaction on. */
	readonly probedRequests: number;
	/** Weighted by probed requests; null when nothing was compacted. */
	readonly continuityOn: number | null;
	readonly continuityOff: number | null;
	readonly minSessionOn: number | null;
	readonly ledgerOmittedRequests: number;
	readonly summarizationsOn: number;
	readonly summarizationsOff: number | null;
	readonly prefixReuseOn: number;
	readonly prefixReuseOff: number | null;
}

/** Corpus totals per window and product strategy, from rows that carry a ledger-off comparison. */
export function summarizeContinuity(rows: readonly ComparableRow[]): ContinuitySummary[] {
	const keys = [...new Set(rows.filter(r => r.doneLedger).map(r => `${r.window}\u0000${r.strategy}`))];
	return keys.map(key => {
		const [w, strategy] = key.split('\u0000');
		const group = rows.filter(r => r.window === Number(w) && r.strategy === strategy && r.doneLedger);
		const compacted = group.filter(r => r.continuity !== null);
		const weighted = (pick: (r: ComparableRow) => number | null | undefined) => {
			const withValue = compacted.filter(r => pick(r) !== null && pick(r) !== undefined);
			const n = withValue.reduce((s, r) => s + r.continuityRequests, 0);
			return n ? Math.round((withValue.reduce((s, r) => s + pick(r)! * r.continuityRequests, 0) / n) * 1000) / 1000 : null;
		};
		const withOff = group.filter(r => r.ledgerOff);
		const mean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000;
		return {
			window: Number(w),
			strategy,
			probedRequests: group.reduce((s, r) => s + r.continuityRequests, 0),
			continuityOn: weighted(r => r.continuity),
			continuityOff: withOff.length ? weighted(r => r.ledgerOff?.continuity) : null,
			minSessionOn: compacted.length ? Math.min(...compacted.map(r => r.continuity!)) : null,
			ledgerOmittedRequests: group.reduce((s, r) => s + r.ledgerOmittedRequests, 0),
			summarizationsOn: group.reduce((s, r) => s + r.summarizations, 0),
			summarizationsOff: withOff.length ? withOff.reduce((s, r) => s + r.ledgerOff!.summarizations, 0) : null,
			prefixReuseOn: mean(group.map(r => r.prefixReuse)),
			prefixReuseOff: withOff.length ? mean(withOff.map(r => r.ledgerOff!.prefixReuse)) : null,
		};
	});
}

export function formatContinuity(summaries: readonly ContinuitySummary[]): string {
	const v = (x: number | null) => (x === null ? '-' : x.toFixed(3));
	const lines = ['window  strategy               probed  continuity on (min session)  off     ledger dropped  summ on/off  reuse on/off'];
	for (const s of summaries) {
		lines.push(
			`${String(s.window).padEnd(7)} ${s.strategy.padEnd(19)} ${String(s.probedRequests).padStart(9)}  ${v(s.continuityOn).padStart(13)} (${v(s.minSessionOn)})       ${v(s.continuityOff).padEnd(7)} ${String(s.ledgerOmittedRequests).padStart(14)}  ${`${s.summarizationsOn}/${s.summarizationsOff ?? '-'}`.padStart(11)}  ${v(s.prefixReuseOn)}/${v(s.prefixReuseOff)}`,
		);
	}
	return lines.join('\n');
}
