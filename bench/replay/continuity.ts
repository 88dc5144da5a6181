// Continuity after compaction: the done-ledger in the replayed prompt and
// how much of what was done is still in sight right after the conversation was compacted.
//
// The product strategies render the ledger the way the agent is meant to (`ledgerForPrompt`:
// rendered within `doneLedgerCaps(messageBudget)` each time a new summary appears, the same
// text until the next one, none before the first summary; passed as AgentPrompt's `doneLedger`,
// dropped by render.ts when the prompt does not fit with it). `--ledger-live` re-renders it for
// every request instead (ahead of the history when nothing is summarized); `--no-ledger` is off.
//
// continuityAfterCompaction: on each request whose prompt was compacted just before it, the
// facts of the ledger built so far (every user request, every file edited, every command with
// the outcome of its latest run) are checked against the prompt actually sent. A fact is visible
// when it is there verbatim (the request's text in a user message; a kept round holding a call
// that edited the file, or that ran the command with that same outcome, its result not elided)
// or when the ledger in the prompt names it (ledgerReader.ts: the file's full path among the
// edits, the command with its latest outcome, shortened only where it still identifies exactly
// one command; a merged group line does not count). The value is the mean of the per-request
// shares; 1.0 means nothing done was out of sight.
import type { Raw } from '@vscode/prompt-tsx';
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { addUserRequest, emptyLedger, extendLedger, ledgerRequestText, type DoneLedger } from '../../src/common/ledger/doneLedger';
import { ledgerForPrompt, renderDoneLedger, requestLine, type LedgerForPrompt } from '../../src/common/ledger/doneLedgerRender';
import { namedCommands, readLedger } from './ledgerReader';
import { toolCallFacts } from '../../src/common/ledger/toolCallFacts';
import { SHORTENED_REQUEST_TOKENS } from '../../src/common/conversation/promptLayout';
import { firstLines } from '../../src/common/shrinking/cutText';

export interface ContinuityMetrics {
	/** The ledger was rendered into the prompts of this replay. */
	readonly doneLedger: boolean;
	/** Mean share of ledger facts visible on the requests right after a compaction; null without compaction. */
	readonly continuityAfterCompaction: number | null;
	/** Facts checked over those requests, and how many were visible. */
	readonly continuityFacts: number;
	readonly continuityFactsVisible: number;
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
	 * nothing is summarized yet. `compact`: within its base size (doneLedgerCaps, FitSession.tight 'ledger').
	 */
	ledgerText(conversation: Conversation, compact?: boolean): string | undefined;
	/** One request's prompt as sent, the rounds it showed verbatim, and whether a compaction preceded it. */
	recordRequest(compacted: boolean, messages: readonly Raw.ChatMessage[], shown: readonly Round[]): void;
	metrics(): ContinuityMetrics;
}

export interface ContinuityOptions {
	readonly enabled: boolean;
	/** at-summary (default): `ledgerForPrompt`; every-request: rendered again whenever the ledger changed. */
	readonly refresh?: 'at-summary' | 'every-request';
	readonly maxTokens: number;
	readonly targetTokens?: number;
	readonly countTokens: (text: string) => number;
}

/** The text of all messages, one message per line block. */
export function promptText(messages: readonly Raw.ChatMessage[]): string {
	return messages.map(m => m.content.map(part => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('')).join('\n');
}

const hasLine = (text: string, line: string) => text.includes('\n' + line + '\n');

/** Edited paths and `command outcome` pairs a round shows, from its calls as rendered (elided results give other outcomes). */
function shownFacts(round: Round): { edits: Set<string>; commands: Set<string> } {
	const edits = new Set<string>();
	const commands = new Set<string>();
	for (const call of round.toolCalls) {
		for (const fact of toolCallFacts(call)) {
			if (fact.kind === 'edit' && !fact.failed) edits.add(fact.path);
			if (fact.kind === 'command') commands.add(`${fact.command}\u0000${fact.outcome}`);
		}
	}
	return { edits, commands };
}

/**
 * The facts of `ledger` visible in a prompt: its text and the rounds it shows verbatim. A past
 * request counts when it is there whole, as its ledger line, or shortened the way the prompt
 * shortens requests whose work is summarized (promptLayout.ts: its first lines, up to
 * SHORTENED_REQUEST_TOKENS, which name the task; the rest is left out with a note).
 */
export function visibleFacts(
	ledger: DoneLedger,
	requests: readonly string[],
	messages: readonly Raw.ChatMessage[],
	shown: readonly Round[],
	countTokens: (text: string) => number,
): { facts: number; visible: number } {
	const text = '\n' + promptText(messages) + '\n';
	const verbatimEdits = new Set<string>();
	const verbatimCommands = new Set<string>();
	for (const round of shown) {
		const f = shownFacts(round);
		f.edits.forEach(p => verbatimEdits.add(p));
		f.commands.forEach(c => verbatimCommands.add(c));
	}
	const inLedger = readLedger(text);
	const ledgerCommands = namedCommands(inLedger, ledger.commands);
	let facts = 0;
	let visible = 0;
	requests.forEach((user, i) => {
		facts++;
		if (
			text.includes(user) ||
			hasLine(text, requestLine(i, ledgerRequestText(user), Number.MAX_SAFE_INTEGER)) ||
			text.includes(`${firstLines(user, SHORTENED_REQUEST_TOKENS, countTokens)}\n[Request shortened`)
		) {
			visible++;
		}
	});
	for (const edit of ledger.edits) {
		if (edit.count === 0) continue; // only failed attempts: nothing was edited
		facts++;
		if (verbatimEdits.has(edit.path) || inLedger.edits.has(edit.path)) visible++;
	}
	for (const command of ledger.commands) {
		facts++;
		const key = `${command.command}\u0000${command.outcome}`;
		if (verbatimCommands.has(key) || ledgerCommands.has(key)) visible++;
	}
	return { facts, visible };
}

export function continuityProbe(options: ContinuityOptions): ContinuityProbe {
	let ledger = emptyLedger();
	const requests: string[] = [];
	let rendered: string | undefined;
	let renderedFor: DoneLedger | undefined;
	let atSummary: LedgerForPrompt | undefined;
	let lastGiven: string | undefined;
	const shares: number[] = [];
	let facts = 0;
	let visible = 0;
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
			requests.push(user);
		},
		addRound(round) {
			ledger = extendLedger(ledger, round);
		},
		ledgerText,
		recordRequest(compacted, messages, shown) {
			const given = lastGiven;
			if (given) {
				ledgerTokens.push(options.countTokens(given));
				if (!promptText(messages).includes('<done-ledger>')) omitted++;
			}
			if (!compacted) return;
			const seen = visibleFacts(ledger, requests, messages, shown, options.countTokens);
			facts += seen.facts;
			visible += seen.visible;
			shares.push(seen.facts ? seen.visible / seen.facts : 1);
		},
		metrics() {
			const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
			return {
				doneLedger: options.enabled,
				continuityAfterCompaction: shares.length ? Math.round(mean(shares) * 1000) / 1000 : null,
				continuityFacts: facts,
				continuityFactsVisible: visible,
				ledgerOmittedRequests: omitted,
				ledgerTokensMean: Math.round(mean(ledgerTokens) * 10) / 10,
			};
		},
	};
}

// ---- ledger on versus off, for the report ----

/** What the same replay gives with the ledger off (main.ts runs it for the product strategies). */
export interface LedgerOffComparison {
	readonly continuityAfterCompaction: number | null;
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
		continuityAfterCompaction: off.continuityAfterCompaction,
		summarizations: off.summarizations,
		verbatimAfterSummaryRounds: off.verbatimAfterSummaryRounds,
		prefixReuse: off.prefixReuse,
		mainInputTokens: off.mainInputTokens,
	};
}

export interface ContinuitySummary {
	readonly window: number;
	readonly strategy: string;
	/** Compacted requests over the sessions (ledger on). */
	readonly compactedRequests: number;
	/** Weighted by compacted requests; null when nothing was compacted. */
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
		const compacted = group.filter(r => r.continuityAfterCompaction !== null);
		const weighted = (pick: (r: ComparableRow) => number | null | undefined) => {
			const withValue = compacted.filter(r => pick(r) !== null && pick(r) !== undefined);
			const n = withValue.reduce((s, r) => s + r.compactedRequests, 0);
			return n ? Math.round((withValue.reduce((s, r) => s + pick(r)! * r.compactedRequests, 0) / n) * 1000) / 1000 : null;
		};
		const withOff = group.filter(r => r.ledgerOff);
		const mean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000;
		return {
			window: Number(w),
			strategy,
			compactedRequests: group.reduce((s, r) => s + r.compactedRequests, 0),
			continuityOn: weighted(r => r.continuityAfterCompaction),
			continuityOff: withOff.length ? weighted(r => r.ledgerOff?.continuityAfterCompaction) : null,
			minSessionOn: compacted.length ? Math.min(...compacted.map(r => r.continuityAfterCompaction!)) : null,
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
	const lines = ['window  strategy            compacted  continuity on (min session)  off     ledger dropped  summ on/off  reuse on/off'];
	for (const s of summaries) {
		lines.push(
			`${String(s.window).padEnd(7)} ${s.strategy.padEnd(19)} ${String(s.compactedRequests).padStart(9)}  ${v(s.continuityOn).padStart(13)} (${v(s.minSessionOn)})       ${v(s.continuityOff).padEnd(7)} ${String(s.ledgerOmittedRequests).padStart(14)}  ${`${s.summarizationsOn}/${s.summarizationsOff ?? '-'}`.padStart(11)}  ${v(s.prefixReuseOn)}/${v(s.prefixReuseOff)}`,
		);
	}
	return lines.join('\n');
}
