// The done-ledger: what this session has already done, built deterministically from the user's
// requests and the tool calls with their results (never from the model's text), so that it
// survives every summarization word for word. Pure data, JSON-safe, stored with each turn
// record (metadata.ts) and rendered by doneLedgerRender.ts.
//
// How the agent keeps it current (the API is these five functions):
//   at request start  ledger = ledgerAtRequestStart(conversation.turns, storedLedgers, request)
//   after each round  ledger = extendLedger(ledger, round)      // the round as it was just recorded
//   for the prompt    doneLedger = renderDoneLedger(ledger, { maxTokens, countTokens })
//   at request end    encodeTurnRecord({ ..., doneLedger: ledger })
// A round is folded in once, when it is new: later elision or summarization of its results
// never changes the ledger.
import type { Round, Turn } from '../conversation/conversation';
import { standsFor } from './standInCalls';
import { toolCallFacts } from './toolCallFacts';

/** Where an entry was last touched: the tool-call counter and the round. Merging takes the oldest first. */
export interface LedgerStamp {
	/** Value of {@link DoneLedger.steps} when the entry was last touched. */
	readonly last: number;
	/** Id of the round that last touched the entry. */
	readonly round: string;
}

export interface LedgerRead extends LedgerStamp {
	readonly path: string;
	readonly count: number;
}

export interface LedgerEdit extends LedgerStamp {
	readonly path: string;
	/** Edits that succeeded. */
	readonly count: number;
	/** Edit attempts the tool refused (e.g. the text to replace was not found). */
	readonly failed: number;
	readonly created: boolean;
}

export interface LedgerCommand extends LedgerStamp {
	/** The command line, normalized (leading `cd DIR &&` and heredoc bodies left out). */
	readonly command: string;
	readonly count: number;
	/** Of the latest run: `exit 0`, `exit 2`, `timed out`, … */
	readonly outcome: string;
	readonly failed: boolean;
}

/** A search, listing or any other tool call: a tool name or kind and a short digest. */
export interface LedgerCall extends LedgerStamp {
	readonly tool: string;
	readonly digest: string;
	readonly count: number;
}

export interface DoneLedger {
	/** The user's requests, oldest first, whitespace collapsed, cut at {@link REQUEST_MAX_CHARS}. */
	readonly requests: readonly string[];
	readonly reads: readonly LedgerRead[];
	readonly edits: readonly LedgerEdit[];
	readonly commands: readonly LedgerCommand[];
	readonly searches: readonly LedgerCall[];
	readonly others: readonly LedgerCall[];
	/** The latest todo list or plan the agent wrote with a plan tool. */
	readonly plan?: { readonly tool: string; readonly text: string; readonly round: string };
	/** Tool calls folded in so far. */
	readonly steps: number;
}

export const REQUEST_MAX_CHARS = 400;
/**
 * Bounds of a stored ledger, far above what a real session reaches (a day of work is a few
 * thousand tool calls): entries per list, and characters per text (a path is the only text the
 * facts do not already cut short). The builder keeps within them, the decoder refuses more.
 */
export const LEDGER_LIST_MAX = 20_000;
export const LEDGER_TEXT_MAX = 4_096;

export function emptyLedger(): DoneLedger {
	return { requests: [], reads: [], edits: [], commands: [], searches: [], others: [], steps: 0 };
}

/** The request as the ledger keeps it. */
export function ledgerRequestText(text: string): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length <= REQUEST_MAX_CHARS ? flat : flat.slice(0, REQUEST_MAX_CHARS - 1) + '…';
}

export function addUserRequest(ledger: DoneLedger, text: string): DoneLedger {
	const kept = ledger.requests.length < LEDGER_LIST_MAX ? ledger.requests : ledger.requests.slice(1);
	return { ...ledger, requests: [...kept, ledgerRequestText(text)] };
}

/**
 * Replaces the entry matching `key` (moving nothing) or appends a new one. A list at
 * {@link LEDGER_LIST_MAX} gives up its least recently touched entry for the new one.
 */
function upsert<T extends { readonly last: number }>(list: readonly T[], matches: (e: T) => boolean, update: (old: T | undefined) => T): T[] {
	const at = list.findIndex(matches);
	if (at === -1) {
		if (list.length < LEDGER_LIST_MAX) return [...list, update(undefined)];
		let oldest = 0;
		for (let i = 1; i < list.length; i++) if (list[i].last < list[oldest].last) oldest = i;
		return [...list.slice(0, oldest), ...list.slice(oldest + 1), update(undefined)];
	}
	const copy = list.slice();
	copy[at] = update(list[at]);
	return copy;
}

/** A text within {@link LEDGER_TEXT_MAX} characters. */
const clip = (text: string) => (text.length <= LEDGER_TEXT_MAX ? text : text.slice(0, LEDGER_TEXT_MAX - 1) + '…');

/** The fact with every text within {@link LEDGER_TEXT_MAX} (a model can name a tool or a path of any length). */
function clipTexts<T extends object>(fact: T): T {
	const out = { ...fact } as Record<string, unknown>;
	for (const [key, value] of Object.entries(out)) if (typeof value === 'string') out[key] = clip(value);
	return out as T;
}

/** The ledger with every tool call of `round` folded in, in call order. */
export function extendLedger(ledger: DoneLedger, round: Round): DoneLedger {
	let next = ledger;
	for (const call of round.toolCalls) {
		const step = next.steps + 1;
		const stamp = { last: step, round: clip(round.id) };
		next = { ...next, steps: step };
		for (const raw of toolCallFacts(standsFor(call))) {
			const fact = clipTexts(raw);
			switch (fact.kind) {
				case 'read':
					next = {
						...next,
						reads: upsert(
							next.reads,
							e => e.path === fact.path,
							old => ({ path: fact.path, count: (old?.count ?? 0) + 1, ...stamp }),
						),
					};
					break;
				case 'edit':
					next = {
						...next,
						edits: upsert(
							next.edits,
							e => e.path === fact.path,
							old => ({
								path: fact.path,
								count: (old?.count ?? 0) + (fact.failed ? 0 : 1),
								failed: (old?.failed ?? 0) + (fact.failed ? 1 : 0),
								created: (old?.created ?? false) || (fact.created && !fact.failed),
								...stamp,
							}),
						),
					};
					break;
				case 'command':
					next = {
						...next,
						commands: upsert(
							next.commands,
							e => e.command === fact.command,
							old => ({ command: fact.command, count: (old?.count ?? 0) + 1, outcome: fact.outcome, failed: fact.failed, ...stamp }),
						),
					};
					break;
				case 'search':
					next = {
						...next,
						searches: upsert(
							next.searches,
							e => e.digest === fact.digest,
							old => ({ tool: 'search', digest: fact.digest, count: (old?.count ?? 0) + 1, ...stamp }),
						),
					};
					break;
				case 'other':
					next = {
						...next,
						others: upsert(
							next.others,
							e => e.tool === fact.tool && e.digest === fact.digest,
							old => ({ tool: fact.tool, digest: fact.digest, count: (old?.count ?? 0) + 1, ...stamp }),
						),
					};
					break;
				case 'plan':
					next = { ...next, plan: { tool: fact.tool, text: fact.text, round: stamp.round } };
					break;
			}
		}
	}
	return next;
}

function extendWithTurn(ledger: DoneLedger, turn: Turn): DoneLedger {
	return turn.rounds.reduce(extendLedger, addUserRequest(ledger, turn.user));
}

/**
 * The ledger at the start of a request: the newest stored ledger (`stored[i]` is the one stored
 * with `turns[i]`, `undefined` where none was) brought up to date with the turns after it, or,
 * when none was stored, the ledger built from all `turns`; then `request` is added (commands
 * such as /context pass none).
 */
export function ledgerAtRequestStart(turns: readonly Turn[], stored: readonly (DoneLedger | undefined)[], request?: string): DoneLedger {
	let newest = -1;
	for (let i = Math.min(turns.length, stored.length) - 1; i >= 0; i--) {
		if (stored[i]) {
			newest = i;
			break;
		}
	}
	const base = newest === -1 ? emptyLedger() : stored[newest]!;
	const upToDate = turns.slice(newest + 1).reduce(extendWithTurn, base);
	return request === undefined ? upToDate : addUserRequest(upToDate, request);
}
