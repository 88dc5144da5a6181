// Longhaul's own tools: names as the model sees them, and whether they change anything.

export const TOOL = {
	readFile: 'longhaul_readFile',
	listDirectory: 'longhaul_listDirectory',
	findFiles: 'longhaul_findFiles',
	searchText: 'longhaul_searchText',
	editFile: 'longhaul_editFile',
	runCommand: 'longhaul_runCommand',
} as const;

export type LonghaulToolName = (typeof TOOL)[keyof typeof TOOL];

/** Tools that write files or run programs: confirmed by the user, never offered in an untrusted workspace. */
export const WRITING_TOOLS: ReadonlySet<string> = new Set([TOOL.editFile, TOOL.runCommand]);

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
};
