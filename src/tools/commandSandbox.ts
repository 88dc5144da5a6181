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
import { absentNames, ancestorsOf, type DirEntry, folderVerdict, gitdirOf } from '../common/sandbox/protectedPaths';
import { homeToolchainPaths, sandboxEnv } from '../common/sandbox/sandboxEnv';
import { unixSocketFilter } from '../common/sandbox/unixSocketFilter';
import { type Unavailable } from '../common/sandbox/sandboxNotice';
import { homeSecretPaths, probeArgs, type ProxyBridge, SANDBOX_TMP, type SandboxEngine, type SandboxPlan } from '../common/sandbox/sandboxPolicy';
import { SANDBOX_EXEC, sandboxExecArgs } from '../common/sandbox/seatbeltProfile';
import { isInside } from './pathGuard';
import { processGroup, type ProcessGroup } from './processLimit';

/** `forwarder`: with a list of domains under bwrap, what the check found to run the forwarder. */
/** `tmpSize`: bwrap has `--size` (0.8 and later), so /tmp and the hidden home can be bounded. */
export type Availability =
	| { readonly ok: true; readonly engine: SandboxEngine; readonly forwarder?: Forwarder; readonly tmpSize?: boolean }
	| { readonly ok: false; readonly why: Unavailable };

/**
 * How long the walk for files that run code may take per workspace folder. It has no limit on
 * folders or depth that a command could fill to hide a file; past this time it stops and says so.
 */
const WALK_BUDGET_MS = 5_000;

/** How many processes a sandboxed command may have at once: a build's hundreds, not a fork bomb's. */
const MAX_PROCESSES = 1_024;

/** The folders bwrap may be run from: owned by root, never a folder on PATH the workspace could control. */
export const TRUSTED_BWRAP = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'];

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

/** Whether `file` and its folder are owned by root and writable by root only, links resolved. */
function rootOwned(file: string): boolean {
	try {
		const real = fs.realpathSync(file);
		return [real, path.dirname(real)].every(p => {
			const stat = fs.statSync(p);
			return stat.uid === 0 && (stat.mode & 0o022) === 0;
		});
	} catch {
		return false;
	}
}

/**
 * The bwrap program: the first of `candidates` (TRUSTED_BWRAP) that is an executable file owned by
 * root and writable by root only, with its folder; never looked up on PATH, where a workspace folder
 * may stand first (direnv's PATH_add). Undefined when none is.
 */
export function findBwrap(candidates: readonly string[] = sandboxMemory.bwrapCandidates ?? TRUSTED_BWRAP): string | undefined {
	return candidates.find(c => findProgram(path.basename(c), path.dirname(c)) === c && rootOwned(c));
}

/** The extension host's own node binary (Electron's runs as node with ELECTRON_RUN_AS_NODE). */
function nodeForwarder(program = process.execPath): Forwarder {
	return { kind: 'node', program, env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}

/**
 * What may run the forwarder, fastest first: Perl starts in milliseconds, node in about 100 ms
 * (proxyForwarder.ts). One in a place the sandbox hides (node from ~/.vscode-server, a cache under
 * /tmp) is bound read-only at its path (sandboxPlan's `tools`), so all of them run.
 */
export function forwarderCandidates(searchPath = process.env.PATH ?? '', node = process.execPath): Forwarder[] {
	const perl = findProgram('perl', searchPath);
	return [...(perl ? [{ kind: 'perl' as const, program: perl, env: {} }] : []), nodeForwarder(node)];
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

/** Whether this bwrap takes `--size` for a tmpfs (Ubuntu 22.04's 0.6 does not: /tmp is then unbounded, docs/reliability.md). */
function hasSizeOption(program: string): Promise<boolean> {
	return new Promise(resolve => execFile(program, ['--help'], { timeout: 10_000 }, (_error, stdout) => resolve(/--size\b/.test(`${stdout}`))));
}

async function probe(engine: SandboxEngine, network: CommandNetwork): Promise<Availability> {
	if (engine.kind === 'seatbelt') {
		// Longhaul's own profile, so that one this macOS refuses means no sandbox, not every command failing.
		const why = await check(engine, sandboxExecArgs(PROBE_PLAN, 'exit 0', os.tmpdir()), false);
		return why ? { ok: false, why } : { ok: true, engine };
	}
	const tmpSize = await hasSizeOption(engine.program);
	if (networkKind(network) !== 'domains') {
		const why = await check(engine, probeArgs(network), false);
		return why ? { ok: false, why } : { ok: true, engine, tmpSize };
	}
	// With a list of domains: the first forwarder that starts and listens inside. A Perl that warns
	// (a locale it lacks) would warn in every command's output: it is passed over.
	let why: Unavailable = {
		kind: 'failed',
		detail: `nothing can run its network forwarder: no perl on PATH and node (${process.execPath}) outside the folders the sandbox hides`,
	};
	for (const forwarder of forwarderCandidates()) {
		const failed = await check(engine, probeArgs(network, forwarder), forwarder.kind === 'perl');
		if (!failed) return { ok: true, engine, forwarder, tmpSize };
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
	/** Tests only: where to look for bwrap instead of TRUSTED_BWRAP (a test of the fallback without bwrap). */
	bwrapCandidates: readonly string[] | undefined;
	/** The pids cgroup of sandboxed commands per bound (null: none can be made here), made at the first command. */
	private readonly groups = new Map<number, ProcessGroup | null>();

	processGroup(max: number): ProcessGroup | undefined {
		if (!this.groups.has(max)) this.groups.set(max, processGroup(max, `${process.pid}-${max}`) ?? null);
		return this.groups.get(max) ?? undefined;
	}

	clear(): void {
		for (const group of this.groups.values()) void group?.remove();
		this.groups.clear();
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
 * Whether a sandbox can start here, checked once per program found and network kind: on Linux bwrap must exist and start a sandbox with the namespaces the
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

async function entries(dir: string): Promise<DirEntry[]> {
	try {
		const list = await fs.promises.readdir(dir, { withFileTypes: true });
		// Links are not followed: one named like a protected path is protected itself (protectedPaths.ts).
		return list.map(e => ({ name: e.name, isDirectory: e.isDirectory(), isLink: e.isSymbolicLink() }));
	} catch {
		return [];
	}
}

/** What the walk of one workspace folder found. */
export interface Protected {
	/** Files and folders that run code (absolute paths). */
	readonly paths: string[];
	/** `.git` files' gitdir: targets inside the folder (absolute paths). */
	readonly gitdirs: string[];
	/** False when the walk ran out of time (WALK_BUDGET_MS) before it had looked everywhere. */
	readonly complete: boolean;
}

/** The gitdir: a `.git` file names, resolved against its folder; undefined when it names none. */
async function gitdirTarget(file: string): Promise<string | undefined> {
	const text = await fs.promises.readFile(file, 'utf8').catch(() => '');
	const target = gitdirOf(text.slice(0, 4096));
	return target ? realPath(path.resolve(path.dirname(file), target)) : undefined;
}

/** The files that run code below one workspace folder, breadth first, with no limit on folders or depth. */
export async function protectedWalk(root: string, budgetMs = WALK_BUDGET_MS): Promise<Protected> {
	const paths: string[] = [];
	const gitFiles: string[] = [];
	const deadline = Date.now() + budgetMs;
	let level = [''];
	while (level.length > 0) {
		if (Date.now() > deadline) break;
		const next: string[] = [];
		// The whole level at once: libuv's thread pool runs four reads at a time, so the open folders stay few.
		const verdicts = await Promise.all(level.map(async rel => folderVerdict(rel, await entries(path.join(root, rel)))));
		for (const v of verdicts) {
			paths.push(...v.readOnly.map(rel => path.join(root, rel)));
			gitFiles.push(...v.gitFiles.map(rel => path.join(root, rel)));
			next.push(...v.descend);
		}
		level = next;
	}
	const gitdirs = (await Promise.all(gitFiles.map(gitdirTarget))).filter((t): t is string => t !== undefined && isInside(root, t));
	return { paths, gitdirs, complete: level.length === 0 };
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
 * Which of `paths` exist, in order. Synchronous on purpose: a few dozen `stat` calls take well under
 * a millisecond, where as many promises through libuv's thread pool cost several on a busy machine.
 */
function present(paths: readonly string[]): string[] {
	return paths.filter(p => fs.existsSync(p));
}

/** The size of the command's /tmp and of its hidden home: a quarter of the memory, at most 2 GiB. */
export function tmpBytes(totalMemory = os.totalmem()): number {
	return Math.min(2 * 1024 ** 3, Math.floor(totalMemory / 4 / 4096) * 4096);
}

/** Places the sandbox hides or replaces, where a program the command may run must be bound back. */
function hiddenPlaces(home: string, runtime: readonly string[]): string[] {
	return [SANDBOX_TMP, home, ...runtime];
}

/**
 * The programs to bind back read-only: each PATH folder in a hidden place (under /tmp or /run its
 * install prefix when it ends in /bin, for the libraries beside it; in the home folder the folder
 * alone), and the node forwarder. Never a hidden place itself: PATH holding ~ binds nothing.
 */
async function toolBinds(searchPath: string, home: string, runtime: readonly string[], visible: readonly string[], node: string): Promise<string[]> {
	const places = hiddenPlaces(home, runtime);
	const wanted = new Set<string>();
	for (const dir of searchPath.split(path.delimiter).filter(p => path.isAbsolute(p))) {
		const place = places.find(p => isInside(p, dir));
		if (!place || visible.some(v => isInside(v, dir))) continue;
		const prefix = place !== home && path.basename(dir) === 'bin' ? path.dirname(dir) : dir;
		if (!places.includes(prefix) && !places.includes(dir)) wanted.add(places.includes(prefix) ? dir : prefix);
	}
	if (places.some(p => isInside(p, node) && node !== p)) wanted.add(node);
	return present([...wanted]);
}

/** The sockets' folders the sandbox hides when the network is not the host's: /run (and /var/run), $XDG_RUNTIME_DIR. */
async function runtimeFolders(network: CommandNetwork): Promise<string[]> {
	const xdg = process.env.XDG_RUNTIME_DIR;
	const wanted = [...(network === 'all' ? [] : ['/run', '/var/run']), ...(xdg && path.isAbsolute(xdg) ? [xdg] : [])];
	const real = await Promise.all(present(wanted).map(realPath));
	return [...new Set(real)].filter((p, _, all) => !all.some(o => o !== p && isInside(o, p)));
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
	const [writable, realCwd, realHome, available] = await Promise.all([
		Promise.all(roots.map(realPath)),
		realPath(cwd),
		realPath(home),
		sandboxAvailability(network),
	]);
	const [walks, secrets, toolchains, runtime, tops] = await Promise.all([
		Promise.all(writable.map(root => protectedWalk(root))),
		existing(homeSecretPaths(realHome)),
		present(homeToolchainPaths(realHome)),
		runtimeFolders(network),
		Promise.all(writable.map(root => fs.promises.readdir(root).catch(() => [] as string[]))),
	]);
	const listed = [...new Set(walks.flatMap(w => [...w.paths, ...w.gitdirs]))];
	// A link is bound where it leads (bwrap resolves it), which must exist; its ancestors are those of where it leads.
	const [links, resolved] = await Promise.all([linkIdentities(listed), Promise.all(listed.map(p => fs.promises.realpath(p).catch(() => undefined)))]);
	const readOnly = listed.filter((_, i) => resolved[i] !== undefined);
	const targets = [...new Set(resolved.filter((p): p is string => p !== undefined))];
	const inPlace = writable.flatMap(root =>
		ancestorsOf(targets.filter(p => isInside(root, p) && p !== root).map(p => path.relative(root, p))).map(rel => path.join(root, rel)),
	);
	// A placeholder is made in the folder on the host: only where the command could write one.
	const mayWrite = await Promise.all(
		writable.map(root =>
			fs.promises.access(root, fs.constants.W_OK).then(
				() => true,
				() => false,
			),
		),
	);
	const absent = writable.flatMap((root, i) => (mayWrite[i] ? absentNames(tops[i]).map(a => ({ path: path.join(root, a.name), folder: a.folder })) : []));
	// The home folder is hidden where it is one: not `/`, not missing.
	const hideHome =
		realHome !== '/' &&
		(await fs.promises.stat(realHome).then(
			s => s.isDirectory(),
			() => false,
		));
	const inWorkspace = (p: string) => writable.some(f => isInside(f, p));
	// With the home hidden, a secret needs hiding again only where something binds it back: a workspace folder or a toolchain folder.
	const shown = (p: string) => !isInside(realHome, p) || inWorkspace(p) || toolchains.some(t => isInside(t, p));
	const tools = await toolBinds(process.env.PATH ?? '', realHome, runtime, toolchains, process.execPath);
	const bridge: ProxyBridge | undefined = proxy?.socketPath ? { socket: proxy.socketPath, forwarder: await chosenForwarder(network) } : undefined;
	return {
		writable,
		readOnly,
		inPlace,
		absent,
		hiddenFolders: secrets.folders.filter(shown),
		hiddenFiles: secrets.files.filter(shown),
		home: hideHome ? { path: realHome, visible: toolchains } : undefined,
		runtime,
		tools,
		env: sandboxEnv(process.env, home, network === 'all'),
		tmpBytes: available.ok && available.tmpSize ? tmpBytes() : undefined,
		maxProcesses: MAX_PROCESSES,
		unixSocketFilter: network === 'off' && unixSocketFilter() !== undefined,
		links,
		incomplete: walks.some(w => !w.complete),
		network,
		proxy: bridge,
		proxyPort: proxy?.port,
		cwd: realCwd,
	};
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
 * Removes what bwrap left on the host for the plan's placeholders (absent protected names): an
 * empty folder or an empty file at each, made as the mount point. Anything with content is kept.
 */
export function removePlaceholders(plan: SandboxPlan): void {
	// Synchronous, like `present`: a dozen lstat and unlink calls, cheaper than as many promises.
	for (const a of plan.absent ?? []) {
		try {
			const stat = fs.lstatSync(a.path);
			if (a.folder && stat.isDirectory()) fs.rmdirSync(a.path);
			else if (!a.folder && stat.isFile() && stat.size === 0) fs.unlinkSync(a.path);
		} catch {
			// Gone already, or not empty: not a placeholder.
		}
	}
}

/** A path's identity: its inode, and for a link where it leads. */
async function identity(p: string): Promise<string> {
	try {
		const stat = await fs.promises.lstat(p);
		const target = stat.isSymbolicLink() ? await fs.promises.readlink(p) : '';
		// Where it leads too: a link to a folder that did not exist is as good as a new one once it does.
		const led = await fs.promises.stat(p).then(
			s => `${s.dev}:${s.ino}`,
			() => 'nothing',
		);
		return `${stat.dev}:${stat.ino}:${target}:${led}`;
	} catch {
		return 'absent';
	}
}

/** The identities of protected paths that are links (the sandbox binds where they lead, not the link). */
export async function linkIdentities(paths: readonly string[]): Promise<Map<string, string>> {
	const links = await Promise.all(paths.map(async p => ((await fs.promises.lstat(p).catch(() => undefined))?.isSymbolicLink() ? p : undefined)));
	const found = links.filter((p): p is string => p !== undefined);
	return new Map(await Promise.all(found.map(async p => [p, await identity(p)] as const)));
}

/**
 * Files that run code which appeared in the workspace while a sandboxed command ran, or a link
 * among them that was replaced: the sandbox keeps existing ones read-only and the usual top-level
 * names from being created, so what is said here is a new file deeper down (a `sub/package.json`)
 * or a swapped link (docs/reliability.md). A walk that ran out of time says so in its last entry.
 */
export async function newCodeFiles(plan: SandboxPlan): Promise<string[]> {
	removePlaceholders(plan);
	const links = plan.links ?? new Map<string, string>();
	const before = new Set([...plan.readOnly, ...links.keys()]);
	const walks = await Promise.all(plan.writable.map(root => protectedWalk(root)));
	const now = walks.flatMap(w => w.paths);
	const swapped = await Promise.all([...links].map(async ([p, id]) => ((await identity(p)) === id ? undefined : p)));
	const found = [...new Set([...now.filter(p => !before.has(p)), ...swapped.filter((p): p is string => p !== undefined)])];
	if (walks.some(w => !w.complete)) found.push(`(not all of the workspace could be checked in ${WALK_BUDGET_MS / 1000} s)`);
	return found;
}
