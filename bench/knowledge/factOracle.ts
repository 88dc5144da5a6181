// The knowledge probe's fact oracle: what an agent that lived a recorded session knows it has
// done, derived from the recorded rounds by the benchmark's own rules, independent of the
// done-ledger (src/common/ledger is not used here), so the ledger can be graded against it.
// Facts: every user request; every file read (a read tool, the editor's view, or a shell line
// that reads a named file, shellFacts.ts); every file changed (an edit tool whose result is not
// an error, or a shell line that writes a named file); every command that runs something (not a
// line that only looks at files or writes one with a redirection: those are its read and changed
// facts) with the status of its latest run as the tool result reports it (commandStatus.ts). Each fact keeps the calls that
// show it (for a command, the runs with its latest status), so a prompt that shows one of them
// with its result shows the fact.
import type { Round, ToolCall } from '../../src/common/conversation/conversation';
import { commandStatus, type CommandStatus } from './commandStatus';
import { normalPath, shellFiles } from './shellFacts';

export type FactKind = 'request' | 'read' | 'changed' | 'command';

/** A call of a recorded round: the round's id and the call's index in it. */
export interface CallRef {
	readonly roundId: string;
	readonly call: number;
}

export interface Fact {
	readonly kind: FactKind;
	/** The request's text, the file's path (as written, without `./`), or the command's text. */
	readonly text: string;
	/** Commands: the status of the latest run. */
	readonly status?: CommandStatus;
	/** The calls that show the fact (none for a request). */
	readonly calls: readonly CallRef[];
}

/** What one call says by itself: the files it read and changed, and the command it ran. */
export interface CallFacts {
	readonly reads: readonly string[];
	readonly changes: readonly string[];
	readonly command?: { readonly text: string; readonly status: CommandStatus };
}

const PATH_KEYS = ['path', 'filePath', 'file_path', 'file', 'filename'];
const EDIT_COMMANDS = new Set(['create', 'str_replace', 'insert', 'undo_edit', 'write', 'append']);

function parseArguments(text: string): Record<string, unknown> {
	try {
		const parsed: unknown = JSON.parse(text);
		return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
	} catch {
		return {};
	}
}

function pathArgument(args: Record<string, unknown>): string | undefined {
	for (const key of PATH_KEYS) if (typeof args[key] === 'string' && args[key] !== '') return normalPath(args[key]);
	return undefined;
}

/** A result that says the tool did nothing (an editor's `ERROR:`, the agent's `Error: …`). */
const failedResult = (result: string | undefined) => result === undefined || /^\s*error\b/i.test(result);

const isEditorTool = (name: string) => /edit|write|create|replace|insert/i.test(name) && !/read|view/i.test(name);
const isReadTool = (name: string) => /read|view|open/i.test(name);

/** The command line of a shell call (a `command` argument of a tool that is not an editor), or undefined. */
export function shellLine(call: ToolCall): string | undefined {
	const command = parseArguments(call.arguments).command;
	return typeof command === 'string' && !/editor/i.test(call.name) && !isEditorTool(call.name) ? command.trim() : undefined;
}

/** The facts of one call, by tool: a shell (a `command` argument), an editor (str_replace_editor), an edit tool or a read tool. */
export function callFacts(call: ToolCall): CallFacts {
	const args = parseArguments(call.arguments);
	const path = pathArgument(args);
	const sub = typeof args.command === 'string' ? args.command : undefined;
	if (/editor/i.test(call.name) && path) {
		if (sub === 'view') return { reads: [path], changes: [] };
		return { reads: [], changes: sub !== undefined && EDIT_COMMANDS.has(sub) && !failedResult(call.result) ? [path] : [] };
	}
	if (sub !== undefined && !isEditorTool(call.name)) {
		const { reads, changes, runs } = shellFiles(sub);
		return { reads, changes, ...(runs ? { command: { text: sub.trim(), status: commandStatus(call.result) } } : {}) };
	}
	if (path && isEditorTool(call.name)) return { reads: [], changes: failedResult(call.result) ? [] : [path] };
	if (path && isReadTool(call.name)) return { reads: [path], changes: [] };
	return { reads: [], changes: [] };
}

/** The oracle over a session as it is lived: requests and rounds are added in order. */
export interface FactOracle {
	addRequest(text: string): void;
	addRound(round: Round): void;
	/** Every fact so far, oldest first. */
	facts(): readonly Fact[];
}

export function factOracle(): FactOracle {
	const facts = new Map<string, Fact>();
	const add = (kind: FactKind, text: string, ref?: CallRef, status?: CommandStatus) => {
		const key = `${kind}\u0000${text}`;
		const old = facts.get(key);
		const sameStatus = !old || old.status?.text === status?.text;
		const calls = [...(old && sameStatus ? old.calls : []), ...(ref ? [ref] : [])];
		facts.set(key, { kind, text, calls, ...(status ? { status } : {}) });
	};
	return {
		addRequest: text => add('request', text),
		addRound: round => {
			round.toolCalls.forEach((call, i) => {
				const ref = { roundId: round.id, call: i };
				const found = callFacts(call);
				found.reads.forEach(path => add('read', path, ref));
				found.changes.forEach(path => add('changed', path, ref));
				if (found.command && found.command.text !== '') add('command', found.command.text, ref, found.command.status);
			});
		},
		facts: () => [...facts.values()],
	};
}
