// Persistence: each chat response stores one TurnRecord in `ChatResult.metadata.longhaul`,
// and the conversation is rebuilt from those records when the next request starts.
// Reading never throws: a bad record, round, call or summary is reported and skipped.
import { cutMiddle } from '../shrinking/cutText';
import type { Conversation, Round, ToolCall, Turn } from '../conversation/conversation';
import type { DoneLedger } from '../ledger/doneLedger';
import { decodeDoneLedger } from '../ledger/doneLedgerCodec';
import { decodeRound, join, readObject, type DecodeIssue } from './roundDecoder';

export { formatIssue } from './roundDecoder';

/** The key of our record inside `ChatResult.metadata`. */
export const METADATA_KEY = 'longhaul';
export const TURN_RECORD_VERSION = 1;
/**
 * Tool results longer than this are cut (head and tail kept) before they are stored, so one
 * huge `run` output cannot bloat the chat session file VS Code keeps. The live request still
 * saw the full (budget-capped) result; later requests see the stored one.
 */
export const STORED_RESULT_MAX_CHARS = 16_000;

/** A summary made during one request, anchored on a round of that request or of an earlier turn. */
export interface StoredSummary {
	readonly roundId: string;
	readonly text: string;
}

export interface TurnRecord {
	readonly schemaVersion: typeof TURN_RECORD_VERSION;
	/** The rounds of this request; stored without `summary` (summaries live in `summaries`). */
	readonly rounds: readonly Round[];
	readonly maxToolCallsExceeded?: boolean;
	readonly cancelled?: boolean;
	/** The request did not fit the model's window and was not answered (see {@link refusedRequestText}). */
	readonly refused?: boolean;
	/** Summaries created during this request, oldest first. */
	readonly summaries: readonly StoredSummary[];
	/** The done-ledger as it was at the end of this request (absent in records written without it). */
	readonly doneLedger?: DoneLedger;
}

export interface MetadataIssue extends DecodeIssue {
	/** For issues found by {@link rebuildConversation}: the history entry they came from. */
	readonly turnIndex?: number;
}

export interface TurnRecordInput {
	readonly rounds: readonly Round[];
	readonly maxToolCallsExceeded?: boolean;
	readonly cancelled?: boolean;
	readonly refused?: boolean;
	/** Summaries made during this request (possibly anchored on earlier turns' rounds). */
	readonly summaries?: readonly StoredSummary[];
	readonly doneLedger?: DoneLedger;
}

/**
 * The record to store for one request: plain JSON, no `undefined` fields. A summary carried
 * by one of `rounds` is moved into `summaries` (unless already listed), so each summary is
 * stored exactly once. Tool results are cut to `maxResultChars` (see {@link cutForStorage}).
 */
export function encodeTurnRecord(input: TurnRecordInput, maxResultChars = STORED_RESULT_MAX_CHARS): TurnRecord {
	const summaries: StoredSummary[] = (input.summaries ?? []).map(s => ({ roundId: s.roundId, text: s.text }));
	const listed = new Set(summaries.map(s => s.roundId));
	const rounds = input.rounds.map(round => {
		if (round.summary !== undefined && !listed.has(round.id)) {
			summaries.push({ roundId: round.id, text: round.summary });
		}
		return plainRound(cutForStorage(round, maxResultChars));
	});
	return {
		schemaVersion: TURN_RECORD_VERSION,
		rounds,
		...(input.maxToolCallsExceeded ? { maxToolCallsExceeded: true } : {}),
		...(input.cancelled ? { cancelled: true } : {}),
		...(input.refused ? { refused: true } : {}),
		summaries,
		// Through JSON so the stored value is plain data without undefined fields.
		...(input.doneLedger ? { doneLedger: JSON.parse(JSON.stringify(input.doneLedger)) as DoneLedger } : {}),
	};
}

function plainRound(round: Round): Round {
	return {
		id: round.id,
		response: round.response,
		...(round.thinking !== undefined ? { thinking: round.thinking } : {}),
		toolCalls: round.toolCalls.map((c): ToolCall =>
			c.result === undefined ? { id: c.id, name: c.name, arguments: c.arguments } : { id: c.id, name: c.name, arguments: c.arguments, result: c.result },
		),
	};
}

/**
 * The round with every tool result longer than `maxResultChars` cut to at most that many
 * characters: head and tail kept, a marker in the middle saying how much was left out.
 * The same object when nothing is cut.
 */
export function cutForStorage(round: Round, maxResultChars = STORED_RESULT_MAX_CHARS): Round {
	if (!round.toolCalls.some(c => c.result !== undefined && c.result.length > maxResultChars)) {
		return round;
	}
	return {
		...round,
		toolCalls: round.toolCalls.map(c =>
			c.result !== undefined && c.result.length > maxResultChars ? { ...c, result: cutResult(c.result, maxResultChars) } : c,
		),
	};
}

export function storageMarker(cutChars: number): string {
	return `[... ${cutChars} characters of this tool result were not stored in the chat history ...]`;
}

function cutResult(text: string, max: number): string {
	return cutMiddle(text, max, { marker: storageMarker, markerInside: true });
}

/**
 * Reads one stored record. Unknown version or a non-object: no record. A bad round, call or
 * summary is reported (kind and path such as `rounds[3].toolCalls[0].id`) and left out.
 */
export function decodeTurnRecord(raw: unknown): { record?: TurnRecord; errors: MetadataIssue[] } {
	const errors: DecodeIssue[] = [];
	const r = readObject(errors, raw, '', 'a turn record');
	if (!r) return { errors };
	const version = (raw as { schemaVersion?: unknown }).schemaVersion;
	if (version === undefined) {
		return { errors: [{ kind: 'missing-field', path: 'schemaVersion', message: 'missing (expected 1)' }] };
	}
	if (version !== TURN_RECORD_VERSION) {
		return {
			errors: [
				{ kind: 'unknown-version', path: 'schemaVersion', message: `unknown version ${JSON.stringify(version)} (this build reads ${TURN_RECORD_VERSION})` },
			],
		};
	}

	const rounds: Round[] = [];
	const seen = new Set<string>();
	(r.array('rounds') ?? []).forEach((rawRound, i) => {
		const path = join('rounds', i);
		const round = decodeRound(errors, rawRound, path);
		if (!round) return;
		if (seen.has(round.id)) {
			errors.push({ kind: 'duplicate-id', path: join(path, 'id'), message: `duplicate round id "${round.id}", round skipped` });
			return;
		}
		seen.add(round.id);
		rounds.push(round);
	});

	const summaries: StoredSummary[] = [];
	(r.array('summaries') ?? []).forEach((rawSummary, i) => {
		const s = readObject(errors, rawSummary, join('summaries', i), 'a summary');
		if (!s) return;
		const before = errors.length;
		const roundId = s.string('roundId');
		const text = s.string('text');
		if (errors.length === before) summaries.push({ roundId: roundId!, text: text! });
	});

	const maxToolCallsExceeded = r.optionalBoolean('maxToolCallsExceeded');
	const cancelled = r.optionalBoolean('cancelled');
	const refused = r.optionalBoolean('refused');
	// A bad ledger is reported and left out; the agent then rebuilds it from the rounds.
	let doneLedger: DoneLedger | undefined;
	if (r.has('doneLedger')) {
		const decoded = decodeDoneLedger((raw as { doneLedger?: unknown }).doneLedger, 'doneLedger');
		if (decoded.issue) errors.push(decoded.issue);
		doneLedger = decoded.ledger;
	}
	return {
		record: {
			schemaVersion: TURN_RECORD_VERSION,
			rounds,
			...(maxToolCallsExceeded ? { maxToolCallsExceeded } : {}),
			...(cancelled ? { cancelled } : {}),
			...(refused ? { refused } : {}),
			summaries,
			...(doneLedger ? { doneLedger } : {}),
		},
		errors,
	};
}

/**
 * The conversation of a chat session: one turn per history entry (its user message and the
 * rounds of its record), every stored summary attached to its round wherever that round is
 * (summaries made in a later request often anchor on an earlier turn's round). Entries
 * without a record become turns without rounds. Never throws.
 */
export function rebuildConversation(
	history: ReadonlyArray<{ readonly user: string; readonly metadata: unknown }>,
	activeRounds: readonly Round[] = [],
): {
	conversation: Conversation;
	issues: MetadataIssue[];
	/** The done-ledger stored with each history entry (undefined where none was stored or it was bad); see ledgerAtRequestStart. */
	doneLedgers: (DoneLedger | undefined)[];
} {
	const issues: MetadataIssue[] = [];
	const turnRounds: Round[][] = [];
	const records: (TurnRecord | undefined)[] = [];
	const where = new Map<string, { turn: number; round: number }>();

	history.forEach((entry, turnIndex) => {
		const prefix = `history[${turnIndex}].metadata.${METADATA_KEY}`;
		const stored = typeof entry.metadata === 'object' && entry.metadata !== null ? (entry.metadata as Record<string, unknown>)[METADATA_KEY] : undefined;
		let record: TurnRecord | undefined;
		if (stored === undefined) {
			issues.push({ kind: 'missing-field', path: prefix, message: 'no Longhaul record (the turn is kept without rounds)', turnIndex });
		} else {
			const decoded = decodeTurnRecord(stored);
			record = decoded.record;
			for (const e of decoded.errors) {
				issues.push({ ...e, path: e.path ? `${prefix}.${e.path}` : prefix, turnIndex });
			}
		}
		records.push(record);
		const rounds = (record?.rounds ?? []).slice();
		rounds.forEach((round, roundIndex) => {
			if (where.has(round.id)) {
				const path = `${prefix}.rounds[${roundIndex}].id`;
				issues.push({ kind: 'duplicate-id', path, message: `round id "${round.id}" also used in an earlier turn; summaries anchor on the first`, turnIndex });
			} else {
				where.set(round.id, { turn: turnIndex, round: roundIndex });
			}
		});
		turnRounds.push(rounds);
	});

	records.forEach((record, turnIndex) => {
		record?.summaries.forEach((summary, i) => {
			const at = where.get(summary.roundId);
			if (!at) {
				const path = `history[${turnIndex}].metadata.${METADATA_KEY}.summaries[${i}].roundId`;
				issues.push({ kind: 'unknown-round', path, message: `no stored round has id "${summary.roundId}"; summary ignored`, turnIndex });
				return;
			}
			const rounds = turnRounds[at.turn];
			rounds[at.round] = { ...rounds[at.round], summary: summary.text };
		});
	});

	const turns: Turn[] = history.map((entry, i) => {
		const record = records[i];
		return {
			user: record?.refused ? refusedRequestText(entry.user) : entry.user,
			rounds: turnRounds[i],
			...(record?.maxToolCallsExceeded ? { maxToolCallsExceeded: true } : {}),
			...(record?.cancelled ? { cancelled: true } : {}),
		};
	});
	return { conversation: { turns, activeRounds }, issues, doneLedgers: records.map(record => record?.doneLedger) };
}

/** How much of a refused request is replayed in later prompts. */
export const REFUSED_REQUEST_MAX_CHARS = 2000;

/**
 * A request the model's window could not hold stays in the conversation, but shortened with a
 * note: replayed whole, it would make every later request in the chat fail the same way.
 */
export function refusedRequestText(user: string): string {
	if (user.length <= REFUSED_REQUEST_MAX_CHARS) {
		return user;
	}
	return `${user.slice(0, REFUSED_REQUEST_MAX_CHARS)}\n[… ${user.length - REFUSED_REQUEST_MAX_CHARS} more characters left out: this request was too large for the model's context window and was not answered.]`;
}
