// The macOS counterpart of bwrapArgs: the same plan (sandboxPolicy.ts) as a Seatbelt profile for
// `/usr/bin/sandbox-exec` (docs/decisions.md §37, "macOS"). Pure, unit-tested as text; it has
// never run here (Linux): docs/reliability.md says so.
//
// The profile denies everything, then allows what a shell and its programs need to run (processes,
// signals to its own sandbox, system information, the terminal devices), reading every file but
// the home folder (where the plan hides it: readable are its toolchain folders and the workspace
// folders in it) and the user's secrets, writing only below the workspace folders and the
// per-command temporary folder, minus the files that run code inside them (the whole `.git`) and
// the protected top-level names that do not exist yet, and the network the plan allows. The
// command starts with the plan's environment only (`env -i`, docs/decisions.md §46). Not translated:
// the ancestors bound in place, the /tmp and process bounds and the Unix-socket filter of bwrap. Each
// exception is written inside the rule it limits (require-not), so no rule depends on the order
// in which Seatbelt weighs them. Paths go in as parameters (`-D NAME=path`), never spliced into the
// profile's text, so no path can end a string or add a rule.
import { type CommandNetwork, proxyEnv } from './networkPolicy';
import { type SandboxPlan } from './sandboxPolicy';

export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

export interface SeatbeltProfile {
	readonly profile: string;
	/** Values of the profile's `(param "…")`, given to sandbox-exec as `-D name=value`. */
	readonly params: Readonly<Record<string, string>>;
}

/** What any command needs to run at all; none of it reaches a file, a secret or the network. */
const BASE = [
	'(version 1)',
	'(deny default)',
	'(allow process-exec process-fork)',
	'(allow signal process-info* (target same-sandbox))',
	'(allow sysctl-read user-preference-read mach-host* ipc-posix-sem ipc-posix-shm pseudo-tty)',
	'(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.PowerManagement.control"))',
	'(allow file-read* file-write* file-ioctl (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$") (regex #"^/dev/fd/"))',
];

/** The lines that give the network the plan allows; with a list of domains, only the proxy's port on the loopback. */
function networkRules(network: CommandNetwork, proxyPort: number | undefined): string[] {
	if (network === 'all') {
		return ['(allow network* system-socket)', '(allow mach-lookup (global-name "com.apple.dnssd.service") (global-name "com.apple.trustd.agent"))'];
	}
	if (network !== 'off' && proxyPort !== undefined) {
		return [`(allow network-outbound (remote ip "localhost:${proxyPort}"))`, '(allow system-socket)'];
	}
	return [];
}

function anyOf(kind: 'subpath' | 'literal', names: readonly string[]): string {
	return names.map(n => `(${kind} (param "${n}"))`).join(' ');
}

/**
 * The Seatbelt profile of `plan`; `tmp` is the command's own temporary folder on the host (Seatbelt
 * has no private /tmp), `proxyPort` the loopback port of the network proxy with a list of domains.
 */
export function seatbeltProfile(plan: SandboxPlan, tmp: string, proxyPort?: number): SeatbeltProfile {
	const params: Record<string, string> = {};
	const named = (prefix: string, paths: readonly string[]) =>
		paths.map((p, i) => {
			params[`${prefix}_${i}`] = p;
			return `${prefix}_${i}`;
		});
	const writable = named('WRITABLE', [...plan.writable, tmp]);
	const readOnly = named('READ_ONLY', plan.readOnly);
	const hiddenFolders = named('SECRET_DIR', plan.hiddenFolders);
	const hiddenFiles = named('SECRET_FILE', plan.hiddenFiles);
	const absent = named(
		'ABSENT',
		(plan.absent ?? []).map(a => a.path),
	);
	const secrets = `${anyOf('subpath', hiddenFolders)} ${anyOf('literal', hiddenFiles)}`.trim();
	// The home folder: unreadable but for its toolchain folders and the workspace folders in it.
	const home = plan.home ? named('HOME', [plan.home.path]) : [];
	const shown = named('TOOLCHAIN', plan.home?.visible ?? []);
	const homeRule = plan.home ? `(require-all ${anyOf('subpath', home)} (require-not (require-any ${anyOf('subpath', [...shown, ...writable])})))` : '';
	const unreadable = `${secrets} ${homeRule}`.trim();
	const read = unreadable ? `(allow file-read* (require-not (require-any ${unreadable})))` : '(allow file-read*)';
	// Secrets stay unwritable too: a workspace folder inside ~/.ssh does not make it writable.
	const kept = `${anyOf('subpath', readOnly)} ${anyOf('subpath', absent)} ${secrets}`.trim();
	const writableAny = `(require-any ${anyOf('subpath', writable)})`;
	const write = kept ? `(allow file-write* (require-all ${writableAny} (require-not (require-any ${kept}))))` : `(allow file-write* ${writableAny})`;
	// Names and sizes stay visible where contents are not: realpath() reads every folder on a path.
	const metadata = unreadable ? ['(allow file-read-metadata)'] : [];
	return { profile: [...BASE, ...metadata, read, write, ...networkRules(plan.network, proxyPort)].join('\n'), params };
}

/**
 * sandbox-exec's arguments that run `shell -c command` under the plan's profile; with the plan's
 * environment, `/usr/bin/env -i` starts the shell with that alone, plus its TMPDIR and proxy.
 */
export function sandboxExecArgs(plan: SandboxPlan, command: string, tmp: string, proxyPort?: number, shell = '/bin/sh'): string[] {
	const { profile, params } = seatbeltProfile(plan, tmp, proxyPort);
	const defines = Object.entries(params).flatMap(([name, value]) => ['-D', `${name}=${value}`]);
	if (!plan.env) return ['-p', profile, ...defines, '--', shell, '-c', command];
	const env = { ...plan.env, TMPDIR: tmp, ...(proxyPort !== undefined && plan.network !== 'off' && plan.network !== 'all' ? proxyEnv(proxyPort) : {}) };
	return ['-p', profile, ...defines, '--', '/usr/bin/env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), shell, '-c', command];
}
