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
import type { Conversation, Round, Turn } from '../conversation/conversation';
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

export function emptyLedger(): DoneLedger {
	return { requests: [], reads: [], edits: [], commands: [], searches: [], others: [], steps: 0 };
}

export function isEmptyLedger(ledger: DoneLedger): boolean {
	return ledger.requests.length === 0 && ledger.steps === 0;
}

/** The request as the ledger keeps it. */
export function ledgerRequestText(text: string): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length <= REQUEST_MAX_CHARS ? flat : flat.slice(0, REQUEST_MAX_CHARS - 1) + '…';
}

export function addUserRequest(ledger: DoneLedger, text: string): DoneLedger {
	return { ...ledger, requests: [...ledger.requests, ledgerRequestText(text)] };
}

/** Replaces the entry matching `key` (moving nothing) or appends a new one. */
function upsert<T>(list: readonly T[], matches: (e: T) => boolean, update: (old: T | undefined) => T): T[] {
	const at = list.findIndex(matches);
	if (at === -1) return [...list, update(undefined)];
	const copy = list.slice();
	copy[at] = update(list[at]);
	return copy;
}

/** The ledger with every tool call of `round` folded in, in call order. */
export function extendLedger(ledger: DoneLedger, round: Round): DoneLedger {
	let next = ledger;
	for (const call of round.toolCalls) {
		const step = next.steps + 1;
		const stamp = { last: step, round: round.id };
		next = { ...next, steps: step };
		for (const fact of toolCallFacts(call)) {
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
					next = { ...next, plan: { tool: fact.tool, text: fact.text, round: round.id } };
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
 * The ledger of a whole conversation, from scratch: each turn's request, then its rounds; then
 * `request` (the request in progress, when given) and the active rounds. Use it when no stored
 * ledger exists; rounds whose results were already elided give less precise outcomes.
 */
export function buildLedger(conversation: Conversation, request?: string): DoneLedger {
	const past = conversation.turns.reduce(extendWithTurn, emptyLedger());
	const withRequest = request === undefined ? past : addUserRequest(past, request);
	return conversation.activeRounds.reduce(extendLedger, withRequest);
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
