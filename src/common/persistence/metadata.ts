// Persistence: each chat response stores one TurnRecord in `ChatResult.metadata.longhaul`,
// and the conversation is rebuilt from those records when the next request starts.
// Reading never throws: a bad record, round, call or summary is reported and skipped.
import { cutMiddle } from '../text/cutText';
import type { Conversation, Round, ToolCall, Turn } from '../conversation/conversation';
import type { DoneLedger } from '../ledger/doneLedger';
import { decodeDoneLedger } from '../ledger/doneLedgerCodec';
import { flattenRounds } from '../conversation/flatten';
import { withSummary, withoutSummary, type StoredSummaryBlock } from '../summaries/applySummary';
import { decodeRound } from './roundDecoder';
import { isObject, join, readObject, type DecodeIssue } from '../text/jsonFields';

/** The key of our record inside `ChatResult.metadata`. */
export const METADATA_KEY = 'longhaul';
/**
 * 2: per-turn summary blocks (`summaryBlocks`). 1, written by Longhaul 0.1.0, is still read: its
 * `summaries` each absorbed everything before them and become blocks that span turns.
 */
export const TURN_RECORD_VERSION = 2;
export const LEGACY_TURN_RECORD_VERSION = 1;
/**
 * Tool results longer than this are cut (head and tail kept) before they are stored, so one
 * huge `run` output cannot bloat the chat session file VS Code keeps. The live request still
 * saw the full (budget-capped) result; later requests see the stored one.
 */
export const STORED_RESULT_MAX_CHARS = 16_000;

export interface TurnRecord {
	readonly schemaVersion: typeof TURN_RECORD_VERSION;
	/** The rounds of this request; stored without `summary` (summaries live in `summaries`). */
	readonly rounds: readonly Round[];
	readonly maxToolCallsExceeded?: boolean;
	readonly cancelled?: boolean;
	/** The request did not fit the model's window and was not answered (see {@link refusedRequestText}). */
	readonly refused?: boolean;
	/** Summary blocks made or condensed during this request, in the order they were made. */
	readonly summaryBlocks: readonly StoredSummaryBlock[];
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
	/** Summary blocks made or condensed during this request (possibly anchored on earlier turns' rounds). */
	readonly summaryBlocks?: readonly StoredSummaryBlock[];
	readonly doneLedger?: DoneLedger;
}

/** A block as plain JSON: flags only when set. */
function plainBlock(block: StoredSummaryBlock): StoredSummaryBlock {
	if (block.removed) return { roundId: block.roundId, text: '', removed: true };
	return {
		roundId: block.roundId,
		text: block.text,
		...(block.condensed ? { condensed: true } : {}),
		...(block.spansTurns ? { spansTurns: true } : {}),
		...(block.edited ? { edited: true } : {}),
		...(block.buildsOnEdit && !block.edited ? { buildsOnEdit: true } : {}),
	};
}

/** The block a round carries, as stored. */
function storedBlockOf(round: Round): StoredSummaryBlock {
	return plainBlock({
		roundId: round.id,
		text: round.summary ?? '',
		condensed: round.summaryCondensed,
		spansTurns: round.summarySpansTurns,
		edited: round.summaryEdited,
		buildsOnEdit: round.summaryBuildsOnEdit,
	});
}

/**
 * The summaries `after` carries that `before` does not (new blocks, blocks that absorbed an older
 * text of their turn, condensed blocks), oldest first: what a request stores of the summaries it
 * made. The agent compares the conversation before and after each fit and each /compact.
 */
export function summaryChanges(before: Conversation, after: Conversation): StoredSummaryBlock[] {
	const old = new Map<string, Round>();
	for (const at of flattenRounds(before)) if (at.round.summary !== undefined) old.set(at.round.id, at.round);
	const changes: StoredSummaryBlock[] = [];
	for (const at of flattenRounds(after)) {
		const round = at.round;
		if (round.summary === undefined || round.summaryProvisional) continue;
		const was = old.get(round.id);
		if (
			was &&
			was.summary === round.summary &&
			!was.summaryCondensed === !round.summaryCondensed &&
			!was.summarySpansTurns === !round.summarySpansTurns &&
			!was.summaryEdited === !round.summaryEdited &&
			!was.summaryBuildsOnEdit === !round.summaryBuildsOnEdit
		) {
			continue;
		}
		changes.push(storedBlockOf(round));
	}
	return changes;
}

/**
 * The record to store for one request: plain JSON, no `undefined` fields. A summary carried
 * by one of `rounds` is moved into `summaryBlocks` (unless a block on that round is listed), so
 * each block is stored exactly once. Tool results are cut to `maxResultChars` (see {@link cutForStorage}).
 */
export function encodeTurnRecord(input: TurnRecordInput, maxResultChars = STORED_RESULT_MAX_CHARS): TurnRecord {
	const summaryBlocks: StoredSummaryBlock[] = (input.summaryBlocks ?? []).map(plainBlock);
	const listed = new Set(summaryBlocks.map(s => s.roundId));
	const rounds = input.rounds.map(round => {
		// A provisional block (the bridge's set-aside) is never stored: the summary it stands for is.
		if (round.summary !== undefined && !round.summaryProvisional && !listed.has(round.id)) {
			summaryBlocks.push(storedBlockOf(round));
		}
		return plainRound(cutForStorage(round, maxResultChars));
	});
	return {
		schemaVersion: TURN_RECORD_VERSION,
		rounds,
		...(input.maxToolCallsExceeded ? { maxToolCallsExceeded: true } : {}),
		...(input.cancelled ? { cancelled: true } : {}),
		...(input.refused ? { refused: true } : {}),
		summaryBlocks,
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
			c.result === undefined
				? { id: c.id, name: c.name, arguments: c.arguments }
				: { id: c.id, name: c.name, arguments: c.arguments, result: c.result, ...(c.recorded !== undefined ? { recorded: c.recorded } : {}) },
		),
		// Kept across turns: the next request sends it back when its prompt up to this round is unchanged.
		...(round.providerState
			? {
					providerState: {
						model: round.providerState.model,
						prefix: round.providerState.prefix,
						parts: round.providerState.parts.map(p => ({ mimeType: p.mimeType, data: p.data })),
					},
				}
			: {}),
	};
}

/**
 * The round with every tool result longer than `maxResultChars` cut to at most that many
 * characters: head and tail kept, a marker in the middle saying how much was left out.
 * The same object when nothing is cut.
 */
export function cutForStorage(round: Round, maxResultChars = STORED_RESULT_MAX_CHARS): Round {
	const tooLong = (text: string | undefined) => text !== undefined && text.length > maxResultChars;
	if (!round.toolCalls.some(c => tooLong(c.result) || tooLong(c.recorded))) {
		return round;
	}
	return {
		...round,
		toolCalls: round.toolCalls.map(c =>
			tooLong(c.result) || tooLong(c.recorded)
				? {
						...c,
						...(tooLong(c.result) ? { result: cutResult(c.result!, maxResultChars) } : {}),
						...(tooLong(c.recorded) ? { recorded: cutResult(c.recorded!, maxResultChars) } : {}),
					}
				: c,
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
 * Reads one stored record, of schema 2 or 1 (Longhaul 0.1.0; returned in the shape of 2). Unknown
 * version or a non-object: no record. A bad round, call or summary is reported (kind and path such
 * as `rounds[3].toolCalls[0].id`) and left out.
 */
export function decodeTurnRecord(raw: unknown): { record?: TurnRecord; errors: MetadataIssue[] } {
	const errors: DecodeIssue[] = [];
	const r = readObject(errors, raw, '', 'a turn record');
	if (!r) return { errors };
	const version = (raw as { schemaVersion?: unknown }).schemaVersion;
	if (version === undefined) {
		return { errors: [{ kind: 'missing-field', path: 'schemaVersion', message: `missing (expected ${TURN_RECORD_VERSION})` }] };
	}
	if (version !== TURN_RECORD_VERSION && version !== LEGACY_TURN_RECORD_VERSION) {
		return {
			errors: [
				{
					kind: 'unknown-version',
					path: 'schemaVersion',
					message: `unknown version ${JSON.stringify(version)} (this build reads ${LEGACY_TURN_RECORD_VERSION} and ${TURN_RECORD_VERSION})`,
				},
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

	// Schema 1 stored `summaries`, each of which had absorbed everything before it.
	const legacy = version === LEGACY_TURN_RECORD_VERSION;
	const field = legacy ? 'summaries' : 'summaryBlocks';
	const summaryBlocks: StoredSummaryBlock[] = [];
	(r.array(field) ?? []).forEach((rawBlock, i) => {
		const s = readObject(errors, rawBlock, join(field, i), 'a summary');
		if (!s) return;
		const before = errors.length;
		const roundId = s.string('roundId');
		const text = s.string('text');
		const condensed = legacy ? undefined : s.optionalBoolean('condensed');
		const spansTurns = legacy ? true : s.optionalBoolean('spansTurns');
		const edited = legacy ? undefined : s.optionalBoolean('edited');
		const buildsOnEdit = legacy ? undefined : s.optionalBoolean('buildsOnEdit');
		const removed = legacy ? undefined : s.optionalBoolean('removed');
		if (errors.length === before) summaryBlocks.push(plainBlock({ roundId: roundId!, text: text!, condensed, spansTurns, edited, buildsOnEdit, removed }));
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
			summaryBlocks,
			...(doneLedger ? { doneLedger } : {}),
		},
		errors,
	};
}

/**
 * The conversation of a chat session: one turn per history entry (its user message and the
 * rounds of its record), every stored summary block attached to its round wherever that round is
 * (blocks made in a later request often anchor on an earlier turn's round; a later record's block
 * on the same round replaces an earlier one). Entries without a record become turns without
 * rounds. Never throws.
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
	const recordVersions: unknown[] = [];
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
		recordVersions.push(isObject(stored) ? stored.schemaVersion : undefined);
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
		record?.summaryBlocks.forEach((block, i) => {
			const at = where.get(block.roundId);
			if (!at) {
				const path = `history[${turnIndex}].metadata.${METADATA_KEY}.${recordVersions[turnIndex] === LEGACY_TURN_RECORD_VERSION ? 'summaries' : 'summaryBlocks'}[${i}].roundId`;
				issues.push({ kind: 'unknown-round', path, message: `no stored round has id "${block.roundId}"; summary ignored`, turnIndex });
				return;
			}
			const rounds = turnRounds[at.turn];
			rounds[at.round] = block.removed ? withoutSummary(rounds[at.round]) : withSummary(rounds[at.round], block.text, block);
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
