// What a command run by longhaul_runCommand may touch, as bubblewrap (`bwrap`) arguments. No vscode
// import, no file system access: the caller finds the paths, this module only decides and spells
// the policy, so it is unit-tested as plain data (docs/decisions.md, "Command sandbox").
//
// The policy (docs/decisions.md §37 and §46):
// - the whole file system read-only (`--ro-bind / /`), a fresh /dev and /proc;
// - a per-command temporary folder: /tmp is an empty tmpfs of bounded size that goes with the command;
// - the home folder an empty tmpfs of bounded size, but for the toolchains' folders, read-only
//   (sandboxEnv.ts); programs on PATH in a hidden place (/tmp, /run, the home) bound read-only;
// - with the network off or a list of domains, /run and $XDG_RUNTIME_DIR empty (the host's sockets);
// - each workspace folder writable, bound at its own path;
// - inside the workspace, the files that run code (protectedPaths.ts) bound read-only again, each
//   folder between them and the workspace folder bound onto itself (a mount point cannot be
//   renamed), and the protected top-level names that do not exist held by empty read-only placeholders;
// - the user's secrets inside a workspace folder hidden: a folder becomes an empty read-only tmpfs, a file /dev/null;
// - no capabilities (`--cap-drop ALL`, which matters when Longhaul runs as root), only the allowed
//   environment variables (`--clearenv`), and with the network off no `socket(AF_UNIX)` (seccomp);
// - its own PID namespace, dying with Longhaul's process: when the command's shell ends, bwrap's
//   init ends and the kernel kills everything left inside, `setsid env -i …` children too;
// - no network namespace shared with the host unless the network is allowed; with a list of
//   domains, its own namespace and, bound in, the socket of Longhaul's proxy (networkPolicy.ts).
// The order matters: bwrap applies mounts in order, so a later, narrower mount wins.

import { type CommandNetwork, networkSummary, proxyEnv, SANDBOX_PROXY_PORT } from './networkPolicy';
import { type Forwarder, forwarderCommand, SANDBOX_PROXY_SOCKET } from './proxyForwarder';
import { SECCOMP_FD } from './unixSocketFilter';

export type { CommandNetwork } from './networkPolicy';

/** What contains a command: bubblewrap on Linux, Seatbelt's sandbox-exec on macOS, and the program's path. */
export interface SandboxEngine {
	readonly kind: 'bwrap' | 'seatbelt';
	readonly program: string;
}

/** How a command reaches the proxy when the network is a list of domains. */
export interface ProxyBridge {
	/** The proxy's Unix socket on the host. */
	readonly socket: string;
	/** What listens inside and runs the command (proxyForwarder.ts). */
	readonly forwarder: Forwarder;
}

export interface SandboxPlan {
	/** Workspace folders: writable. */
	readonly writable: readonly string[];
	/** Existing paths inside the writable folders that stay read-only (files that run code). */
	readonly readOnly: readonly string[];
	/** Existing secret folders, hidden behind an empty read-only tmpfs. */
	readonly hiddenFolders: readonly string[];
	/** Existing secret files, hidden behind /dev/null. */
	readonly hiddenFiles: readonly string[];
	readonly network: CommandNetwork;
	/** With a list of domains: the proxy's socket and the forwarder that listens inside (bwrap). */
	readonly proxy?: ProxyBridge;
	/** With a list of domains under Seatbelt: the proxy's port on the host's 127.0.0.1. */
	readonly proxyPort?: number;
	/** The per-command temporary folder on the host (Seatbelt; bwrap makes its own /tmp). */
	readonly tmp?: string;
	/** Where the command starts. */
	readonly cwd: string;
	/** Folders bound onto themselves, writable, parents first: the ancestors of protected paths. */
	readonly inPlace?: readonly string[];
	/** Protected top-level names that do not exist: an empty read-only folder or file holds each. */
	readonly absent?: readonly { readonly path: string; readonly folder: boolean }[];
	/** The home folder, hidden behind an empty tmpfs, and what in it stays visible, read-only. */
	readonly home?: { readonly path: string; readonly visible: readonly string[] };
	/** Folders hidden behind an empty tmpfs for the host's Unix sockets: /run, $XDG_RUNTIME_DIR. */
	readonly runtime?: readonly string[];
	/** Programs (PATH folders, the node forwarder) in places the sandbox hides, bound read-only at their path. */
	readonly tools?: readonly string[];
	/** The whole environment of the command (bwrap: `--clearenv`, then these). */
	readonly env?: Readonly<Record<string, string>>;
	/** At most this many processes at once (a pids cgroup, where Longhaul can make one: processLimit.ts). */
	readonly maxProcesses?: number;
	/** The size of /tmp and of the hidden home, each (tmpfs `--size`). */
	readonly tmpBytes?: number;
	/** With the network off: the seccomp filter that refuses `socket(AF_UNIX)` is given on SECCOMP_FD. */
	readonly unixSocketFilter?: boolean;
	/** Protected paths that are symbolic links, and their identity before the command (commandSandbox.ts). */
	readonly links?: ReadonlyMap<string, string>;
	/** The walk for files that run code ran out of time: some may not be read-only. */
	readonly incomplete?: boolean;
}

/** The per-command temporary folder inside the sandbox. */
export const SANDBOX_TMP = '/tmp';

/** Paths below $HOME that hold credentials; hidden when they exist. */
export const HOME_SECRETS: readonly string[] = [
	'.ssh',
	'.aws',
	'.gnupg',
	'.config/gh',
	'.netrc',
	'.npmrc',
	'.docker/config.json',
	'.git-credentials',
	'.config/git/credentials',
	'.pypirc',
	'.kube',
	'.azure',
	'.config/gcloud',
	// VS Code's own storage: tokens, chat history, extension secrets.
	'.vscode',
	'.vscode-server',
	'.vscode-server-insiders',
	'.config/Code',
	'.config/Code - Insiders',
	'.config/VSCodium',
	'.config/code-server',
	'.local/share/code-server',
];

/** Secret paths below `home`, joined with `/` (the caller keeps only those that exist). */
export function homeSecretPaths(home: string): string[] {
	const base = home.replace(/\/+$/, '');
	return HOME_SECRETS.map(p => `${base}/${p}`);
}

function isBelow(path: string, folder: string): boolean {
	return path === folder || path.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
}

/**
 * The bwrap arguments that run `shell -c command` under the plan. A secret inside a workspace
 * folder is hidden too (it comes after the folder); a workspace folder inside a secret folder
 * stays hidden, so the command fails visibly instead of reaching the secret.
 */
export function bwrapArgs(plan: SandboxPlan, command: string, shell = '/bin/sh'): string[] {
	const size = plan.tmpBytes ? ['--size', String(plan.tmpBytes)] : [];
	const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...size, '--tmpfs', SANDBOX_TMP];
	if (plan.home) {
		args.push(...size, '--tmpfs', plan.home.path);
		for (const path of plan.home.visible) args.push('--ro-bind', path, path);
	}
	// Writable, so that a workspace or a tool below /run still gets its mount point; private and empty.
	for (const folder of plan.runtime ?? []) args.push(...size, '--tmpfs', folder);
	for (const path of plan.tools ?? []) args.push('--ro-bind', path, path);
	for (const folder of plan.writable) args.push('--bind', folder, folder);
	const inWorkspace = (path: string) => plan.writable.some(f => isBelow(path, f));
	for (const folder of plan.inPlace ?? []) if (inWorkspace(folder)) args.push('--bind', folder, folder);
	for (const path of plan.readOnly) if (inWorkspace(path)) args.push('--ro-bind', path, path);
	for (const a of plan.absent ?? []) {
		if (!inWorkspace(a.path)) continue;
		args.push(...(a.folder ? ['--tmpfs', a.path, '--remount-ro', a.path] : ['--ro-bind', '/dev/null', a.path]));
	}
	for (const folder of plan.hiddenFolders) args.push('--tmpfs', folder, '--remount-ro', folder);
	for (const file of plan.hiddenFiles) args.push('--ro-bind', '/dev/null', file);
	if (plan.proxy) {
		args.push('--ro-bind', plan.proxy.socket, SANDBOX_PROXY_SOCKET);
		// A forwarder in a place the sandbox hides (node from ~/.vscode-server, a cache under /tmp) is bound back.
		const program = plan.proxy.forwarder.program;
		const hidden = [SANDBOX_TMP, ...(plan.home ? [plan.home.path] : []), ...(plan.runtime ?? [])];
		if (hidden.some(h => isBelow(program, h)) && !(plan.tools ?? []).includes(program)) args.push('--ro-bind', program, program);
	}
	// The namespaces the policy needs, and no more: each costs time at every start (a network
	// namespace about 8 ms here; UTS and cgroup namespaces would add about 5 ms and protect nothing).
	args.push('--unshare-pid', '--unshare-ipc');
	if (plan.network !== 'all') args.push('--unshare-net');
	if (plan.unixSocketFilter && plan.network === 'off') args.push('--seccomp', String(SECCOMP_FD));
	args.push('--cap-drop', 'ALL', '--die-with-parent', '--new-session');
	if (plan.env) args.push('--clearenv', ...Object.entries(plan.env).flatMap(([name, value]) => ['--setenv', name, value]));
	args.push('--setenv', 'TMPDIR', SANDBOX_TMP, '--chdir', plan.cwd);
	if (!plan.proxy) return [...args, '--', shell, '-c', command];
	for (const [name, value] of Object.entries({ ...proxyEnv(), ...plan.proxy.forwarder.env })) args.push('--setenv', name, value);
	return [...args, '--', ...forwarderCommand(plan.proxy.forwarder, SANDBOX_PROXY_PORT, shell, command)];
}

/** The arguments that check, once, whether bwrap can start a sandbox of this kind here. */
export function probeArgs(network: CommandNetwork, forwarder?: Forwarder): string[] {
	const net = network !== 'all' ? ['--unshare-net'] : [];
	const args = [
		'--ro-bind',
		'/',
		'/',
		'--dev',
		'/dev',
		'--proc',
		'/proc',
		'--tmpfs',
		SANDBOX_TMP,
		'--unshare-pid',
		...net,
		'--cap-drop',
		'ALL',
		'--die-with-parent',
	];
	if (network === 'off' || network === 'all' || !forwarder) return [...args, '--', 'true'];
	// With a list of domains the forwarder must start too (it runs and listens inside), or no command would.
	const env = Object.entries(forwarder.env).flatMap(([name, value]) => ['--setenv', name, value]);
	return [...args, ...env, '--', ...forwarderCommand(forwarder, SANDBOX_PROXY_PORT, '/bin/sh', 'true')];
}

/** What the sandbox lets a command do, in one line for its confirmation. */
export function sandboxSummary(network: CommandNetwork, engine: SandboxEngine['kind'] = 'bwrap'): string {
	const net = networkSummary(network);
	// Seatbelt has no process namespace: the reaper stops what it finds, not everything.
	const ends =
		engine === 'bwrap' ? 'nothing it starts outlives it' : 'what it leaves running is stopped when it ends (Seatbelt: as far as Longhaul can find it)';
	return `Sandboxed: writes only in the workspace and a temporary folder; files that run code (the whole .git: no commits), your home folder (but toolchains, read-only), your tokens and the rest of the system are out of reach; ${net}; ${ends}.`;
}

const READ_ONLY = /read-only file system|\bEROFS\b/i;
/** What Seatbelt's refusals look like (macOS): the same walls, worded by the kernel as a permission. */
const NOT_PERMITTED = /operation not permitted|\bEPERM\b/i;
const NO_NETWORK =
	/network is unreachable|temporary failure in name resolution|could not resolve host|\bEAI_AGAIN\b|\bENETUNREACH\b|name or service not known/i;

/** The walls the output shows the command ran into, in words. */
function walls(output: string, network: CommandNetwork, engine: SandboxEngine['kind']): string[] {
	const found: string[] = [];
	const readOnly = READ_ONLY.test(output) || (engine === 'seatbelt' && NOT_PERMITTED.test(output));
	if (readOnly) found.push('the file system outside the workspace, and the files that run code inside it, are read-only');
	if (network !== 'all' && NO_NETWORK.test(output)) {
		found.push(
			network === 'off'
				? 'there is no network'
				: 'there is no direct network: only the listed domains, through the proxy in HTTP_PROXY and HTTPS_PROXY (a program that ignores those variables gets no network)',
		);
	}
	return found;
}

/**
 * A note for the result of a command that failed on the sandbox's walls, so that the model does
 * not try it again the same way; undefined when the output shows no such failure.
 */
export function wallNote(output: string, failed: boolean, network: CommandNetwork, engine: SandboxEngine['kind'] = 'bwrap'): string | undefined {
	if (!failed) return undefined;
	const hit = walls(output, network, engine);
	if (hit.length === 0) return undefined;
	return `The command ran in Longhaul's sandbox and seems to have failed on its walls: ${hit.join('; ')}. Retrying it the same way fails the same way. Work inside the workspace, or, if it must run outside the sandbox, call longhaul_runCommand again with outsideSandbox: true (the user is asked a second time, with a warning).`;
}
