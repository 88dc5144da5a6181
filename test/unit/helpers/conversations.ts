// Small builders for test conversations. Round ids follow the CLI defaults:
// `t<turn>r<round>` for past turns and `a<round>` for the request in progress.
import type { Conversation, Round, Turn } from '../../../src/common/conversation/conversation';
import { flattenRounds } from '../../../src/common/conversation/flatten';
import { updateRounds, withSummary } from '../../../src/common/summaries/applySummary';

export function makeRound(id: string, extra: Partial<Round> = {}): Round {
	return {
		id,
		response: `response of ${id}`,
		toolCalls: [{ id: `call-${id}`, name: 'readFile', arguments: `{"path":"${id}.ts"}`, result: `contents of ${id}` }],
		...extra,
	};
}

export interface TurnSpec {
	readonly rounds: number;
	readonly user?: string;
	readonly maxToolCallsExceeded?: boolean;
	readonly cancelled?: boolean;
}

export interface ConversationSpec {
	/** One entry per past turn: its round count, or a TurnSpec. */
	readonly turns?: ReadonlyArray<number | TurnSpec>;
	/** Rounds of the request in progress. */
	readonly active?: number;
	/** Summaries to attach, by round id. */
	readonly summaries?: Readonly<Record<string, string>>;
}

export function makeConversation(spec: ConversationSpec): Conversation {
	const summaries = spec.summaries ?? {};
	const withSummary = (id: string): Round => (summaries[id] !== undefined ? makeRound(id, { summary: summaries[id] }) : makeRound(id));
	const turns: Turn[] = (spec.turns ?? []).map((t, i) => {
		const s: TurnSpec = typeof t === 'number' ? { rounds: t } : t;
		return {
			user: s.user ?? `request ${i}`,
			rounds: Array.from({ length: s.rounds }, (_, r) => withSummary(`t${i}r${r}`)),
			...(s.maxToolCallsExceeded ? { maxToolCallsExceeded: true } : {}),
			...(s.cancelled ? { cancelled: true } : {}),
		};
	});
	const activeRounds = Array.from({ length: spec.active ?? 0 }, (_, r) => withSummary(`a${r}`));
	return { turns, activeRounds };
}

export function allRoundIds(conversation: Conversation): string[] {
	return flattenRounds(conversation).map(f => f.round.id);
}

/** Freezes every object reachable from `value`, so any mutation throws in strict code or is caught by a snapshot. */
export function deepFreeze<T>(value: T): T {
	if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
		Object.freeze(value);
		for (const key of Object.keys(value)) {
			deepFreeze((value as Record<string, unknown>)[key]);
		}
	}
	return value;
}

/** The summary `summaryText` on round `anchorRoundId`, as one block: a conversation summarized by hand for a test. */
export function applySummary(conversation: Conversation, anchorRoundId: string, summaryText: string): Conversation {
	return updateRounds(conversation, new Map([[anchorRoundId, (round: Round) => withSummary(round, summaryText)]]));
}
