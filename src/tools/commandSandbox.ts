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
import { type Forwarder } from '../common/sandbox/proxyForwarder';
import { folderVerdict } from '../common/sandbox/protectedPaths';
import { type Unavailable } from '../common/sandbox/sandboxNotice';
import { homeSecretPaths, probeArgs, type ProxyBridge, SANDBOX_TMP, type SandboxEngine, type SandboxPlan } from '../common/sandbox/sandboxPolicy';
import { SANDBOX_EXEC, sandboxExecArgs } from '../common/sandbox/seatbeltProfile';
import { isInside } from './pathGuard';

/** `forwarder`: with a list of domains under bwrap, what the check found to run the forwarder. */
export type Availability =
	{ readonly ok: true; readonly engine: SandboxEngine; readonly forwarder?: Forwarder } | { readonly ok: false; readonly why: Unavailable };

/** Folders looked into per workspace folder for files that run code; past it the walk stops. */
const MAX_FOLDERS = 4_000;
const MAX_DEPTH = 12;

/** The program `name` on `searchPath`, or undefined. */
function findProgram(name: string, searchPath: string): string | undefined {
	for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
		const candidate = path.join(dir, name);
		try {
			fs.accessSync(candidate, fs.constants.X_OK);
			if (fs.statSync(candidate).isFile()) return candidate;
		} catch {
			// Not here.
		}
	}
	return undefined;
}

/** The bwrap program on `searchPath`, or undefined. */
export function findBwrap(searchPath = process.env.PATH ?? ''): string | undefined {
	return findProgram('bwrap', searchPath);
}

/** The extension host's own node binary (Electron's runs as node with ELECTRON_RUN_AS_NODE). */
function nodeForwarder(program = process.execPath): Forwarder {
	return { kind: 'node', program, env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}

/** The path with its links resolved, or as given; synchronous, for the once-per-kind check only. */
function realPathNow(p: string): string {
	try {
		return fs.realpathSync(p);
	} catch {
		return p;
	}
}

/**
 * Whether `program` lies in a folder the sandbox hides or replaces, where it cannot run inside: a
 * remote host's extension host runs node from ~/.vscode-server. The check runs without the hidden
 * folders, so it would not notice.
 */
function hiddenInSandbox(program: string, home: string): boolean {
	const real = realPathNow(program);
	// The sandbox hides each secret at its real path (sandboxPlan), and /tmp is its own; the program may be reached through a link.
	const hidden = [SANDBOX_TMP, ...homeSecretPaths(home).flatMap(secret => [secret, realPathNow(secret)])];
	return hidden.some(folder => isInside(folder, program) || isInside(folder, real));
}

/**
 * What may run the forwarder, fastest first: Perl starts in milliseconds, node in about 100 ms
 * (proxyForwarder.ts); none that the sandbox hides.
 */
export function forwarderCandidates(searchPath = process.env.PATH ?? '', home = os.homedir(), node = process.execPath): Forwarder[] {
	const perl = findProgram('perl', searchPath);
	const found: Forwarder[] = [...(perl ? [{ kind: 'perl' as const, program: perl, env: {} }] : []), nodeForwarder(node)];
	return found.filter(f => !hiddenInSandbox(f.program, home));
}

/** An empty plan for the check that sandbox-exec applies Longhaul's profile. */
const PROBE_PLAN: SandboxPlan = { writable: [], readOnly: [], hiddenFolders: [], hiddenFiles: [], network: 'off', cwd: '/' };

/** Runs the check once: undefined when it passed (and wrote nothing to stderr, if `quiet`), else why not. */
function check(engine: SandboxEngine, args: string[], quiet: boolean): Promise<Unavailable | undefined> {
	return new Promise(resolve => {
		execFile(engine.program, args, { timeout: 10_000 }, (error, _stdout, stderr) => {
			const program = engine.kind === 'seatbelt' ? 'sandbox-exec' : undefined;
			const failed = error || (quiet && stderr.trim() !== '');
			resolve(failed ? { kind: 'failed', detail: `${stderr || error?.message}`, program } : undefined);
		});
	});
}

async function probe(engine: SandboxEngine, network: CommandNetwork): Promise<Availability> {
	if (engine.kind === 'seatbelt') {
		// Longhaul's own profile, so that one this macOS refuses means no sandbox, not every command failing.
		const why = await check(engine, sandboxExecArgs(PROBE_PLAN, 'exit 0', os.tmpdir()), false);
		return why ? { ok: false, why } : { ok: true, engine };
	}
	if (networkKind(network) !== 'domains') {
		const why = await check(engine, probeArgs(network), false);
		return why ? { ok: false, why } : { ok: true, engine };
	}
	// With a list of domains: the first forwarder that starts and listens inside. A Perl that warns
	// (a locale it lacks) would warn in every command's output: it is passed over.
	let why: Unavailable = {
		kind: 'failed',
		detail: `nothing can run its network forwarder: no perl on PATH and node (${process.execPath}) outside the folders the sandbox hides`,
	};
	for (const forwarder of forwarderCandidates()) {
		const failed = await check(engine, probeArgs(network, forwarder), forwarder.kind === 'perl');
		if (!failed) return { ok: true, engine, forwarder };
		why = failed;
	}
	return { ok: false, why };
}

/** The forwarder the check chose for a list of domains; node if there was no check. */
async function chosenForwarder(network: CommandNetwork): Promise<Forwarder> {
	const available = await sandboxAvailability(network);
	return (available.ok && available.forwarder) || nodeForwarder();
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

/** The sandbox program of this platform, or why there is none. */
function engineHere(platform: string): { engine: SandboxEngine } | { why: Unavailable } {
	if (platform === 'darwin') {
		return fs.existsSync(SANDBOX_EXEC)
			? { engine: { kind: 'seatbelt', program: SANDBOX_EXEC } }
			: { why: { kind: 'failed', program: 'sandbox-exec', detail: `${SANDBOX_EXEC} is missing` } };
	}
	if (platform !== 'linux') return { why: { kind: 'platform', platform } };
	const bwrap = findBwrap();
	return bwrap ? { engine: { kind: 'bwrap', program: bwrap } } : { why: { kind: 'missing' } };
}

/**
 * Whether a sandbox can start here, checked once per program found and network kind (a changed
 * PATH is looked at again): on Linux bwrap must exist and start a sandbox with the namespaces the
 * policy needs; on macOS sandbox-exec must apply a profile (docs/reliability.md: never run here).
 */
export function sandboxAvailability(network: CommandNetwork, platform: string = process.platform): Promise<Availability> {
	const here = engineHere(platform);
	if ('why' in here) return Promise.resolve({ ok: false, why: here.why });
	const { engine } = here;
	const key = `${engine.program}\0${networkKind(network)}`;
	let found = sandboxMemory.availability.get(key);
	if (!found) {
		found = probe(engine, network);
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

/** The path with its links resolved, or as given where it does not resolve; asynchronous, like all per-command work here. */
function realPath(p: string): Promise<string> {
	return fs.promises.realpath(p).catch(() => p);
}

async function existing(paths: readonly string[]): Promise<{ folders: string[]; files: string[] }> {
	const folders: string[] = [];
	const files: string[] = [];
	await Promise.all(
		paths.map(async p => {
			try {
				const stat = await fs.promises.stat(p);
				(stat.isDirectory() ? folders : files).push(await realPath(p));
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
	const [writable, realCwd] = await Promise.all([Promise.all(roots.map(realPath)), realPath(cwd)]);
	const [readOnly, secrets] = await Promise.all([Promise.all(writable.map(protectedBelow)).then(lists => lists.flat()), existing(homeSecretPaths(home))]);
	const bridge: ProxyBridge | undefined = proxy?.socketPath ? { socket: proxy.socketPath, forwarder: await chosenForwarder(network) } : undefined;
	return { writable, readOnly, hiddenFolders: secrets.folders, hiddenFiles: secrets.files, network, proxy: bridge, proxyPort: proxy?.port, cwd: realCwd };
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
export async function startCommandProxy(domains: readonly string[], engine: SandboxEngine['kind'] = 'bwrap'): Promise<CommandProxy> {
	// mkdtemp makes the folder readable by its owner only: no other user reaches the socket.
	const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'longhaul-proxy-'));
	let proxy: DomainProxy;
	try {
		// Seatbelt shares the host's loopback: the proxy listens on a port the profile allows.
		proxy = await startDomainProxy({ socketPath: engine === 'bwrap' ? path.join(folder, 'proxy.sock') : undefined, domains });
	} catch (e) {
		await fs.promises.rm(folder, { recursive: true, force: true });
		throw e;
	}
	const owned: CommandProxy = {
		domains,
		socketPath: proxy.socketPath,
		port: proxy.port,
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
 * The per-command temporary folder on macOS, where Seatbelt has no private /tmp (bwrap makes its
 * own); removed after the command.
 */
export async function commandTemp(engine: SandboxEngine): Promise<{ readonly path?: string; remove(): Promise<void> }> {
	if (engine.kind === 'bwrap') return { remove: async () => undefined };
	const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'longhaul-command-'));
	return { path: await realPath(folder), remove: () => fs.promises.rm(folder, { recursive: true, force: true }) };
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
