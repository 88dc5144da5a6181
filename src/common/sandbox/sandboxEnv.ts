// What a sandboxed command gets of the extension host's environment and home folder: an allowlist
// (docs/decisions.md §46), not a list of secrets. The extension host's environment holds tokens
// (GITHUB_TOKEN, npm_config__authToken), VS Code's IPC handles (VSCODE_IPC_HOOK*), agents' sockets
// (SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS) and ELECTRON_RUN_AS_NODE; none of them is on the list.
// The home folder is an empty tmpfs inside the sandbox but for the folders toolchains install
// their programs and caches in, bound read-only. Pure: no vscode import, no file system access.
import { gitHardeningEnv } from './gitHardening';

/** Variables a command gets as the extension host has them. */
export const ALLOWED_ENV: readonly string[] = [
	// The shell and the terminal.
	'PATH',
	'HOME',
	'USER',
	'LOGNAME',
	'SHELL',
	'TERM',
	'COLORTERM',
	'TZ',
	'LANG',
	'LANGUAGE',
	// Toolchains: where they are installed and which version runs.
	'GOPATH',
	'GOROOT',
	'GOBIN',
	'GOMODCACHE',
	'GOFLAGS',
	'GOTOOLCHAIN',
	'CARGO_HOME',
	'RUSTUP_HOME',
	'RUSTUP_TOOLCHAIN',
	'JAVA_HOME',
	'JDK_HOME',
	'MAVEN_HOME',
	'M2_HOME',
	'GRADLE_HOME',
	'ANDROID_HOME',
	'ANDROID_SDK_ROOT',
	'NVM_DIR',
	'NVM_BIN',
	'VOLTA_HOME',
	'PNPM_HOME',
	'BUN_INSTALL',
	'DENO_INSTALL',
	'PYENV_ROOT',
	'PYENV_VERSION',
	'VIRTUAL_ENV',
	'CONDA_PREFIX',
	'CONDA_DEFAULT_ENV',
	'RBENV_ROOT',
	'GEM_HOME',
	'GEM_PATH',
	'SDKMAN_DIR',
	'DOTNET_ROOT',
	'CC',
	'CXX',
	'PKG_CONFIG_PATH',
	'LD_LIBRARY_PATH',
];

/** Prefixes of allowed variables: the locale. */
const ALLOWED_PREFIXES: readonly string[] = ['LC_'];

/** The host's proxy, passed with the whole network only and only without credentials in it. */
const HOST_PROXY = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];

/** Whether the host passes `name` to a sandboxed command. */
export function envAllowed(name: string): boolean {
	return ALLOWED_ENV.includes(name) || ALLOWED_PREFIXES.some(p => name.startsWith(p));
}

/**
 * The environment a sandboxed command starts with: the allowed variables the host has, `HOME` as
 * the home folder the plan hides, and git's hardening (gitHardening.ts). With the whole network,
 * the host's own proxy variables too, unless one holds a user name or password.
 */
export function sandboxEnv(host: Readonly<Record<string, string | undefined>>, home: string, wholeNetwork: boolean): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [name, value] of Object.entries(host)) if (value !== undefined && envAllowed(name)) env[name] = value;
	if (wholeNetwork) for (const name of HOST_PROXY) if (host[name] && !host[name]!.includes('@')) env[name] = host[name]!;
	return { ...env, HOME: home, ...gitHardeningEnv({}) };
}

/**
 * Folders below the home folder that stay visible, read-only, in the hidden home: where toolchains
 * keep their programs and the packages a build reads. Not their configuration where it holds
 * credentials (~/.cargo/credentials.toml, ~/.m2/settings.xml, ~/.gradle/gradle.properties).
 */
export const HOME_TOOLCHAINS: readonly string[] = [
	'.cargo/bin',
	'.cargo/registry',
	'.cargo/git',
	'.rustup',
	'.nvm',
	'.volta',
	'.fnm',
	'.local/share/fnm',
	'.local/share/pnpm',
	'.bun/bin',
	'.deno/bin',
	'.local/bin',
	'.local/lib',
	'.local/share/pipx',
	'.pyenv',
	'.rbenv',
	'.sdkman/candidates',
	'.m2/repository',
	'.gradle/caches',
	'.gradle/wrapper',
	'go/bin',
	'go/pkg',
	'.dotnet',
	'.elan',
	'.ghcup/bin',
	'.nix-profile',
	'.asdf',
	'.local/share/mise/installs',
];

/** The toolchain folders below `home`, joined with `/` (the caller keeps those that exist). */
export function homeToolchainPaths(home: string): string[] {
	const base = home.replace(/\/+$/, '');
	return HOME_TOOLCHAINS.map(p => `${base}/${p}`);
}
