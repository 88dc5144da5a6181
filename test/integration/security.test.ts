// Issue 6, security: Longhaul's file tools, called through vscode.lm.invokeTool exactly as the agent
// loop calls them, refuse paths outside the workspace ('..', absolute paths, symbolic links that
// lead out), and in a trusted workspace the writing tools are registered and offered.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { resetSession, sendChat, setHandler } from './helpers';
import { delay, removeDataFiles } from './faultScript';
import { DATA_DIR, agentScript, createDataFiles, toolResults, workspaceRoot } from './faultScript';

async function invoke(name: string, input: object): Promise<string> {
	const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token);
	return result.content.map(p => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

async function assertRefused(name: string, input: object, reason: RegExp): Promise<void> {
	await assert.rejects(
		invoke(name, input),
		(error: Error) => {
			assert.match(error.message, reason, `unexpected error for ${JSON.stringify(input)}`);
			return true;
		},
		`${name} should refuse ${JSON.stringify(input)}`,
	);
}

/** A directory outside the workspace with a secret file, and links to it from inside. */
let outside: string;
const SECRET = 'TOP-SECRET-OUTSIDE-THE-WORKSPACE';

function listTree(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap(e => (e.isDirectory() ? listTree(path.join(dir, e.name)).map(p => `${e.name}/${p}`) : [e.name]));
}

describe('Security: file tools stay inside the workspace', () => {
	let parentBefore: string[];
	let outsideBefore: string[];

	before(() => {
		createDataFiles();
		outside = fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-outside-'));
		fs.writeFileSync(path.join(outside, 'secret.txt'), SECRET);
		const data = path.join(workspaceRoot(), DATA_DIR);
		for (const link of ['link-dir', 'link-file.txt']) fs.rmSync(path.join(data, link), { force: true });
		fs.symlinkSync(outside, path.join(data, 'link-dir'), 'dir');
		fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(data, 'link-file.txt'), 'file');
		fs.writeFileSync(path.join(path.dirname(workspaceRoot()), 'outside.txt'), SECRET);
		parentBefore = fs.readdirSync(path.dirname(workspaceRoot())).sort();
		outsideBefore = listTree(outside).sort();
	});
	beforeEach(resetSession);

	after(() => {
		// Writes outside the workspace during the suite: none may appear next to it or in the outside folder.
		const parentAfter = fs.readdirSync(path.dirname(workspaceRoot())).sort();
		const written = listTree(outside).sort();
		fs.rmSync(path.join(path.dirname(workspaceRoot()), 'outside.txt'), { force: true });
		removeDataFiles();
		fs.rmSync(outside, { recursive: true, force: true });
		assert.deepStrictEqual(parentAfter, parentBefore, 'something was written next to the workspace');
		assert.deepStrictEqual(written, outsideBefore, 'something was written in the outside folder');
	});

	it('control: a file inside the workspace is read', async () => {
		const text = await invoke('longhaul_readFile', { path: `${DATA_DIR}/chunk-0.txt` });
		assert.match(text, /File 0 line 0/);
	});

	it('readFile refuses ../ paths', async () => {
		await assertRefused('longhaul_readFile', { path: '../outside.txt' }, /outside the workspace/);
		await assertRefused('longhaul_readFile', { path: `${DATA_DIR}/../../outside.txt` }, /outside the workspace/);
	});

	it('readFile refuses absolute paths outside the workspace (/etc/passwd)', async () => {
		await assertRefused('longhaul_readFile', { path: '/etc/passwd' }, /outside the workspace/);
		await assertRefused('longhaul_readFile', { path: path.join(outside, 'secret.txt') }, /outside the workspace/);
	});

	it('readFile refuses symbolic links inside the workspace that lead outside (to a file, to a folder)', async () => {
		await assertRefused('longhaul_readFile', { path: `${DATA_DIR}/link-file.txt` }, /symbolic link/);
		await assertRefused('longhaul_readFile', { path: `${DATA_DIR}/link-dir/secret.txt` }, /symbolic link/);
	});

	it('listDirectory refuses .. and symbolic links that lead outside', async () => {
		await assertRefused('longhaul_listDirectory', { path: '..' }, /outside the workspace/);
		await assertRefused('longhaul_listDirectory', { path: `${DATA_DIR}/link-dir` }, /symbolic link/);
	});

	it('a refused path reaches the model as an error result, without the secret, and the loop goes on', async function () {
		this.timeout(30_000);
		const paths = ['../outside.txt', '/etc/passwd', `${DATA_DIR}/link-file.txt`];
		const script = agentScript({ id: 'escape', toolCalls: paths.length, call: i => ({ name: 'longhaul_readFile', input: { path: paths[i] } }) });
		await setHandler(script.handler);
		const handled = await sendChat('@longhaul read files outside the workspace');
		assert.strictEqual(handled.errorMessage, undefined, `got error: ${handled.errorMessage}`);
		assert.match(handled.markdown, /Done \(escape\)\./);
		const last = script.agentRequests[script.agentRequests.length - 1];
		const results = toolResults(last).filter(r => r.callId.startsWith('escape-'));
		assert.strictEqual(results.length, paths.length);
		for (const result of results) {
			assert.match(result.text, /^Error: the tool longhaul_readFile failed: .*(outside the workspace|symbolic link)/);
			assert.ok(!result.text.includes(SECRET) && !result.text.includes('root:'), 'no outside content may reach the prompt');
		}
	});

	it('editFile, confirmed by the user, creates a file inside but refuses ../ and symlinked paths outside', async function () {
		this.timeout(30_000);
		const commands = await vscode.commands.getCommands(true);
		assert.ok(commands.includes('workbench.action.chat.acceptTool'), 'VS Code should have workbench.action.chat.acceptTool');
		const inside = `${DATA_DIR}/created-by-edit.txt`;
		fs.rmSync(path.join(workspaceRoot(), inside), { force: true });
		const targets = [inside, '../escape-by-edit.txt', `${DATA_DIR}/link-dir/escape-by-edit.txt`, path.join(outside, 'escape-abs.txt')];
		const script = agentScript({
			id: 'write',
			toolCalls: targets.length,
			call: i => ({ name: 'longhaul_editFile', input: { path: targets[i], newText: 'written by the security test\n' } }),
		});
		await setHandler(script.handler);
		let done = false;
		const pending = sendChat('@longhaul write some files', { timeoutMs: 25_000 }).finally(() => (done = true));
		// Press "Allow" on every confirmation the chat shows, as the user would.
		const accepting = (async () => {
			while (!done) {
				await vscode.commands.executeCommand('workbench.action.chat.acceptTool').then(undefined, () => undefined);
				await delay(200);
			}
		})();
		const handled = await pending;
		await accepting;
		assert.strictEqual(handled.errorMessage, undefined, `got error: ${handled.errorMessage}`);
		assert.match(handled.markdown, /Done \(write\)\./);
		const results = toolResults(script.agentRequests[script.agentRequests.length - 1]).filter(r => r.callId.startsWith('write-'));
		assert.strictEqual(results.length, targets.length);
		assert.match(results[0].text, /Created/, `the confirmed write inside the workspace should succeed: ${results[0].text}`);
		assert.ok(fs.existsSync(path.join(workspaceRoot(), inside)), 'the file inside the workspace should exist');
		assert.match(results[1].text, /^Error: .*outside the workspace/);
		assert.match(results[2].text, /^Error: .*symbolic link/);
		assert.match(results[3].text, /^Error: .*outside the workspace/);
		assert.ok(!fs.existsSync(path.join(path.dirname(workspaceRoot()), 'escape-by-edit.txt')));
		assert.ok(!fs.existsSync(path.join(outside, 'escape-by-edit.txt')));
		assert.ok(!fs.existsSync(path.join(outside, 'escape-abs.txt')));
	});

	it('in a trusted workspace the writing tools are registered and offered to the model', async () => {
		assert.strictEqual(vscode.workspace.isTrusted, true, 'the test workspace should be trusted');
		const names = vscode.lm.tools.map(t => t.name);
		assert.ok(names.includes('longhaul_editFile'), 'longhaul_editFile should be registered');
		assert.ok(names.includes('longhaul_runCommand'), 'longhaul_runCommand should be registered');
		const script = agentScript({ id: 'trusted', toolCalls: 0 });
		await setHandler(script.handler);
		await sendChat('@longhaul which tools do you have?');
		const offered = script.agentRequests[0].tools;
		assert.ok(offered.includes('longhaul_editFile'), 'longhaul_editFile should be offered');
		// VS Code's own run_in_terminal replaces longhaul_runCommand when present (src/tools/toolNames.ts EQUIVALENT_TOOLS).
		assert.ok(offered.includes('longhaul_runCommand') || offered.includes('run_in_terminal'), `a command tool should be offered, got ${offered.join(', ')}`);
	});
});
