import * as vscode from 'vscode';

let channel: vscode.LogOutputChannel | undefined;

/**
 * The `Longhaul` log. Statistics only at the default level: prompt contents and tool
 * results never go here unless the user raises the level to trace.
 */
export function log(): vscode.LogOutputChannel {
	channel ??= vscode.window.createOutputChannel('Longhaul', { log: true });
	return channel;
}
