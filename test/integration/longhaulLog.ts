// The 'Longhaul' log file (src/agent/log.ts: a LogOutputChannel) as the extension host writes it,
// for tests that check what reaches the log at the default level.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** Every 'Longhaul.log' under the code-server folder of this run (the host's TMPDIR is one of its subfolders, see test/harness/server.mjs). */
export function longhaulLogFiles(): string[] {
	const serverRoot = path.dirname(os.tmpdir());
	const found: string[] = [];
	const walk = (dir: string, depth: number) => {
		if (depth > 8) return;
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory() && !['extensions', 'node_modules', 'workspace'].includes(entry.name)) walk(full, depth + 1);
			else if (entry.isFile() && entry.name === 'Longhaul.log') found.push(full);
		}
	};
	walk(serverRoot, 0);
	return found;
}

/** The text of every Longhaul log file. */
export function readLonghaulLog(): string {
	return longhaulLogFiles()
		.map(f => fs.readFileSync(f, 'utf8'))
		.join('\n');
}
