import * as vscode from 'vscode';
import { ChangedLines } from '../common/stats/changedLines';

let channel: vscode.LogOutputChannel | undefined;
const changedLines = new ChangedLines();

/**
 * The `Longhaul` log. Statistics only at the default level: prompt contents and tool
 * results never go here unless the user raises the level to trace.
 */
export function log(): vscode.LogOutputChannel {
	channel ??= vscode.window.createOutputChannel('Longhaul', { log: true });
	return channel;
}

/** Logs `line` (info) unless it is the same as the last line of `topic`: a state that holds request after request is logged once. */
export function logWhenChanged(topic: string, line: string): void {
	if (changedLines.changed(topic, line)) log().info(line);
}
