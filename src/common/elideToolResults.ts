// The last resort when no summary could be made: free space deterministically by
// replacing the results of the oldest visible tool calls with a short marker.
import type { Conversation, Round, ToolCall } from './conversation';
import { flattenRounds, newestSummaryIndex } from './flatten';

export const ELIDED_PREFIX = '[tool result removed to fit the context window';

export function elisionMarker(call: ToolCall, tokens: number): string {
	return `${ELIDED_PREFIX}: ${call.name} returned about ${tokens} tokens; run it again if you need it]`;
}

export interface ElisionResult {
	readonly conversation: Conversation;
	readonly elidedCalls: number;
	readonly shedTokens: number;
}

/**
 * Elides tool results oldest first, among the rounds the prompt shows verbatim, until at least
 * `tokensToShed` tokens are freed. The newest round is never touched: it is what the model is
 * working on. The input is not mutated; untouched turns and rounds are shared.
 */
export function elideOldestToolResults(conversation: Conversation, tokensToShed: number, countTokens: (text: string) => number): ElisionResult {
	const flat = flattenRounds(conversation);
	const firstVisible = newestSummaryIndex(flat) + 1;
	const replaced = new Map<Round, Round>();
	let shed = 0;
	let elided = 0;
	for (let i = firstVisible; i < flat.length - 1 && shed < tokensToShed; i++) {
		const round = flat[i].round;
		let changed = false;
		const calls = round.toolCalls.map(call => {
			if (shed >= tokensToShed || call.result === undefined || call.result.startsWith(ELIDED_PREFIX)) {
				return call;
			}
			const tokens = countTokens(call.result);
			const marker = elisionMarker(call, tokens);
			const saved = tokens - countTokens(marker);
			if (saved <= 0) {
				return call;
			}
			shed += saved;
			elided++;
			changed = true;
			return { ...call, result: marker };
		});
		if (changed) {
			replaced.set(round, { ...round, toolCalls: calls });
		}
	}
	if (replaced.size === 0) {
		return { conversation, elidedCalls: 0, shedTokens: 0 };
	}
	const swap = (rounds: readonly Round[]) => (rounds.some(r => replaced.has(r)) ? rounds.map(r => replaced.get(r) ?? r) : rounds);
	return {
		conversation: {
			turns: conversation.turns.map(turn => {
				const rounds = swap(turn.rounds);
				return rounds === turn.rounds ? turn : { ...turn, rounds };
			}),
			activeRounds: swap(conversation.activeRounds),
		},
		elidedCalls: elided,
		shedTokens: shed,
	};
}
