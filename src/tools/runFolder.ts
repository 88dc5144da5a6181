// The folder a command runs in must exist and be a folder, and `~` is not a home folder here: the
// model gets a clear message instead of Node's "spawn /bin/sh ENOENT". No vscode import.
import * as fs from 'node:fs';

/** Why `resolved` (from the model's `cwd`, inside the workspace) cannot be run in, or undefined. */
export function runFolderProblem(given: unknown, resolved: string): string | undefined {
	const shown = typeof given === 'string' ? JSON.stringify(given) : JSON.stringify(resolved);
	const tilde = typeof given === 'string' && /^~([\\/]|$)/.test(given) ? ' cwd is a path inside the workspace; ~ is not expanded to a home folder.' : '';
	let stat: fs.Stats;
	try {
		stat = fs.statSync(resolved);
	} catch {
		return `The folder ${shown} to run the command in does not exist in the workspace.${tilde} Leave cwd out to run in the workspace folder.`;
	}
	return stat.isDirectory() ? undefined : `cwd ${shown} is a file, not a folder; give the folder to run the command in.`;
}
