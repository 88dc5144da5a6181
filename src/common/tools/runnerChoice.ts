// Which tool runs the agent's commands and which tool edits its files (docs/decisions.md, 45).
// VS Code 1.139 registers its own terminal, task and edit tools, and GitHub Copilot Chat adds
// copilot_* ones; none of them goes through Longhaul's sandbox, its code-config gate or its
// lost-update check. So wherever Longhaul can contain a command (or must: `required`) its own tool
// is the only way to run one, and its edit tool is the only way to write a file.
// No vscode import: the agent passes the registered names and the settings in (src/agent/toolCatalog.ts).

export type SandboxSetting = 'auto' | 'required' | 'off';

/** Longhaul's tools that run a command and edit a file (the names in src/tools/toolNames.ts). */
export const LONGHAUL_RUNNER = 'longhaul_runCommand';
export const LONGHAUL_EDITOR = 'longhaul_editFile';

/** VS Code's and Copilot's tools that run a command the model writes in a terminal: the alternative runner, VS Code's first. */
export const TERMINAL_TOOLS: readonly string[] = ['run_in_terminal', 'copilot_runInTerminal'];

/**
 * Tools of VS Code (1.139, seen registered in the test host) and of Copilot Chat that run a
 * command, a task, tests, a notebook cell, a VS Code command, an extension or another agent: each
 * is a way to run something outside Longhaul's sandbox.
 */
export const COMMAND_TOOLS: ReadonlySet<string> = new Set([
	...TERMINAL_TOOLS,
	'send_to_terminal',
	'copilot_sendToTerminal',
	'run_task',
	'copilot_runVsCodeTask',
	'create_and_run_task',
	'copilot_createAndRunTask',
	'runTests',
	'copilot_runTests1',
	'copilot_runTests',
	'run_notebook_cell',
	'copilot_runNotebookCell',
	'run_vscode_command',
	'copilot_runVscodeCommand',
	'install_extension',
	'copilot_installExtension',
	// Runs another agent with VS Code's own tools, terminal included.
	'runSubagent',
	'copilot_runSubagent',
]);

/** Tools of VS Code and Copilot Chat that write files without Longhaul's gate and lost-update check. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set([
	'vscode_editFile_internal',
	'replace_string_in_file',
	'copilot_replaceString',
	'multi_replace_string_in_file',
	'copilot_multiReplaceString',
	'insert_edit_into_file',
	'copilot_insertEdit',
	'create_file',
	'copilot_createFile',
	'apply_patch',
	'copilot_applyPatch',
	'edit_notebook_file',
	'copilot_editNotebook',
	'edit_files',
	'copilot_editFiles',
	'create_new_jupyter_notebook',
	'copilot_createNewJupyterNotebook',
	'setup_tools_createNewWorkspace',
	'copilot_createNewWorkspace',
	'vscode_renameSymbol',
]);

/**
 * Who runs the agent's commands:
 * - `sandbox`: Longhaul, in its sandbox;
 * - `refuse`: Longhaul, which refuses every command and says why (`required` and no sandbox can start);
 * - `unsandboxed`: Longhaul, without a sandbox, after its notice (`auto`, no sandbox, VS Code's own off);
 * - `vscode-sandbox`: VS Code's terminal tool in VS Code's own sandbox (`auto`, no Longhaul sandbox);
 * - `vscode`: VS Code's (or Copilot's) terminal tool, uncontained (`off`);
 * - `none`: nothing runs commands (an untrusted workspace).
 */
export type Runner = 'sandbox' | 'refuse' | 'unsandboxed' | 'vscode-sandbox' | 'vscode' | 'none';

export interface RunnerInputs {
	/** Names of the tools registered with VS Code, in any order. */
	readonly registered: readonly string[];
	/** `longhaul.commandSandbox`, from user or remote settings only. */
	readonly sandbox: SandboxSetting;
	/** Whether Longhaul's sandbox starts here (asked only for `auto`; `required` refuses without it). */
	readonly sandboxCanStart: boolean;
	readonly trusted: boolean;
	/** VS Code's own agent sandbox for its terminal tool (`chat.agent.sandbox.enabled`) is on. */
	readonly vscodeSandbox: boolean;
}

export interface RunnerChoice {
	readonly runner: Runner;
	/** Registered tools not to offer to the model. */
	readonly withheld: ReadonlySet<string>;
}

/** The runner of the agent's commands and the tools withheld so that no other tool runs one or edits a file. */
export function chooseRunner(inputs: RunnerInputs): RunnerChoice {
	const { registered, sandbox } = inputs;
	if (!inputs.trusted) return { runner: 'none', withheld: new Set() }; // the read-only allowlist applies (toolNames.ts)
	// VS Code's own first: its sandbox wraps run_in_terminal. One terminal tool, not two for one job.
	const terminal = TERMINAL_TOOLS.find(name => registered.includes(name));
	const runner: Runner =
		sandbox === 'required'
			? inputs.sandboxCanStart
				? 'sandbox'
				: 'refuse'
			: sandbox === 'off'
				? terminal
					? 'vscode'
					: 'unsandboxed'
				: inputs.sandboxCanStart
					? 'sandbox'
					: terminal && inputs.vscodeSandbox
						? 'vscode-sandbox'
						: 'unsandboxed';
	const longhaulRuns = runner === 'sandbox' || runner === 'refuse' || runner === 'unsandboxed';
	const withheld = registered.filter(
		name =>
			EDIT_TOOLS.has(name) ||
			(longhaulRuns ? COMMAND_TOOLS.has(name) : name === LONGHAUL_RUNNER || (TERMINAL_TOOLS.includes(name) && name !== terminal)) ||
			// `required`: tools Longhaul does not know may run anything; only known ones are offered.
			(sandbox === 'required' && !isKnownNotRunning(name)),
	);
	return { runner, withheld: new Set(withheld) };
}

/**
 * Tools that are known not to run commands: Longhaul's own and VS Code's and Copilot's that read,
 * search, plan or ask. Under `required` nothing else is offered (an MCP server's tool may run anything).
 */
const KNOWN_NOT_RUNNING: ReadonlySet<string> = new Set([
	'read_file',
	'copilot_readFile',
	'list_dir',
	'copilot_listDirectory',
	'file_search',
	'copilot_findFiles',
	'grep_search',
	'copilot_findTextInFiles',
	'semantic_search',
	'copilot_searchCodebase',
	'get_errors',
	'copilot_getErrors',
	'manage_todo_list',
	'copilot_manageTodoList',
	'vscode_listCodeUsages',
	'copilot_listCodeUsages',
	'get_terminal_output',
	'copilot_getTerminalOutput',
	'terminal_selection',
	'terminal_last_command',
	'get_task_output',
	'testFailure',
	'copilot_testFailure',
	'vscode_askQuestions',
	'task_complete',
	'renderMermaidDiagram',
]);

function isKnownNotRunning(name: string): boolean {
	return (name.startsWith('longhaul_') && !EDIT_TOOLS.has(name)) || KNOWN_NOT_RUNNING.has(name);
}
