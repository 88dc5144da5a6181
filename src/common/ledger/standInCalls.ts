// Calls made through a stand-in tool: a tool that plays back (or carries out) another tool's call
// and takes that call as its input, `{ "tool": <name>, "arguments": <its arguments> }`. The
// scripted model's `replay_tool` is one: it plays recorded sessions in the demo and the tests, every
// recorded call going through it. The done-ledger and recall read such a call as the call it stands
// for, so a replayed session shows what the recorded one did (its commands, reads and edits) instead
// of one tool called a hundred times. The stored round keeps the call as it was made.
import type { ToolCall } from '../conversation/conversation';

/** Tools whose calls stand for another tool's call. */
export const STAND_IN_TOOLS: ReadonlySet<string> = new Set(['replay_tool']);

/** The call `call` stands for, or `call` itself when it is not made through a stand-in tool (or its input does not name one). */
export function standsFor(call: ToolCall): ToolCall {
	if (!STAND_IN_TOOLS.has(call.name)) return call;
	let input: unknown;
	try {
		input = JSON.parse(call.arguments);
	} catch {
		return call;
	}
	if (typeof input !== 'object' || input === null) return call;
	const { tool, arguments: args } = input as { tool?: unknown; arguments?: unknown };
	if (typeof tool !== 'string' || tool.trim() === '') return call;
	const text = typeof args === 'string' ? args : args === undefined ? '{}' : JSON.stringify(args);
	return { ...call, name: tool, arguments: text };
}
