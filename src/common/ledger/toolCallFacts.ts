// What one tool call did, read from its name, its arguments and its result text only (never
// from the model's prose; a command's outcome only from its tool's own status line, see
// commandOutcome.ts): the facts the done-ledger records. One table per tool family:
// Longhaul's own tools, the common VS Code / Copilot tools, the OpenHands / SWE-agent tools of
// the session corpus, and shell tools (whose command lines go through shellCommand.ts). Any
// other tool becomes a generic fact: its name and a short digest of its arguments.
import type { ToolCall } from '../conversation/conversation';
import { shellEffects } from '../shell/shellCommand';
import { commandOutcome } from './commandOutcome';

export type ToolFact =
	| { readonly kind: 'read'; readonly path: string }
	| { readonly kind: 'search'; readonly digest: string }
	| { readonly kind: 'edit'; readonly path: string; readonly created: boolean; readonly failed: boolean }
	| { readonly kind: 'command'; readonly command: string; readonly outcome: string; readonly failed: boolean }
	| { readonly kind: 'plan'; readonly tool: string; readonly text: string }
	| { readonly kind: 'other'; readonly tool: string; readonly digest: string };

/** Longest command text kept in a fact. */
export const COMMAND_MAX_CHARS = 200;
const DIGEST_MAX_CHARS = 60;
const PLAN_MAX_CHARS = 1500;

type Args = Record<string, unknown>;

const READ_TOOLS = new Set(['longhaul_readfile', 'read_file', 'copilot_readfile', 'readfile', 'read', 'view_file', 'open_file']);
const LIST_TOOLS = new Set(['longhaul_listdirectory', 'list_dir', 'copilot_listdirectory', 'list_directory', 'ls']);
const FIND_TOOLS = new Set(['longhaul_findfiles', 'file_search', 'copilot_findfiles', 'find_file', 'glob']);
const SEARCH_TOOLS = new Set([
	'longhaul_searchtext',
	'grep_search',
	'copilot_findtextinfiles',
	'semantic_search',
	'copilot_searchcodebase',
	'codebase_search',
	'search_dir',
	'search_file',
	'grep',
]);
const EDIT_TOOLS = new Set([
	'longhaul_editfile',
	'replace_string_in_file',
	'copilot_replacestring',
	'insert_edit_into_file',
	'copilot_insertedit',
	'edit_file',
	'edit',
	'write',
	'write_file',
	'edit_notebook_file',
]);
const CREATE_TOOLS = new Set(['create_file', 'copilot_createfile']);
const MULTI_EDIT_TOOLS = new Set(['multi_replace_string_in_file', 'copilot_multireplacestring']);
const PATCH_TOOLS = new Set(['apply_patch', 'copilot_applypatch']);
const EDITOR_TOOLS = new Set(['str_replace_editor', 'str_replace_based_edit_tool']);
const SHELL_TOOLS = new Set([
	'longhaul_runcommand',
	'run_in_terminal',
	'copilot_runinterminal',
	'bash',
	'execute_bash',
	'shell',
	'run_shell_command',
	'run_command',
	'execute_command',
	'terminal',
]);
const PLAN_TOOLS = new Set(['manage_todo_list', 'copilot_managetodolist', 'todo_write', 'todowrite', 'update_plan']);

function parseArgs(text: string): Args | undefined {
	try {
		const value = JSON.parse(text) as unknown;
		return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Args) : undefined;
	} catch {
		return undefined;
	}
}

function str(args: Args | undefined, ...keys: string[]): string | undefined {
	for (const key of keys) {
		const v = args?.[key];
		if (typeof v === 'string' && v.trim() !== '') return v.trim();
	}
	return undefined;
}

function oneLine(text: string, max: number): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

/**
 * A command on one line within `max` characters, its middle cut when longer: two long commands
 * that start alike (several `python -c "import …"` runs) usually differ at their end, so keeping
 * the end keeps them apart in the ledger, where the command text is the key.
 */
function commandText(text: string, max: number): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	if (flat.length <= max) return flat;
	const tail = Math.floor((max - 1) / 3);
	return `${flat.slice(0, max - 1 - tail).trimEnd()}…${flat.slice(flat.length - tail).trimStart()}`;
}

/** A short, stable text for arguments: `key=value` of the scalar fields, or the raw text. */
export function argumentDigest(argsText: string, max = DIGEST_MAX_CHARS): string {
	const args = parseArgs(argsText);
	if (!args) return oneLine(argsText, max);
	const parts = Object.entries(args)
		.filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
		.map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(oneLine(v, 40)) : String(v)}`);
	return oneLine(parts.join(' '), max);
}

/** A failed call: the agent's own error text, or a tool's error answer. */
export function isErrorResult(result: string): boolean {
	return /^\s*(error\b|\[error\]|no replacement was performed)/i.test(result);
}

function shellFacts(tool: string, command: string, result: string | undefined): ToolFact[] {
	const effects = shellEffects(command);
	const facts: ToolFact[] = [];
	const { outcome, failed } = commandOutcome(tool, result);
	if (effects.inspectOnly) {
		if (effects.reads.length) facts.push(...effects.reads.map((path): ToolFact => ({ kind: 'read', path })));
		else facts.push({ kind: 'search', digest: oneLine(effects.normalized, DIGEST_MAX_CHARS + 20) });
		return facts;
	}
	// A line that also runs or writes: its reads are kept, and what it changed is recorded with the outcome.
	if (!failed) facts.push(...effects.reads.map((path): ToolFact => ({ kind: 'read', path })));
	for (const path of effects.writes) facts.push({ kind: 'edit', path, created: false, failed });
	// An edit a program made (`sed -i '12 i import x' f`, `tee`, `sort -o`) is also named as a
	// command: run again, it edits again (a second line inserted), and the file line does not say
	// which edit was made. A failed one (a `sed -i` that exited 1) too, so it is not tried again as
	// is. A file written by a redirection alone (`cat > f <<EOF`) is its file line.
	if (effects.runs || effects.writes.length === 0 || failed || effects.programWrites) {
		facts.push({ kind: 'command', command: commandText(effects.normalized, COMMAND_MAX_CHARS), outcome, failed });
	}
	return facts;
}

/** Files named in an apply_patch text (`*** Update File: path`, `--- a/path` / `+++ b/path`). */
function patchFiles(patch: string): { path: string; created: boolean }[] {
	const files = new Map<string, boolean>();
	for (const m of patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)) files.set(m[2].trim(), m[1] === 'Add');
	for (const m of patch.matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)) if (m[1] !== '/dev/null' && !files.has(m[1])) files.set(m[1], false);
	return [...files].map(([path, created]) => ({ path, created }));
}

function todoText(items: unknown): string | undefined {
	if (!Array.isArray(items)) return undefined;
	const lines = items.flatMap(item => {
		if (typeof item !== 'object' || item === null) return [];
		const o = item as Args;
		const title = str(o, 'title', 'content', 'step', 'text', 'description');
		if (!title) return [];
		const status = String(o.status ?? '');
		const mark = /complete|done/i.test(status) ? '[x]' : /progress/i.test(status) ? '[~]' : '[ ]';
		return [`${mark} ${oneLine(title, 160)}`];
	});
	if (!lines.length) return undefined;
	const text = lines.join('\n');
	return text.length <= PLAN_MAX_CHARS ? text : text.slice(0, PLAN_MAX_CHARS - 1) + '…';
}

/** The facts of one tool call. Never throws; unknown tools give one `other` fact. */
export function toolCallFacts(call: ToolCall): ToolFact[] {
	const name = call.name.toLowerCase();
	const args = parseArgs(call.arguments);
	const result = call.result;
	const failed = result === undefined || isErrorResult(result);
	const path = str(args, 'path', 'filePath', 'file_path', 'file', 'target_file', 'absolute_path');

	if (READ_TOOLS.has(name) && path) return failed ? [] : [{ kind: 'read', path }];
	if (LIST_TOOLS.has(name)) return [{ kind: 'search', digest: `list ${path ?? '.'}` }];
	if (FIND_TOOLS.has(name)) {
		return [{ kind: 'search', digest: `find ${oneLine(str(args, 'pattern', 'query', 'glob', 'file_name') ?? call.arguments, DIGEST_MAX_CHARS)}` }];
	}
	if (SEARCH_TOOLS.has(name)) {
		const where = str(args, 'include', 'includePattern', 'path', 'dir');
		return [
			{
				kind: 'search',
				digest: `search ${JSON.stringify(oneLine(str(args, 'query', 'pattern', 'search_term', 'regex') ?? call.arguments, DIGEST_MAX_CHARS))}${where ? ` in ${where}` : ''}`,
			},
		];
	}
	if ((EDIT_TOOLS.has(name) || CREATE_TOOLS.has(name)) && path) {
		// Longhaul's editFile creates a file when oldText is absent (its result says Created or Overwrote).
		const created = CREATE_TOOLS.has(name) || (name === 'longhaul_editfile' && args?.oldText === undefined && !/^Overwrote\b/.test(result ?? ''));
		return [{ kind: 'edit', path, created, failed }];
	}
	if (MULTI_EDIT_TOOLS.has(name) && Array.isArray(args?.replacements)) {
		const paths = [
			...new Set(
				args.replacements.flatMap(r => (typeof r === 'object' && r !== null ? [str(r as Args, 'filePath', 'path')] : [])).filter((p): p is string => !!p),
			),
		];
		return paths.map((p): ToolFact => ({ kind: 'edit', path: p, created: false, failed }));
	}
	if (PATCH_TOOLS.has(name)) {
		const files = patchFiles(str(args, 'input', 'patch') ?? call.arguments);
		if (files.length) return files.map((f): ToolFact => ({ kind: 'edit', path: f.path, created: f.created, failed }));
	}
	if (EDITOR_TOOLS.has(name) && path) {
		const command = str(args, 'command');
		if (command === 'view') {
			if (failed) return [];
			return /files and directories/i.test(result ?? '') ? [{ kind: 'search', digest: `list ${path}` }] : [{ kind: 'read', path }];
		}
		if (command === 'create' || command === 'str_replace' || command === 'insert' || command === 'undo_edit') {
			return [{ kind: 'edit', path, created: command === 'create', failed }];
		}
	}
	if (SHELL_TOOLS.has(name)) {
		const command = str(args, 'command', 'cmd', 'commandLine');
		if (command) return shellFacts(call.name, command, result);
	}
	if (PLAN_TOOLS.has(name)) {
		const text = todoText(args?.todoList ?? args?.todos ?? args?.plan);
		if (text) return [{ kind: 'plan', tool: call.name, text }];
	}
	return [{ kind: 'other', tool: call.name, digest: argumentDigest(call.arguments) }];
}
