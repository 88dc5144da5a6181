// Issue 38: in a real VS Code, which registers its own run_in_terminal, task and edit tools, every
// command and edit the agent makes goes through Longhaul's protections (docs/decisions.md, 45).
// Through the agent loop: the scripted model asks for a command by the name it was OFFERED (read
// from the request it received), the test presses Allow as a user would, and then looks at what
// happened on the host. Run in VS Code alone (npm run test:integration) and with the Copilot-like
// fixture (test/fixtures/copilot-tools) registering copilot_runInTerminal, copilot_replaceString and
// copilot_createFile (npm run test:copilot-tools).
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ScriptedReply, ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { resetSession, sendChatAllowingTools, setHandler, withSetting } from './helpers';
import { delay, isSummarizerRequest, toolResults, workspaceRoot } from './faultScript';
import { recordFaultResult } from './faultResults';

/** Every tool name that runs a shell command the model writes, whoever registers it. */
const COMMAND_RUNNERS = ['longhaul_runCommand', 'run_in_terminal', 'copilot_runInTerminal'];
/** Every tool name that writes a file the model names. */
const FILE_EDITORS = ['longhaul_editFile', 'replace_string_in_file', 'copilot_replaceString', 'copilot_createFile', 'create_file', 'vscode_editFile_internal'];
/** Tools VS Code 1.139 registers that run something (a task, tests, terminal input, another agent). */
const OTHER_RUNNERS = ['send_to_terminal', 'run_task', 'create_and_run_task', 'runTests', 'runSubagent'];

/**
 * The other tools VS Code 1.139 registers (as listed in this host), each checked: none runs a
 * command or writes a file the model names. A tool offered that is not here is new: decide in
 * src/common/tools/runnerChoice.ts whether it runs or edits, then add it.
 */
const REVIEWED_NOT_RUNNING = [
	'vscode_listCodeUsages',
	'vscode_searchExtensions_internal',
	'inline_chat_exit',
	'vscode_get_terminal_confirmation',
	'get_terminal_output',
	'kill_terminal',
	'terminal_selection',
	'terminal_last_command',
	'get_task_output',
	'renderMermaidDiagram',
	'vscode_askQuestions',
	'vscode_reviewPlan',
	'manage_todo_list',
	'vscode_get_confirmation',
	'vscode_get_confirmation_with_options',
	'vscode_get_modified_files_confirmation',
	'task_complete',
	'testFailure',
	// The scripted-model fixture's own.
	'scripted_wait',
	'replay_tool',
];

interface Turn {
	readonly offered: readonly string[];
	readonly results: readonly { callId: string; text: string }[];
}

/**
 * One chat request: the model picks a tool among those it was offered with `pick`, calls it with
 * the input `input` builds for that name, then answers. Allow is pressed on every confirmation.
 */
async function agentTurn(pick: (offered: readonly string[]) => string, input: (name: string) => object, id: string): Promise<Turn> {
	const agentRequests: ScriptedRequest[] = [];
	await setHandler((request): ScriptedReply => {
		if (isSummarizerRequest(request)) return { text: 'summary' };
		agentRequests.push(request);
		if (agentRequests.length > 1) return { text: `Done (${id}).` };
		const name = pick(request.tools);
		return { text: 'Step.', toolCalls: [{ callId: `${id}-0`, name, input: input(name) }] };
	});
	// Allow on every confirmation, as the user would.
	const handled = await sendChatAllowingTools(`@longhaul run something (${id})`, { timeoutMs: 45_000 });
	assert.strictEqual(handled.errorMessage, undefined, `got error: ${handled.errorMessage}`);
	assert.ok(agentRequests.length >= 2, 'the model should get the tool result back');
	return { offered: agentRequests[0].tools, results: toolResults(agentRequests[agentRequests.length - 1]) };
}

/** The command tool the model was offered: exactly one. */
function theRunner(offered: readonly string[]): string {
	const runners = offered.filter(name => COMMAND_RUNNERS.includes(name));
	assert.strictEqual(runners.length, 1, `one command tool should be offered, got ${runners.join(', ') || 'none'} of ${offered.join(', ')}`);
	return runners[0];
}

/** The input each runner takes for `command`. */
const commandInput = (command: string) => (name: string) =>
	name === 'longhaul_runCommand' ? { command } : { command, explanation: 'test', isBackground: false };

/** Whether this run installed the Copilot-like fixture (`npm run test:copilot-tools`). */
const copilotTools = () => vscode.lm.tools.some(t => t.name === 'copilot_runInTerminal');

async function copilotToolCalls(): Promise<string[]> {
	return copilotTools() ? ((await vscode.commands.executeCommand<string[]>('longhaulTest.copilotToolCalls')) ?? []) : [];
}

describe('Runner choice: commands and edits through Longhaul in a real VS Code', function () {
	this.timeout(90_000);
	const tag = `longhaul-runner-${process.pid}`;
	const outsideTmp = path.join(os.tmpdir(), `${tag}-tmp`);
	const outsideHome = path.join(os.homedir(), `${tag}-home`);
	const inside = () => path.join(workspaceRoot(), `${tag}-inside.txt`);
	const escape = () => `echo ran > ${tag}-inside.txt; echo escaped > ${outsideTmp}; echo escaped > ${outsideHome}; true`;
	const clean = () => {
		for (const file of [outsideTmp, outsideHome, inside()]) fs.rmSync(file, { force: true });
	};

	before(function () {
		try {
			execFileSync('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', '--unshare-net', '--proc', '/proc', '--dev', '/dev', 'true']);
		} catch {
			this.skip(); // no sandbox can start: the unit tests of chooseRunner cover that choice
		}
	});
	beforeEach(async () => {
		clean();
		await resetSession();
		await vscode.commands.executeCommand('workbench.action.chat.resetTrustedTools');
	});
	afterEach(clean);

	it("VS Code 1.139 registers run_in_terminal; the agent is offered Longhaul's runner, and its command cannot write outside the workspace", async () => {
		assert.ok(
			vscode.lm.tools.some(t => t.name === 'run_in_terminal'),
			`VS Code should register run_in_terminal: ${vscode.lm.tools.map(t => t.name).join(', ')}`,
		);
		const turn = await agentTurn(theRunner, commandInput(escape()), 'vscode');
		assert.strictEqual(theRunner(turn.offered), 'longhaul_runCommand');
		for (const other of OTHER_RUNNERS) assert.ok(!turn.offered.includes(other), `${other} runs things outside the sandbox and must not be offered`);
		const unreviewed = turn.offered.filter(name => !name.startsWith('longhaul_') && !REVIEWED_NOT_RUNNING.includes(name));
		assert.deepStrictEqual(unreviewed, [], 'tools offered that nobody checked for running commands or writing files');
		assert.deepStrictEqual(
			turn.offered.filter(name => FILE_EDITORS.includes(name)),
			['longhaul_editFile'],
		);
		assert.ok(fs.existsSync(inside()), `the command should have run: ${turn.results[0]?.text}`);
		assert.ok(!fs.existsSync(outsideTmp), `${outsideTmp} written: the command ran unsandboxed`);
		assert.ok(!fs.existsSync(outsideHome), `${outsideHome} written: the command ran unsandboxed`);
		recordFaultResult({
			id: 'S-runner-vscode',
			fault: "VS Code 1.139's run_in_terminal registered; the model runs a command that writes to the host's temp folder and home",
			test: 'runnerChoice.test.ts',
			survived: true,
			requestsLost: 0,
			writesOutside: 0,
			detail: `offered longhaul_runCommand only (of ${turn.offered.length} tools); the command ran in the workspace, nothing written to ${os.tmpdir()} or ~`,
		});
	});

	it('with a Copilot-like extension registering copilot_* tools, the agent still gets only Longhaul’s runner and editor', async function () {
		if (!copilotTools()) this.skip(); // npm run test:copilot-tools installs it
		const turn = await agentTurn(theRunner, commandInput(escape()), 'copilot');
		assert.strictEqual(theRunner(turn.offered), 'longhaul_runCommand');
		assert.deepStrictEqual(
			turn.offered.filter(name => FILE_EDITORS.includes(name)),
			['longhaul_editFile'],
		);
		assert.ok(fs.existsSync(inside()), `the command should have run: ${turn.results[0]?.text}`);
		assert.ok(!fs.existsSync(outsideTmp) && !fs.existsSync(outsideHome), 'the command ran unsandboxed');
		assert.deepStrictEqual(await copilotToolCalls(), [], 'no copilot_* tool may run');
	});

	it('an edit of .vscode/settings.json through the offered editor asks Longhaul’s second question; closed, nothing is written', async () => {
		const settings = path.join(workspaceRoot(), '.vscode', 'settings.json');
		const existed = fs.existsSync(settings);
		const original = existed ? fs.readFileSync(settings, 'utf8') : undefined;
		fs.mkdirSync(path.dirname(settings), { recursive: true });
		fs.writeFileSync(settings, '{\n\t"editor.tabSize": 4\n}\n');
		let asked = false;
		const opened = vscode.workspace.onDidOpenTextDocument(d => {
			if (d.uri.scheme === 'longhaul-change') asked = true;
		});
		// Closes Longhaul's own question (the quick pick no setting answers) as soon as it shows.
		let stop = false;
		const closing = (async () => {
			while (!stop) {
				if (asked) await vscode.commands.executeCommand('workbench.action.closeQuickOpen').then(undefined, () => undefined);
				await delay(300);
			}
		})();
		try {
			const turn = await agentTurn(
				offered => {
					const editors = offered.filter(name => FILE_EDITORS.includes(name));
					assert.deepStrictEqual(editors, ['longhaul_editFile'], `the offered editors: ${editors.join(', ')}`);
					return editors[0];
				},
				() => ({ path: '.vscode/settings.json', oldText: '"editor.tabSize": 4', newText: '"editor.tabSize": 4, "git.path": "/tmp/evil"' }),
				'gate',
			);
			assert.ok(asked, 'Longhaul should ask again, with the change shown');
			assert.match(turn.results[0]?.text ?? '', /Not written: .*configures code that runs/);
			assert.strictEqual(fs.readFileSync(settings, 'utf8'), '{\n\t"editor.tabSize": 4\n}\n');
			assert.deepStrictEqual(await copilotToolCalls(), []);
		} finally {
			stop = true;
			await closing;
			opened.dispose();
			if (original === undefined) fs.rmSync(settings, { force: true });
			else fs.writeFileSync(settings, original);
		}
	});

	it('required: no tool that runs things outside the sandbox is offered, and a command by another name runs nowhere', async () => {
		await withSetting('commandSandbox', 'required', async () => {
			// The model tries VS Code's terminal by name, though it was not offered.
			const turn = await agentTurn(() => 'run_in_terminal', commandInput(escape()), 'required');
			for (const name of [...COMMAND_RUNNERS, ...OTHER_RUNNERS, 'scripted_wait'].filter(n => n !== 'longhaul_runCommand')) {
				assert.ok(!turn.offered.includes(name), `${name} must not be offered under required: ${turn.offered.join(', ')}`);
			}
			assert.ok(turn.offered.includes('longhaul_runCommand'));
			assert.match(turn.results[0]?.text ?? '', /no tool named run_in_terminal/);
			assert.ok(!fs.existsSync(inside()) && !fs.existsSync(outsideTmp) && !fs.existsSync(outsideHome), 'nothing may run');
			// And by the offered name it runs sandboxed.
			const offeredTurn = await agentTurn(theRunner, commandInput(escape()), 'required-offered');
			assert.ok(fs.existsSync(inside()), `the command should have run: ${offeredTurn.results[0]?.text}`);
			assert.ok(!fs.existsSync(outsideTmp) && !fs.existsSync(outsideHome), 'the command ran unsandboxed');
		});
	});

	it("off: VS Code's own terminal tool is offered instead of Longhaul's, as documented", async () => {
		await withSetting('commandSandbox', 'off', async () => {
			const turn = await agentTurn(
				offered => offered.find(name => name === 'manage_todo_list') ?? 'longhaul_readFile',
				name => (name === 'longhaul_readFile' ? { path: 'package.json' } : { todoList: [] }),
				'off',
			);
			assert.strictEqual(theRunner(turn.offered), 'run_in_terminal');
			assert.deepStrictEqual(
				turn.offered.filter(name => FILE_EDITORS.includes(name)),
				['longhaul_editFile'],
			);
		});
	});

	it('a workspace .vscode/settings.json that sets commandSandbox off and commandNetwork all changes nothing: sandboxed, no network', async () => {
		const settings = path.join(workspaceRoot(), '.vscode', 'settings.json');
		const existed = fs.existsSync(settings);
		const original = existed ? fs.readFileSync(settings, 'utf8') : undefined;
		const server = http.createServer((_, res) => res.end('host listener reached'));
		await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
		const port = (server.address() as { port: number }).port;
		try {
			fs.mkdirSync(path.dirname(settings), { recursive: true });
			const changed = new Promise<void>(resolve => {
				const sub = vscode.workspace.onDidChangeConfiguration(() => {
					sub.dispose();
					resolve();
				});
			});
			fs.writeFileSync(settings, JSON.stringify({ 'longhaul.commandSandbox': 'off', 'longhaul.commandNetwork': 'all' }, null, '\t'));
			await Promise.race([changed, delay(5_000)]);
			await delay(500);
			const config = vscode.workspace.getConfiguration('longhaul');
			assert.strictEqual(config.get('commandSandbox'), 'auto', 'VS Code should ignore a machine-scoped setting in a workspace');
			assert.strictEqual(config.get('commandNetwork'), 'off');
			const fetch = `${process.execPath} -e "require('http').get('http://127.0.0.1:${port}',r=>{r.on('data',d=>process.stdout.write(String(d)))}).on('error',e=>console.log('NO NETWORK',e.code))"`;
			const turn = await agentTurn(theRunner, commandInput(`${escape()}; ${fetch}`), 'workspace');
			assert.strictEqual(theRunner(turn.offered), 'longhaul_runCommand', 'the workspace turned the sandbox off: VS Code’s terminal was offered');
			const result = turn.results[0]?.text ?? '';
			assert.ok(fs.existsSync(inside()), `the command should have run: ${result}`);
			assert.ok(!fs.existsSync(outsideTmp) && !fs.existsSync(outsideHome), 'the command ran unsandboxed');
			assert.doesNotMatch(result, /host listener reached/);
			assert.match(result, /NO NETWORK/);
			recordFaultResult({
				id: 'S-workspace-settings',
				fault: 'a workspace .vscode/settings.json sets longhaul.commandSandbox off and longhaul.commandNetwork all',
				test: 'runnerChoice.test.ts',
				survived: true,
				requestsLost: 0,
				writesOutside: 0,
				detail: "both ignored: Longhaul's runner offered, the command sandboxed, the host's 127.0.0.1 listener unreachable",
			});
		} finally {
			server.close();
			if (original === undefined) fs.rmSync(settings, { force: true });
			else fs.writeFileSync(settings, original);
		}
	});
});
