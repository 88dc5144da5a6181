// Whether and how longhaul_runCommand's command runs in the bubblewrap sandbox: finds bwrap, checks
// once that it can start a sandbox here, and gathers the paths the policy needs (the workspace's
// files that run code, the user's secrets that exist). The policy itself is pure and unit-tested:
// src/common/sandbox/. No vscode import: unit-tested with the real bwrap.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { folderVerdict } from '../common/sandbox/protectedPaths';
import { type Unavailable } from '../common/sandbox/sandboxNotice';
import { type CommandNetwork, homeSecretPaths, probeArgs, type SandboxPlan } from '../common/sandbox/sandboxPolicy';

export type Availability = { readonly ok: true; readonly bwrap: string } | { readonly ok: false; readonly why: Unavailable };

/** Folders looked into per workspace folder for files that run code; past it the walk stops. */
const MAX_FOLDERS = 4_000;
const MAX_DEPTH = 12;

/** The bwrap program on `searchPath`, or undefined. */
export function findBwrap(searchPath = process.env.PATH ?? ''): string | undefined {
	for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
		const candidate = path.join(dir, 'bwrap');
		try {
			fs.accessSync(candidate, fs.constants.X_OK);
			if (fs.statSync(candidate).isFile()) return candidate;
		} catch {
			// Not here.
		}
	}
	return undefined;
}

function probe(bwrap: string, network: CommandNetwork): Promise<Availability> {
	return new Promise(resolve => {
		execFile(bwrap, probeArgs(network), { timeout: 10_000 }, (error, _stdout, stderr) => {
			if (!error) resolve({ ok: true, bwrap });
			else resolve({ ok: false, why: { kind: 'failed', detail: `${stderr || error.message}` } });
		});
	});
}

/**
 * What the sandbox remembers while the extension runs: whether bwrap starts (per binary and network
 * kind) and which chats had the no-sandbox notice. One object, cleared when the extension's tools
 * are disposed (registerTools.ts), so no module variable holds state of its own.
 */
class SandboxMemory {
	readonly availability = new Map<string, Promise<Availability>>();
	readonly noticed = new Set<string>();

	clear(): void {
		this.availability.clear();
		this.noticed.clear();
	}
}
export const sandboxMemory = new SandboxMemory();

/**
 * Whether a sandbox can start here, checked once per bwrap found and network kind (a changed PATH
 * is looked at again): bwrap must exist and start a sandbox with the namespaces the policy needs.
 */
export function sandboxAvailability(network: CommandNetwork, platform: string = process.platform): Promise<Availability> {
	if (platform !== 'linux') return Promise.resolve({ ok: false, why: { kind: 'platform', platform } });
	const bwrap = findBwrap();
	if (!bwrap) return Promise.resolve({ ok: false, why: { kind: 'missing' } });
	const key = `${bwrap}\0${network}`;
	let found = sandboxMemory.availability.get(key);
	if (!found) {
		found = probe(bwrap, network);
		sandboxMemory.availability.set(key, found);
	}
	return found;
}

async function entries(dir: string): Promise<{ name: string; isDirectory: boolean }[]> {
	try {
		const list = await fs.promises.readdir(dir, { withFileTypes: true });
		// A link is bound as the path it is; what it leads to is outside or protected in its own right.
		return list.map(e => ({ name: e.name, isDirectory: e.isDirectory() }));
	} catch {
		return [];
	}
}

/** The files that run code below one workspace folder (absolute paths), breadth first, bounded. */
export async function protectedBelow(root: string): Promise<string[]> {
	const readOnly: string[] = [];
	let level = [''];
	let folders = 0;
	for (let depth = 0; depth <= MAX_DEPTH && level.length > 0 && folders < MAX_FOLDERS; depth++) {
		const next: string[] = [];
		const verdicts = await Promise.all(level.slice(0, MAX_FOLDERS - folders).map(async rel => folderVerdict(rel, await entries(path.join(root, rel)))));
		folders += verdicts.length;
		for (const v of verdicts) {
			readOnly.push(...v.readOnly.map(rel => path.join(root, rel)));
			next.push(...v.descend);
		}
		level = next;
	}
	return readOnly;
}

function realPath(p: string): string {
	try {
		return fs.realpathSync(p);
	} catch {
		return p;
	}
}

async function existing(paths: readonly string[]): Promise<{ folders: string[]; files: string[] }> {
	const folders: string[] = [];
	const files: string[] = [];
	await Promise.all(
		paths.map(async p => {
			try {
				const stat = await fs.promises.stat(p);
				if (stat.isDirectory()) folders.push(realPath(p));
				else files.push(realPath(p));
			} catch {
				// Absent: nothing to hide.
			}
		}),
	);
	return { folders, files };
}

/** The sandbox plan for a command run in `cwd` with the workspace folders `roots`. */
export async function sandboxPlan(roots: readonly string[], cwd: string, network: CommandNetwork, home = os.homedir()): Promise<SandboxPlan> {
	const writable = roots.map(realPath);
	const [readOnly, secrets] = await Promise.all([Promise.all(writable.map(protectedBelow)).then(lists => lists.flat()), existing(homeSecretPaths(home))]);
	return { writable, readOnly, hiddenFolders: secrets.folders, hiddenFiles: secrets.files, network, cwd: realPath(cwd) };
}

/**
 * Files that run code which appeared in the workspace while a sandboxed command ran: the sandbox
 * keeps only existing ones read-only, so a new `.vscode/` folder or a bare repository is said, not
 * stopped (docs/reliability.md).
 */
export async function newCodeFiles(plan: SandboxPlan): Promise<string[]> {
	const before = new Set(plan.readOnly);
	const now = (await Promise.all(plan.writable.map(protectedBelow))).flat();
	return now.filter(p => !before.has(p));
}
