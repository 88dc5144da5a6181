// Stops what a command left running when it ends: longhaul_runCommand answers when the command is
// done, and nothing it started may go on in the background unseen. No vscode import: unit-tested
// with real processes.
//
// The shell runs as the leader of a new session and process group, with LONGHAUL_RUN_ID=<random>
// in its environment. When it ends, every process that is still in that group or session, or that
// carries that variable (a child that called setsid keeps its environment), is killed, pass after
// pass until a pass finds none (a child may fork while its parent is killed). This needs /proc
// (Linux); elsewhere only the process group is killed.
//
// What cannot be found: a process that leaves the session and also clears or replaces its
// environment (`setsid env -i …`), or one that another user's program runs (a system service the
// command asked to start). docs/tools.md says so. In the command sandbox (src/common/sandbox/) the
// command has its own PID namespace, which the kernel empties when the command ends: there the
// `setsid env -i` child is gone too, and this reaper finds nothing left.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';

export const RUN_ID_VARIABLE = 'LONGHAUL_RUN_ID';
const MAX_PASSES = 10;

/** A new id for one command's processes. */
export function newRunId(): string {
	return randomUUID();
}

const hasProc = process.platform === 'linux' && fs.existsSync('/proc/self/stat');

interface ProcInfo {
	readonly pid: number;
	readonly group: number;
	readonly session: number;
	readonly zombie: boolean;
}

async function procInfo(pid: number): Promise<ProcInfo | undefined> {
	try {
		const stat = await fs.promises.readFile(`/proc/${pid}/stat`, 'utf8');
		// After the command name in parentheses: state, ppid, pgrp, session, …
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return { pid, zombie: fields[0] === 'Z', group: Number(fields[2]), session: Number(fields[3]) };
	} catch {
		return undefined;
	}
}

async function carriesRunId(pid: number, marker: string): Promise<boolean> {
	try {
		const environ = await fs.promises.readFile(`/proc/${pid}/environ`, 'latin1');
		return environ.startsWith(marker) || environ.includes(`\0${marker}`);
	} catch {
		// Another user's process, or gone already.
		return false;
	}
}

/** The processes that belong to the run: in the shell's group or session, or carrying its id. */
async function leftovers(shellPid: number, runId: string): Promise<number[]> {
	const marker = `${RUN_ID_VARIABLE}=${runId}\0`;
	const pids = (await fs.promises.readdir('/proc')).filter(name => /^\d+$/.test(name)).map(Number);
	const found = await Promise.all(
		pids
			.filter(pid => pid !== process.pid)
			.map(async pid => {
				const info = await procInfo(pid);
				if (!info || info.zombie) return undefined;
				if (info.group === shellPid || info.session === shellPid) return pid;
				return (await carriesRunId(pid, marker)) ? pid : undefined;
			}),
	);
	return found.filter((pid): pid is number => pid !== undefined);
}

function kill(pid: number): boolean {
	try {
		process.kill(pid, 'SIGKILL');
		return true;
	} catch {
		return false;
	}
}

/** Kills everything the run left behind; answers how many processes were killed. */
export async function stopLeftovers(shellPid: number, runId: string): Promise<number> {
	if (!hasProc) {
		kill(-shellPid);
		return 0;
	}
	const killed = new Set<number>();
	for (let pass = 0; pass < MAX_PASSES; pass++) {
		const pids = (await leftovers(shellPid, runId)).filter(kill);
		if (pids.length === 0) break;
		pids.forEach(pid => killed.add(pid));
	}
	kill(-shellPid);
	return killed.size;
}
