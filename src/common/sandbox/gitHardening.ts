// Git settings every command Longhaul runs gets, sandboxed or not, through git's own
// GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n environment (the same scope as `git -c`,
// above every configuration file): a repository the agent wrote, or was tricked into writing,
// cannot run code through an ordinary `git status`, `git -C dir log` or `git commit`.
// - safe.bareRepository=explicit: git no longer treats a folder holding `config` and `HEAD` as a
//   repository it walks into by itself; a bare repository needs --git-dir / GIT_DIR.
// - core.fsmonitor=false: the hook git runs on status, diff and add, named by a repository's config.
// - core.hooksPath=/dev/null: no hook runs, the user's own ones (.git/hooks, husky, pre-commit)
//   included; docs/reliability.md says what this changes. No vscode import.

export const GIT_HARDENING: readonly (readonly [key: string, value: string])[] = [
	['safe.bareRepository', 'explicit'],
	['core.fsmonitor', 'false'],
	['core.hooksPath', '/dev/null'],
];

/**
 * The environment variables that add GIT_HARDENING after whatever GIT_CONFIG_* entries `env`
 * already holds (theirs are kept; a later entry wins, so ours do).
 */
export function gitHardeningEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
	const given = Number(env.GIT_CONFIG_COUNT);
	const start = Number.isInteger(given) && given > 0 ? given : 0;
	const out: Record<string, string> = { GIT_CONFIG_COUNT: String(start + GIT_HARDENING.length) };
	GIT_HARDENING.forEach(([key, value], i) => {
		out[`GIT_CONFIG_KEY_${start + i}`] = key;
		out[`GIT_CONFIG_VALUE_${start + i}`] = value;
	});
	return out;
}
