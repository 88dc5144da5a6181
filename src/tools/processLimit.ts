// The bound on how many processes a sandboxed command may have at once (docs/decisions.md §46): a
// fork bomb stays inside. RLIMIT_NPROC cannot do it where it matters most: the kernel exempts uid 0
// (dev containers, root remotes), and for other users it counts all their processes. A pids cgroup
// does, wherever Longhaul may make one below its own: root, or a delegated cgroup. One for the
// extension host's sandboxed commands (making and removing one per command cost about as much as
// bwrap's start on a busy machine), joined by the shell that then becomes bwrap, so that no process
// of a command starts outside it; commands that run at once share the bound. It is removed with the
// extension (sandboxMemory.clear). Where no cgroup can be made, commands run without the bound, and
// docs/reliability.md says so. No vscode import.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A command's own pids cgroup. */
export interface ProcessGroup {
	/** The file a process writes its pid into to join. */
	readonly procs: string;
	remove(): Promise<void>;
}

/** The folder of this process's pids cgroup, from /proc/self/cgroup (cgroup v1 `pids`, or v2 with pids available). */
function ownPidsCgroup(text: string): string | undefined {
	for (const line of text.split('\n')) {
		const [, controllers, where] = line.split(':');
		if (where === undefined) continue;
		if (controllers.split(',').includes('pids')) return path.join('/sys/fs/cgroup/pids', where);
		if (controllers === '' && fs.existsSync('/sys/fs/cgroup/cgroup.controllers')) return path.join('/sys/fs/cgroup', where);
	}
	return undefined;
}

/** Whether a process of this pid runs (signal 0 checks, sends nothing). */
function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** Removes the empty cgroups an extension host that is gone left (`longhaul-<pid>-<max>`). */
function removeStale(base: string): void {
	for (const name of fs.readdirSync(base)) {
		const pid = /^longhaul-(\d+)-\d+$/.exec(name)?.[1];
		if (!pid || alive(Number(pid))) continue;
		try {
			fs.rmdirSync(path.join(base, name));
		} catch {
			// Still has processes, or not ours to remove.
		}
	}
}

/** Makes a pids cgroup of at most `max` processes, named `longhaul-<id>`; undefined where none can be made. */
export function processGroup(max: number, id: string): ProcessGroup | undefined {
	let folder: string | undefined;
	try {
		const base = ownPidsCgroup(fs.readFileSync('/proc/self/cgroup', 'utf8'));
		if (!base) return undefined;
		removeStale(base);
		folder = path.join(base, `longhaul-${id}`);
		fs.mkdirSync(folder, { recursive: true });
		fs.writeFileSync(path.join(folder, 'pids.max'), String(max));
	} catch {
		try {
			if (folder) fs.rmdirSync(folder);
		} catch {
			// Never made.
		}
		return undefined;
	}
	const made = folder;
	return {
		procs: path.join(made, 'cgroup.procs'),
		// The kernel ends a command's processes with its PID namespace, a moment after bwrap exits.
		remove: async () => {
			for (let i = 0; i < 40; i++) {
				try {
					await fs.promises.rmdir(made);
					return;
				} catch (e) {
					if ((e as NodeJS.ErrnoException).code !== 'EBUSY') return;
					await new Promise(resolve => setTimeout(resolve, 50));
				}
			}
		},
	};
}

/** The program and arguments that join `group`, then become `program args` (the same process). */
export function joined(group: ProcessGroup, program: string, args: readonly string[]): [string, string[]] {
	return ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', group.procs, program, ...args]];
}
