// Reading a session file (the shape of shared/corpus/*.json) into a Conversation.
// Used by the `longhaul-plan` CLI and the replay benchmark. Strict: the first problem is
// an error that names the field, because a plan of a half-read file would mislead.
//
// Shape: { turns: [{ user, rounds: [Round], maxToolCallsExceeded?, cancelled? }], activeRounds?: [Round] }
// Round: { id?, response, thinking?, toolCalls: [{ id, name, arguments, result?, resultMissing? }], summary? }
// Other fields (source, license, task, system, userKind, ...) are ignored.
import type { Conversation, Round, Turn } from '../conversation/conversation';
import { decodeRound } from './roundDecoder';
import { formatIssue, join, readObject, type DecodeIssue } from '../text/jsonFields';

export class SessionFormatError extends Error {
	readonly code = 'invalid-session';
	constructor(readonly issue: DecodeIssue) {
		super(formatIssue(issue));
		this.name = 'SessionFormatError';
	}
}

/** Default id of round `round` of past turn `turn` (both 0-based). */
export function historyRoundId(turn: number, round: number): string {
	return `t${turn}r${round}`;
}

/** Default id of round `round` of the request in progress (0-based). */
export function activeRoundId(round: number): string {
	return `a${round}`;
}

/** Throws {@link SessionFormatError} naming the first bad field (e.g. `turns[0].rounds[3].toolCalls[0].id`). */
export function conversationFromSessionJson(raw: unknown): Conversation {
	const issues: DecodeIssue[] = [];
	const fail = (): never => {
		throw new SessionFormatError(issues[0]);
	};
	const top = readObject(issues, raw, '', 'a session') ?? fail();
	const rawTurns = top.array('turns') ?? fail();
	const rawActive = top.optionalArray('activeRounds') ?? (issues.length ? fail() : []);
	const ids = new Set<string>();

	const readRounds = (list: readonly unknown[], path: string, defaultId: (i: number) => string): Round[] =>
		list.map((rawRound, i) => {
			const roundPath = join(path, i);
			const round = decodeRound(issues, rawRound, roundPath, defaultId(i));
			if (!round || issues.length) fail();
			if (ids.has(round!.id)) {
				issues.push({ kind: 'duplicate-id', path: join(roundPath, 'id'), message: `duplicate round id "${round!.id}"` });
				fail();
			}
			ids.add(round!.id);
			return round!;
		});

	const turns = rawTurns.map((rawTurn, t): Turn => {
		const path = join('turns', t);
		const r = readObject(issues, rawTurn, path, 'a turn') ?? fail();
		const user = r.string('user');
		const list = r.array('rounds');
		const maxToolCallsExceeded = r.optionalBoolean('maxToolCallsExceeded');
		const cancelled = r.optionalBoolean('cancelled');
		if (issues.length) fail();
		return {
			user: user!,
			rounds: readRounds(list!, join(path, 'rounds'), i => historyRoundId(t, i)),
			...(maxToolCallsExceeded ? { maxToolCallsExceeded } : {}),
			...(cancelled ? { cancelled } : {}),
		};
	});
	const activeRounds = readRounds(rawActive, 'activeRounds', activeRoundId);
	return { turns, activeRounds };
}
