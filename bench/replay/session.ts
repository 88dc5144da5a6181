// Session files (the shape of shared/corpus/*.json) prepared for a replay at one window.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { computeBudget, toolResultBudget, type PromptBudget } from '../../src/common/tokens/budget';
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { conversationFromSessionJson } from '../../src/common/persistence/corpusFormat';
import type { TextTokenizer } from '../../src/common/tokens/tokenizer';
import { cutToTokens } from '../../src/common/shrinking/cutText';
import { RECALL_TOOL_NAME } from '../../src/common/recall/recallInput';

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

/**
 * The tool the replayed agent is offered: one `bash`-like definition (the corpus agents had a
 * single bash tool, or bash plus an editor). Its tokens are charged to every request the way the
 * product charges its tool definitions (`toolDefinitionsText`: the JSON of each definition).
 */
export const BENCH_TOOL = {
	name: 'bash',
	description: 'Run a shell command in the workspace and return its output (stdout and stderr).',
	inputSchema: { type: 'object', properties: { command: { type: 'string', description: 'The shell command line.' } }, required: ['command'] },
};

/**
 * longhaul_recall as the product declares it (package.json, its model description from
 * package.nls.json). The product charges it to the budget from the first request and offers it
 * (and names it in the instructions) once something is summarized (toolSelection.ts); the
 * benchmark does the same, so its prompts change when the product's do.
 */
export const RECALL_TOOL = (() => {
	const root = repositoryRoot();
	const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
	const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8'));
	const declared = (manifest.contributes.languageModelTools as { name: string; modelDescription: string; inputSchema: object }[]).find(
		t => t.name === RECALL_TOOL_NAME,
	)!;
	const description = declared.modelDescription.replace(/^%(.+)%$/, (_, key: string) => (nls as Record<string, string>)[key]);
	return { name: declared.name, description, inputSchema: declared.inputSchema };
})();

/** The folder of Longhaul's package.json, from wherever this file was compiled to (out/bench/replay, out/test/...). */
function repositoryRoot(): string {
	for (let dir = __dirname; ; dir = dirname(dir)) {
		const file = join(dir, 'package.json');
		if (existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).name === 'longhaul') return dir;
		if (dirname(dir) === dir) throw new Error(`no Longhaul package.json above ${__dirname}`);
	}
}

/** What every request is charged for tool definitions, as the product counts them (the JSON of each, one a line). */
export function benchToolTokens(tokenizer: TextTokenizer): number {
	return tokenizer.countTokens([BENCH_TOOL, RECALL_TOOL].map(t => JSON.stringify(t)).join('\n'));
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
