// Session files (the shape of shared/corpus/*.json) prepared for a replay at one window.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { computeBudget, toolResultBudget, type PromptBudget } from '../../src/common/tokens/budget';
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { conversationFromSessionJson } from '../../src/common/persistence/corpusFormat';
import type { TextTokenizer } from '../../src/common/tokens/tokenizer';
import { cutToTokens } from '../../src/common/text/cutText';
import { catalogueTokens, productCatalogue } from './toolCharge';

export interface Session {
	readonly name: string;
	readonly conversation: Conversation;
}

export function loadSession(file: string): Session {
	const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
	const conversation = conversationFromSessionJson(raw);
	if (conversation.activeRounds.length) {
		// A recording is replayed from its first request; rounds still in progress are the last turn's.
		return {
			name: sessionName(file),
			conversation: { turns: [...conversation.turns, { user: '(request in progress)', rounds: conversation.activeRounds }], activeRounds: [] },
		};
	}
	return { name: sessionName(file), conversation };
}

/**
 * The day-long chat (`--concat`): every session, in the order given, as consecutive turns of one
 * conversation named `concat`. Round and call ids get a per-session prefix, so ids stay unique
 * across sessions (session files reuse `t0r0`, `call_0`, …).
 */
export function concatSessions(sessions: readonly Session[]): Session {
	const turns = sessions.flatMap((session, s) =>
		session.conversation.turns.map(turn => ({
			...turn,
			rounds: turn.rounds.map(round => ({
				...round,
				id: `s${s}-${round.id}`,
				toolCalls: round.toolCalls.map(call => ({ ...call, id: `s${s}-${call.id}` })),
			})),
		})),
	);
	return { name: 'concat', conversation: { turns, activeRounds: [] } };
}

export function sessionName(file: string): string {
	return basename(file).replace(/\.json$/, '');
}

/** What every request is charged for tool definitions: the product's catalogue, as the agent counts it (toolCharge.ts). */
export function benchToolTokens(tokenizer: TextTokenizer): number {
	return catalogueTokens(productCatalogue(), tokenizer);
}

/** `ratio`: the model's tokens per local token the budget is scaled by (src/common/tokens/calibration.ts). */
export function benchBudget(window: number, tokenizer: TextTokenizer, ratio = 1): PromptBudget {
	return computeBudget(window, benchToolTokens(tokenizer), ratio);
}

/** The recording as the product would have stored it at this budget (results capped). */
export function capSession(conversation: Conversation, budget: PromptBudget, tokenizer: TextTokenizer): Conversation {
	const cap = toolResultBudget(budget);
	const capRound = (round: Round): Round => {
		if (!round.toolCalls.some(c => c.result !== undefined && tokenizer.countTokens(c.result) > cap)) {
			return round;
		}
		return {
			...round,
			toolCalls: round.toolCalls.map(c => (c.result === undefined ? c : { ...c, result: cutToTokens(c.result, cap, text => tokenizer.countTokens(text)) })),
		};
	};
	return {
		turns: conversation.turns.map(t => ({ ...t, rounds: t.rounds.map(capRound) })),
		activeRounds: conversation.activeRounds.map(capRound),
	};
}
