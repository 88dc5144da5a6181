// Harder copies of a recorded session (`--variants`), for what the corpus does not hold: tool
// outputs far larger than the agents' own 10,000-character cut, and an agent that writes whole
// files through its tool calls. The recording itself is not changed; each variant is derived in
// memory, deterministically, with its own name:
//   NAME+long-outputs   every seventh round's results replaced by a 240,000-character test log
//   NAME+large-writes   every ninth round's call arguments replaced by a heredoc of about 7k tokens
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import type { Session } from './session';

export const VARIANTS = ['long-outputs', 'large-writes'] as const;
export type VariantName = (typeof VARIANTS)[number];

/** A log of `lines` numbered lines, varied enough that a tokenizer cannot fold it into a few tokens. */
function testLog(seed: number, lines: number): string {
	const out: string[] = [];
	for (let i = 0; i < lines; i++) {
		const n = (seed * 7919 + i * 104729) % 100000;
		out.push(
			i % 17 === 5
				? `FAILED tests/unit/test_module_${n % 97}.py::test_case_${n} - AssertionError: expected ${n} got ${n + 1}`
				: `tests/unit/test_module_${n % 97}.py::test_case_${n} PASSED [${Math.floor((i * 100) / lines)}%]`,
		);
	}
	return out.join('\n');
}

/** A shell heredoc that writes a Python module of `functions` functions. */
function largeWrite(seed: number, functions: number): string {
	const body: string[] = [];
	for (let i = 0; i < functions; i++) body.push(`def step_${seed}_${i}(value):\n    return value * ${i + 1} + ${seed}\n`);
	return JSON.stringify({ command: `cat > generated_${seed}.py <<'EOF'\n${body.join('\n')}EOF` });
}

function mapRounds(conversation: Conversation, change: (round: Round, index: number) => Round): Conversation {
	let index = 0;
	return {
		turns: conversation.turns.map(turn => ({ ...turn, rounds: turn.rounds.map(round => change(round, index++)) })),
		activeRounds: conversation.activeRounds.map(round => change(round, index++)),
	};
}

export function sessionVariant(session: Session, variant: VariantName): Session {
	const conversation =
		variant === 'long-outputs'
			? mapRounds(session.conversation, (round, i) =>
					i % 7 === 3 ? { ...round, toolCalls: round.toolCalls.map((call, c) => ({ ...call, result: testLog(i * 10 + c, 2_600) })) } : round,
				)
			: mapRounds(session.conversation, (round, i) =>
					i % 9 === 4 ? { ...round, toolCalls: round.toolCalls.map((call, c) => ({ ...call, arguments: largeWrite(i * 10 + c, 320) })) } : round,
				);
	return { name: `${session.name}+${variant}`, conversation };
}
