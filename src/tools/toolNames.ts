// Longhaul's own tools: names as the model sees them, and whether they change anything.
import { RECALL_TOOL_NAME } from '../common/recall/recallInput';
import { LONGHAUL_EDITOR, LONGHAUL_RUNNER } from '../common/tools/runnerChoice';

export const TOOL = {
	readFile: 'longhaul_readFile',
	listDirectory: 'longhaul_listDirectory',
	findFiles: 'longhaul_findFiles',
	searchText: 'longhaul_searchText',
	editFile: LONGHAUL_EDITOR,
	runCommand: LONGHAUL_RUNNER,
	recall: RECALL_TOOL_NAME,
} as const;

export type LonghaulToolName = (typeof TOOL)[keyof typeof TOOL];

/**
 * Tools other extensions register that do the same job as one of ours. When one of these is
 * registered, Longhaul offers it instead of its own, so the model does not see two tools for one job.
 * Only for reading: which tool runs commands and edits files is decided by chooseRunner
 * (src/common/tools/runnerChoice.ts, decision 45), since only Longhaul's go through its protections.
 */
export const EQUIVALENT_TOOLS: Readonly<Record<LonghaulToolName, readonly string[]>> = {
	[TOOL.readFile]: ['copilot_readFile', 'read_file'],
	[TOOL.listDirectory]: ['copilot_listDirectory', 'list_dir'],
	[TOOL.findFiles]: ['copilot_findFiles', 'file_search'],
	[TOOL.searchText]: ['copilot_findTextInFiles', 'grep_search'],
	[TOOL.editFile]: [],
	[TOOL.runCommand]: [],
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
