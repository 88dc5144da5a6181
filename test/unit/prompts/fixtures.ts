// Builders and readers for the prompt tests.
import { Raw } from '@vscode/prompt-tsx';
import type { Conversation, Round, ToolCall } from '../../../src/common/conversation/conversation';
import { TiktokenTokenizer } from '../../../src/common/tokens/tokenizer';
import type { AgentPromptProps } from '../../../src/prompts/agentPrompt';

/** One tokenizer for all prompt tests: building the encoder takes about half a second. */
export const tokenizer = new TiktokenTokenizer();

export function call(id: string, result = `result of ${id}`, name = 'readFile'): ToolCall {
	return { id, name, arguments: `{"path":"${id}.ts"}`, result };
}

/** A call that never got a result. */
export function interruptedCall(id: string, name = 'readFile'): ToolCall {
	return { id, name, arguments: `{"path":"${id}.ts"}` };
}

export function round(id: string, extra: Partial<Round> = {}): Round {
	return { id, response: `response of ${id}`, toolCalls: [call(`${id}-c0`)], ...extra };
}

/**
 * Past turns with `rounds[i]` rounds each (ids `t<i>r<j>`, user text `request <i>`), then
 * `active` rounds of the request in progress (ids `a<j>`). `summaries` attaches texts by round id.
 */
export function conversation(rounds: readonly number[], active: number, summaries: Record<string, string> = {}): Conversation {
	const make = (id: string) => round(id, summaries[id] !== undefined ? { summary: summaries[id] } : {});
	return {
		turns: rounds.map((count, t) => ({ user: `request ${t}`, rounds: Array.from({ length: count }, (_, r) => make(`t${t}r${r}`)) })),
		activeRounds: Array.from({ length: active }, (_, r) => make(`a${r}`)),
	};
}

export function agentProps(conv: Conversation, extra: Partial<AgentPromptProps> = {}): AgentPromptProps {
	return {
		conversation: conv,
		request: 'current request',
		references: [],
		toolNames: ['readFile', 'runCommand'],
		workspace: 'Workspace folder: /work/demo',
		maxToolResultTokens: 2_000,
		...extra,
	};
}

export function textOf(message: Raw.ChatMessage): string {
	return message.content.map(part => (part.type === Raw.ChatCompletionContentPartKind.Text ? part.text : '')).join('');
}

/** A compact picture of the messages: `system`, `user:<text>`, `assistant:<text>[ids]`, `tool:<id>=<text>`. */
export function outline(messages: readonly Raw.ChatMessage[]): string[] {
	return messages.map(m => {
		switch (m.role) {
			case Raw.ChatRole.System:
				return 'system';
			case Raw.ChatRole.User:
				return `user:${textOf(m)}`;
			case Raw.ChatRole.Assistant:
				return `assistant:${textOf(m)}[${(m.toolCalls ?? []).map(c => c.id).join(',')}]`;
			case Raw.ChatRole.Tool:
				return `tool:${m.toolCallId}=${textOf(m)}`;
		}
	});
}

/** The outline lines one verbatim round of {@link round} produces. */
export function roundOutline(id: string): string[] {
	return [`assistant:response of ${id}[${id}-c0]`, `tool:${id}-c0=result of ${id}-c0`];
}
