// Render timings of the agent and summarizer prompts for a 200-round conversation at a 64k budget.
// Run: node esbuild.mjs --tests && node out/bench/render/benchRender.js   (ROUNDS=800 for another size)
// 'cold' is the first render with a fresh tokenizer cache; 'warm' re-renders the same prompt,
// as every agent step does. 'over' means the render threw BudgetExceededError (time included).
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { TiktokenTokenizer } from '../../src/common/tokens/tokenizer';
import { isBudgetExceededError, renderAgentPrompt, renderSummarizerPrompt } from '../../src/prompts/render';
import type { AgentPromptProps } from '../../src/prompts/agentPrompt';

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const BUDGET = 64_000;
const RUNS = 7;

function words(seed: number, count: number): string {
	const vocabulary = [
		'parser',
		'token',
		'src/index.ts',
		'function',
		'returns',
		'error',
		'value',
		'the',
		'test',
		'build',
		'config',
		'render',
		'=>',
		'{',
		'}',
		'await',
		'const',
	];
	return Array.from({ length: count }, (_, i) => vocabulary[(seed * 31 + i * 17) % vocabulary.length]).join(' ');
}

function makeRound(i: number, resultChars: number): Round {
	const result = Array.from(
		{ length: Math.ceil(resultChars / 60) },
		(_, line) => `${String(line + 1).padStart(4)}: r${i} ${words(i + line, 8)} #${(i * 131 + line * 7) % 9973}`,
	)
		.join('\n')
		.slice(0, resultChars);
	return {
		id: `r${i}`,
		response: `Step ${i}: ${words(i, 30)}`,
		toolCalls: [{ id: `c${i}`, name: 'readFile', arguments: JSON.stringify({ path: `src/file${i % 40}.ts`, startLine: i, endLine: i + 40 }), result }],
	};
}

function makeConversation(resultChars: number, summaryAt?: number): Conversation {
	const rounds = Array.from({ length: ROUNDS }, (_, i) => makeRound(i, resultChars));
	if (summaryAt !== undefined) {
		rounds[summaryAt] = { ...rounds[summaryAt], summary: words(7, 1500) };
	}
	// Turns of 20 rounds each; the last one is the request in progress.
	const turns = Array.from({ length: Math.ceil(ROUNDS / 20) }, (_, t) => ({
		user: `request ${t}: ${words(t, 20)}`,
		rounds: rounds.slice(t * 20, t * 20 + 20),
	}));
	return { turns: turns.slice(0, -1), activeRounds: turns[turns.length - 1].rounds };
}

function props(conversation: Conversation): AgentPromptProps {
	return {
		conversation,
		request: 'continue',
		references: [],
		toolNames: ['readFile', 'editFile', 'runCommand'],
		workspace: 'Workspace folder: /work/demo',
		maxToolResultTokens: 8_000,
	};
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

async function time(label: string, tokenizer: TiktokenTokenizer, run: () => Promise<string>): Promise<void> {
	const cold = performance.now();
	const first = await run();
	const coldMs = performance.now() - cold;
	const warm: number[] = [];
	for (let i = 0; i < RUNS; i++) {
		const start = performance.now();
		await run();
		warm.push(performance.now() - start);
	}
	const s = tokenizer.stats();
	console.log(
		`${label.padEnd(50)} cold ${coldMs.toFixed(1).padStart(7)} ms   warm median ${median(warm).toFixed(1).padStart(6)} ms   ${first}   [tokenized ${s.tokenizedChars} chars, hits ${s.cacheHits}, misses ${s.cacheMisses}]`,
	);
}

async function main(): Promise<void> {
	const init = performance.now();
	new TiktokenTokenizer().countTokens('warm up');
	console.log(`o200k_base encoder build: ${(performance.now() - init).toFixed(0)} ms (once per process)\n`);

	const fits = makeConversation(400);
	const over = makeConversation(1_600);
	const anchor = Math.floor(ROUNDS * 0.75) - 1;
	const summarized = makeConversation(1_600, anchor);

	for (const [label, conversation] of [
		[`${ROUNDS} rounds, 400-char results`, fits],
		[`${ROUNDS} rounds, 1,600-char results`, over],
		[`${ROUNDS} rounds, 1,600-char, summary at ${anchor + 1}`, summarized],
	] as const) {
		const tokenizer = new TiktokenTokenizer();
		await time(`agent: ${label}`, tokenizer, async () => {
			try {
				const r = await renderAgentPrompt(props(conversation), { tokenizer, budget: BUDGET });
				return `${r.messages.length} messages, ${r.tokenCount} tokens`;
			} catch (error) {
				if (!isBudgetExceededError(error)) throw error;
				return `BudgetExceededError at ${(error as { tokenCount?: number }).tokenCount} tokens`;
			}
		});
	}

	// Every round of the conversation, each turn's user message ahead of its rounds.
	const entries = [...over.turns, { user: 'continue', rounds: over.activeRounds }].flatMap(t => [
		{ kind: 'user' as const, text: t.user },
		...t.rounds.map(round => ({ kind: 'round' as const, round })),
	]);
	for (const mode of ['full', 'simple'] as const) {
		const tokenizer = new TiktokenTokenizer();
		await time(`summarizer ${mode}: ${entries.length} entries`, tokenizer, async () => {
			try {
				const r = await renderSummarizerPrompt({ mode, rounds: entries, previousSummary: words(3, 1500) }, { tokenizer, budget: 200_000 });
				return `${r.tokenCount} tokens`;
			} catch (error) {
				if (!isBudgetExceededError(error)) throw error;
				return 'over budget';
			}
		});
	}
}

main().catch(error => {
	console.error(error);
	process.exitCode = 1;
});
