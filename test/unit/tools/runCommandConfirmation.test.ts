// longhaul_runCommand asks before it runs anything: prepareInvocation, what VS Code calls before
// the tool, answers a confirmation with a title and a message that shows the command whole and
// says whether it runs in a sandbox. Loaded with a stand-in for `vscode` (helpers/fakeVscode.ts);
// the wording is the tool's to change, these tests pin only that the confirmation is there and
// what it must show.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { fakeVscode, installFakeVscode } from '../helpers/fakeVscode';

type RunCommandTool = vscode.LanguageModelTool<{ command: string; cwd?: string; outsideSandbox?: boolean }>;

describe('longhaul_runCommand: the confirmation before a command runs', () => {
	const state = { isTrusted: true, folders: [] as string[], settings: {} as Record<string, unknown> };
	let tool: RunCommandTool;
	let uninstall: () => void;
	let work = '';

	before(() => {
		work = fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-confirm-'));
		fs.mkdirSync(path.join(work, 'src'));
		state.folders = [work];
		uninstall = installFakeVscode(fakeVscode(state));
		// Loaded here, after the stand-in is installed (an import would load it first).
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		tool = (require('../../../src/tools/runCommand') as typeof import('../../../src/tools/runCommand')).runCommandTool as RunCommandTool;
	});

	after(() => {
		uninstall();
		fs.rmSync(work, { recursive: true, force: true });
	});

	async function confirmationOf(input: { command: string; cwd?: string; outsideSandbox?: boolean }) {
		assert.ok(tool.prepareInvocation, 'longhaul_runCommand has no prepareInvocation: VS Code would run commands without asking');
		const prepared = await tool.prepareInvocation(
			{ input } as vscode.LanguageModelToolInvocationPrepareOptions<typeof input>,
			{
				isCancellationRequested: false,
				onCancellationRequested: () => ({ dispose() {} }),
			} as unknown as vscode.CancellationToken,
		);
		const confirmation = prepared?.confirmationMessages;
		assert.ok(confirmation, 'prepareInvocation answers no confirmationMessages: the command would run without the user allowing it');
		const message = typeof confirmation.message === 'string' ? confirmation.message : confirmation.message.value;
		return { title: confirmation.title, message };
	}

	/** The message's paragraphs outside its code block. */
	const prose = (message: string) => message.replace(/(`{3,})[^\n]*\n[\s\S]*?\n\1/g, '').split(/\n\s*\n/);

	const command = 'grep -rn "parser fails" src | sort | head -5';

	it('asks, with a title, showing the command whole, and says it runs unsandboxed when the sandbox is off', async () => {
		state.settings = { commandSandbox: 'off' };
		const { title, message } = await confirmationOf({ command });
		assert.ok(typeof title === 'string' && title.trim().length > 0, `title: ${JSON.stringify(title)}`);
		assert.ok(message.includes(command), `the command is not shown whole:\n${message}`);
		assert.ok(
			prose(message).some(p => /sandbox/i.test(p)),
			`no line says whether the command is sandboxed:\n${message}`,
		);
	});

	it('asks for a command in a subfolder too, naming the folder, and says whether a sandbox holds it (auto)', async () => {
		state.settings = { commandSandbox: 'auto' };
		const { title, message } = await confirmationOf({ command: 'ls -la', cwd: 'src' });
		assert.ok(typeof title === 'string' && title.trim().length > 0);
		assert.match(message, /`\s?src\s?`/, message);
		assert.ok(message.includes('ls -la'), message);
		assert.ok(
			prose(message).some(p => /sandbox/i.test(p)),
			`no line says whether the command is sandboxed:\n${message}`,
		);
	});

	it('a multi-line command is shown with every line', async () => {
		state.settings = { commandSandbox: 'off' };
		const lines = ['set -e', 'cd src', 'rm -f build.log', 'make all'];
		const { message } = await confirmationOf({ command: lines.join('\n') });
		for (const line of lines) assert.ok(message.includes(line), `"${line}" is missing:\n${message}`);
	});

	it('is never asked for a command that would be refused: an untrusted workspace throws before any confirmation', async () => {
		state.settings = { commandSandbox: 'off' };
		state.isTrusted = false;
		try {
			await assert.rejects(confirmationOf({ command }), /not trusted/);
		} finally {
			state.isTrusted = true;
		}
	});
});
