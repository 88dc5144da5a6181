import { spawn } from 'node:child_process';
import * as vscode from 'vscode';
import { cutMiddle } from '../common/shrinking/cutText';
import { displayPath, resolveWorkspacePath, textResult, workspaceRoots } from './workspaceRoots';

interface RunCommandInput {
	command: string;
	/** Folder to run in, inside the workspace; defaults to the first workspace folder. */
	cwd?: string;
	timeoutSeconds?: number;
}

const MAX_OUTPUT_CHARS = 20_000;

/** A terminal where the user watches the commands Longhaul runs and their output. */
class CommandTerminal {
	private terminal: vscode.Terminal | undefined;
	private readonly writeEmitter = new vscode.EventEmitter<string>();

	write(text: string): void {
		if (!this.terminal || this.terminal.exitStatus) {
			this.terminal = vscode.window.createTerminal({
				name: 'Longhaul',
				pty: {
					onDidWrite: this.writeEmitter.event,
					open: () => undefined,
					close: () => {
						this.terminal = undefined;
					},
				},
			});
			this.terminal.show(true);
		}
		this.writeEmitter.fire(text.replace(/\r?\n/g, '\r\n'));
	}
}

const terminal = new CommandTerminal();

/** The command and the folder to run it in, or an error that says why it may not run. */
function checkedInput(input: RunCommandInput): { command: string; cwd: string } {
	if (!vscode.workspace.isTrusted) {
		throw new Error('This workspace is not trusted; Longhaul does not run commands in it.');
	}
	const { command } = input;
	if (typeof command !== 'string' || command.trim() === '') {
		throw new Error('command must be a non-empty string.');
	}
	const cwd = input.cwd ? resolveWorkspacePath(input.cwd) : workspaceRoots()[0];
	if (!cwd) {
		throw new Error('No workspace folder is open to run the command in.');
	}
	return { command, cwd };
}

/** Runs a shell command in the workspace after the user confirms it; answers its exit code and output. */
export const runCommandTool: vscode.LanguageModelTool<RunCommandInput> = {
	prepareInvocation(options) {
		// Refuse before asking: the user is never asked to confirm a command that would be refused.
		const { command, cwd } = checkedInput(options.input);
		return {
			invocationMessage: `Running \`${command}\``,
			confirmationMessages: {
				title: 'Run command in terminal?',
				message: new vscode.MarkdownString(`Longhaul wants to run in \`${displayPath(cwd)}\`:\n\n\`\`\`sh\n${command}\n\`\`\``),
			},
		};
	},
	async invoke(options, token) {
		const { command, cwd } = checkedInput(options.input);
		const timeoutMs = Math.min(Math.max(1, options.input.timeoutSeconds ?? 120), 1800) * 1000;
		terminal.write(`\n$ ${command}\n`);
		const outcome = await runShell(command, cwd, timeoutMs, token, chunk => terminal.write(chunk));
		const status = outcome.timedOut ? `timed out after ${timeoutMs / 1000} s` : outcome.cancelled ? 'cancelled' : `exit code ${outcome.exitCode}`;
		terminal.write(`[${status}]\n`);
		return textResult(`${status}\n${cutMiddle(outcome.output, MAX_OUTPUT_CHARS)}`);
	},
};

interface ShellOutcome {
	exitCode: number | null;
	output: string;
	timedOut: boolean;
	cancelled: boolean;
}

function runShell(command: string, cwd: string, timeoutMs: number, token: vscode.CancellationToken, onOutput: (chunk: string) => void): Promise<ShellOutcome> {
	return new Promise(resolve => {
		// Own process group, so a timeout or cancel stops everything the command started.
		const child = spawn('/bin/sh', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		let timedOut = false;
		let cancelled = false;
		const collect = (data: Buffer) => {
			const text = data.toString('utf8');
			if (output.length < MAX_OUTPUT_CHARS * 4) {
				output += text;
			}
			onOutput(text);
		};
		child.stdout.on('data', collect);
		child.stderr.on('data', collect);
		const stop = () => {
			try {
				process.kill(-child.pid!, 'SIGKILL');
			} catch {
				// Already gone.
			}
		};
		const timer = setTimeout(() => {
			timedOut = true;
			stop();
		}, timeoutMs);
		const cancellation = token.onCancellationRequested(() => {
			cancelled = true;
			stop();
		});
		const finish = (exitCode: number | null) => {
			clearTimeout(timer);
			cancellation.dispose();
			resolve({ exitCode, output, timedOut, cancelled });
		};
		child.on('error', error => {
			output += String(error);
			finish(null);
		});
		child.on('close', code => finish(code));
	});
}
