// Token size of a round, counted part by part. The renderer counts each response, argument
// string and tool result on its own, so a caching counter (tokenizer.ts) already knows these
// strings: summing them costs cache lookups. Counting a joined string instead (roundText) is a
// guaranteed cache miss that re-encodes the whole round every time.
import type { Round } from '../conversation/conversation';

/** Tokens of the round's response, thinking, and each call's name, arguments and result (without message framing). */
export function roundTokens(round: Round, countTokens: (text: string) => number): number {
	let tokens = countTokens(round.response);
	if (round.thinking) {
		tokens += countTokens(round.thinking);
	}
	for (const call of round.toolCalls) {
		tokens += countTokens(call.name) + countTokens(call.arguments) + (call.result === undefined ? 0 : countTokens(call.result));
	}
	return tokens;
}
