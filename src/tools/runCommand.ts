import * as vscode from 'vscode';
import { commandConfirmation, commandPreview } from './commandText';
import { inlineCode, visible } from './visibleText';
import { cappedWriter, runShell, ShellOutcome, timeoutMs } from './shellRunner';
import { runFolderProblem } from './runFolder';
import { displayPath, resolveWorkspacePath, textResult, workspaceRoots } from './workspaceRoots';

interface RunCommandInput {
	command: string;
	/** Folder to run in, inside the workspace; defaults to the first workspace folder. */
	cwd?: string;
	timeoutSeconds?: number;
}

/** What the model gets of the output: the first and the last characters, the middle counted. */
const HEAD_CHARS = 8_000;
const TAIL_CHARS = 12_000;
/** What one command may write to the terminal; the model still gets the head and the tail. */
const TERMINAL_MAX_CHARS = 200_000;

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
function checkedInput(input: RunCommandInput): { command: string; cwd: string; confirmation: string } {
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
	const folderProblem = runFolderProblem(input.cwd, cwd);
	if (folderProblem) throw new Error(folderProblem);
	// The confirmation must show the exact command, or the command does not run.
	const confirmation = commandConfirmation(command, displayPath(cwd) || '.');
	if (!confirmation.ok) {
		throw new Error(confirmation.reason);
	}
	return { command, cwd, confirmation: confirmation.markdown };
}

function status(outcome: ShellOutcome, limitMs: number): string {
	const stopped = outcome.stoppedLeftovers > 0 ? `; ${outcome.stoppedLeftovers} process(es) it left running were stopped` : '';
	if (outcome.timedOut) return `timed out after ${limitMs / 1000} s; the command's processes were stopped`;
	if (outcome.cancelled) return "cancelled; the command's processes were stopped";
	const code = outcome.exitCode === null ? `ended by ${outcome.signal ?? 'an error'}` : `exit code ${outcome.exitCode}`;
	return outcome.leftRunning ? `${code}; processes it started kept its output open and were stopped 1 s after it exited` : `${code}${stopped}`;
}

/** Runs a shell command in the workspace after the user confirms it; answers its exit code and output. */
export const runCommandTool: vscode.LanguageModelTool<RunCommandInput> = {
	prepareInvocation(options) {
		// Refuse before asking: the user is never asked to confirm a command that would be refused.
		const { confirmation } = checkedInput(options.input);
		return {
			invocationMessage: vscode.l10n.t('Running {0}', inlineCode(commandPreview(options.input.command))),
			confirmationMessages: {
				title: vscode.l10n.t('Run command in terminal?'),
				message: new vscode.MarkdownString(confirmation),
			},
		};
	},
	async invoke(options, token) {
		const { command, cwd } = checkedInput(options.input);
		const limitMs = timeoutMs(options.input.timeoutSeconds);
		// The echoed command shows control characters instead of letting them act on the terminal.
		terminal.write(`\n$ ${visible(command, true, Infinity).text}\n`);
		const cancel = new AbortController();
		const subscription = token.onCancellationRequested(() => cancel.abort());
		let outcome: ShellOutcome;
		try {
			if (token.isCancellationRequested) cancel.abort();
			outcome = await runShell({
				command,
				cwd,
				timeoutMs: limitMs,
				signal: cancel.signal,
				headChars: HEAD_CHARS,
				tailChars: TAIL_CHARS,
				onOutput: cappedWriter(
					text => terminal.write(text),
					TERMINAL_MAX_CHARS,
					`\n[${vscode.l10n.t('Longhaul: the output passed {0} characters; the rest is not shown here. The model gets its first and last characters.', TERMINAL_MAX_CHARS)}]\n`,
				),
			});
		} finally {
			subscription.dispose();
		}
		const line = status(outcome, limitMs);
		terminal.write(`\n[${line}]\n`);
		const size = outcome.cutChars > 0 ? ` (${outcome.totalChars} characters of output, ${outcome.cutChars} cut from the middle)` : '';
		return textResult(`${line}${size}\n${outcome.output}`);
	},
};
