// Whether and how longhaul_runCommand's command runs in the bubblewrap sandbox: finds bwrap, checks
// once that it can start a sandbox here, and gathers the paths the policy needs (the workspace's
// files that run code, the user's secrets that exist). The policy itself is pure and unit-tested:
// src/common/sandbox/. No vscode import: unit-tested with the real bwrap.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type DomainProxy, startDomainProxy } from '../common/sandbox/domainProxy';
import { type CommandNetwork, networkKind } from '../common/sandbox/networkPolicy';
import { folderVerdict } from '../common/sandbox/protectedPaths';
import { type Unavailable } from '../common/sandbox/sandboxNotice';
import { homeSecretPaths, probeArgs, type ProxyBridge, type SandboxPlan } from '../common/sandbox/sandboxPolicy';

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
 * kind), which chats had the no-sandbox notice, and the network proxies of the commands running
 * now. One object, cleared when the extension's tools are disposed (registerTools.ts), so no
 * module variable holds state of its own and no proxy outlives the extension.
 */
class SandboxMemory {
	readonly availability = new Map<string, Promise<Availability>>();
	readonly noticed = new Set<string>();
	readonly proxies = new Set<CommandProxy>();

	clear(): void {
		this.availability.clear();
		this.noticed.clear();
		for (const proxy of this.proxies) void proxy.close();
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
	const key = `${bwrap}\0${networkKind(network)}`;
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

/**
 * The sandbox plan for a command run in `cwd` with the workspace folders `roots`; `proxy` is the
 * command's network proxy when the network is a list of domains.
 */
export async function sandboxPlan(
	roots: readonly string[],
	cwd: string,
	network: CommandNetwork,
	home = os.homedir(),
	proxy?: CommandProxy,
): Promise<SandboxPlan> {
	const writable = roots.map(realPath);
	const [readOnly, secrets] = await Promise.all([Promise.all(writable.map(protectedBelow)).then(lists => lists.flat()), existing(homeSecretPaths(home))]);
	const bridge: ProxyBridge | undefined = proxy && {
		socket: proxy.socketPath,
		node: process.execPath,
		nodeEnv: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
	};
	return { writable, readOnly, hiddenFolders: secrets.folders, hiddenFiles: secrets.files, network, proxy: bridge, cwd: realPath(cwd) };
}

/** A command's own network proxy: its socket lives in a private temporary folder, removed with it. */
export interface CommandProxy extends DomainProxy {
	readonly domains: readonly string[];
}

/**
 * Starts the proxy for one sandboxed command (docs/decisions.md §37, "Network by domain"). One per
 * command, so what it refused is what this command tried; closed when the command ends, or with
 * the extension at the latest.
 */
export async function startCommandProxy(domains: readonly string[]): Promise<CommandProxy> {
	// mkdtemp makes the folder readable by its owner only: no other user reaches the socket.
	const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'longhaul-proxy-'));
	let proxy: DomainProxy;
	try {
		proxy = await startDomainProxy({ socketPath: path.join(folder, 'proxy.sock'), domains });
	} catch (e) {
		await fs.promises.rm(folder, { recursive: true, force: true });
		throw e;
	}
	const owned: CommandProxy = {
		domains,
		socketPath: proxy.socketPath,
		refused: () => proxy.refused(),
		close: async () => {
			sandboxMemory.proxies.delete(owned);
			await proxy.close();
			await fs.promises.rm(folder, { recursive: true, force: true });
		},
	};
	sandboxMemory.proxies.add(owned);
	return owned;
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
