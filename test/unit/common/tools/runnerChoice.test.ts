import * as assert from 'node:assert/strict';
import { chooseRunner, COMMAND_TOOLS, EDIT_TOOLS, type RunnerInputs } from '../../../../src/common/tools/runnerChoice';

/** What VS Code 1.139 (code-server 4.139.1) registers with Longhaul and the scripted-model fixture, as listed in the test host. */
const VSCODE_1139 = [
	'setup_tools_createNewWorkspace',
	'vscode_listCodeUsages',
	'vscode_renameSymbol',
	'get_terminal_output',
	'kill_terminal',
	'send_to_terminal',
	'terminal_selection',
	'run_task',
	'get_task_output',
	'create_and_run_task',
	'longhaul_readFile',
	'longhaul_editFile',
	'longhaul_runCommand',
	'longhaul_recall',
	'run_in_terminal',
	'vscode_editFile_internal',
	'manage_todo_list',
	'runSubagent',
	'runTests',
];
/** What GitHub Copilot Chat adds. */
const COPILOT = [
	'copilot_runInTerminal',
	'copilot_replaceString',
	'copilot_multiReplaceString',
	'copilot_createFile',
	'copilot_applyPatch',
	'copilot_readFile',
	'my_mcp_shell',
];

const inputs = (over: Partial<RunnerInputs>): RunnerInputs => ({
	registered: VSCODE_1139,
	sandbox: 'auto',
	sandboxCanStart: true,
	trusted: true,
	vscodeSandbox: false,
	...over,
});
const offered = (i: RunnerInputs) => {
	const { withheld } = chooseRunner(i);
	return i.registered.filter(name => !withheld.has(name));
};
const runsCommands = (names: readonly string[]) => names.filter(n => COMMAND_TOOLS.has(n) || n === 'longhaul_runCommand');
const edits = (names: readonly string[]) => names.filter(n => EDIT_TOOLS.has(n) || n === 'longhaul_editFile');

describe('chooseRunner: which tool runs the agent’s commands and edits its files (decision 45)', () => {
	for (const registered of [VSCODE_1139, [...VSCODE_1139, ...COPILOT]]) {
		const setup = registered === VSCODE_1139 ? 'VS Code' : 'VS Code and Copilot';
		it(`${setup}, auto with a sandbox: Longhaul's sandbox is the only runner, Longhaul's edit tool the only editor`, () => {
			const i = inputs({ registered });
			assert.equal(chooseRunner(i).runner, 'sandbox');
			assert.deepEqual(runsCommands(offered(i)), ['longhaul_runCommand']);
			assert.deepEqual(edits(offered(i)), ['longhaul_editFile']);
		});

		it(`${setup}, required: only Longhaul's runner, and no tool Longhaul does not know (it may run anything)`, () => {
			for (const sandboxCanStart of [true, false]) {
				const i = inputs({ registered, sandbox: 'required', sandboxCanStart, vscodeSandbox: true });
				assert.equal(chooseRunner(i).runner, sandboxCanStart ? 'sandbox' : 'refuse');
				assert.deepEqual(runsCommands(offered(i)), ['longhaul_runCommand']);
				assert.ok(!offered(i).includes('my_mcp_shell'));
				assert.ok(!offered(i).includes('kill_terminal'));
				assert.ok(offered(i).includes('manage_todo_list') && offered(i).includes('longhaul_readFile'));
			}
		});

		it(`${setup}, off: VS Code's terminal runs commands; Longhaul's runner is withheld, edits stay Longhaul's`, () => {
			const i = inputs({ registered, sandbox: 'off', sandboxCanStart: false });
			assert.equal(chooseRunner(i).runner, 'vscode');
			// One terminal tool, VS Code's own, not Copilot's as well.
			assert.deepEqual(
				runsCommands(offered(i)).filter(n => n.includes('unInTerminal') || n === 'run_in_terminal'),
				['run_in_terminal'],
			);
			assert.ok(!offered(i).includes('longhaul_runCommand'));
			assert.deepEqual(edits(offered(i)), ['longhaul_editFile']);
		});
	}

	it("auto without a sandbox: Longhaul runs commands unsandboxed (its notice and warnings), unless VS Code's own sandbox is on", () => {
		const without = inputs({ sandboxCanStart: false });
		assert.equal(chooseRunner(without).runner, 'unsandboxed');
		assert.deepEqual(runsCommands(offered(without)), ['longhaul_runCommand']);
		const vscodeOn = inputs({ sandboxCanStart: false, vscodeSandbox: true });
		assert.equal(chooseRunner(vscodeOn).runner, 'vscode-sandbox');
		assert.ok(offered(vscodeOn).includes('run_in_terminal') && !offered(vscodeOn).includes('longhaul_runCommand'));
		// Longhaul's sandbox wins when both can contain the command.
		assert.equal(chooseRunner(inputs({ vscodeSandbox: true })).runner, 'sandbox');
	});

	it("without VS Code's terminal tool (an older VS Code), off and auto fall back to Longhaul's runner", () => {
		const registered = VSCODE_1139.filter(n => n !== 'run_in_terminal');
		assert.equal(chooseRunner(inputs({ registered, sandbox: 'off' })).runner, 'unsandboxed');
		assert.equal(chooseRunner(inputs({ registered, sandboxCanStart: false, vscodeSandbox: true })).runner, 'unsandboxed');
	});

	it('an untrusted workspace has no runner (the read-only allowlist applies instead)', () => {
		assert.equal(chooseRunner(inputs({ trusted: false })).runner, 'none');
	});
});
