// Longhaul's own tools: names as the model sees them, and whether they change anything.
import { RECALL_TOOL_NAME } from '../common/recall/recallInput';

export const TOOL = {
	readFile: 'longhaul_readFile',
	listDirectory: 'longhaul_listDirectory',
	findFiles: 'longhaul_findFiles',
	searchText: 'longhaul_searchText',
	editFile: 'longhaul_editFile',
	runCommand: 'longhaul_runCommand',
	recall: RECALL_TOOL_NAME,
} as const;

export type LonghaulToolName = (typeof TOOL)[keyof typeof TOOL];

/**
 * Tools other extensions register that do the same job as one of ours. When one of these is
 * registered, Longhaul offers it instead of its own, so the model does not see two tools for one job.
 */
export const EQUIVALENT_TOOLS: Readonly<Record<LonghaulToolName, readonly string[]>> = {
	[TOOL.readFile]: ['copilot_readFile', 'read_file'],
	[TOOL.listDirectory]: ['copilot_listDirectory', 'list_dir'],
	[TOOL.findFiles]: ['copilot_findFiles', 'file_search'],
	[TOOL.searchText]: ['copilot_findTextInFiles', 'grep_search'],
	[TOOL.editFile]: ['copilot_replaceString', 'replace_string_in_file'],
	[TOOL.runCommand]: ['copilot_runInTerminal', 'run_in_terminal'],
	[TOOL.recall]: [],
};

/**
 * The only tools offered in an untrusted workspace (restricted mode): Longhaul's read-only tools
 * and the read-only tools that replace them. An allowlist, because other extensions' tools do not
 * reliably say whether they write or run (VS Code's own run_in_terminal carries no such tag).
 */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(
	[TOOL.readFile, TOOL.listDirectory, TOOL.findFiles, TOOL.searchText, TOOL.recall].flatMap(name => [name, ...EQUIVALENT_TOOLS[name]]),
);
