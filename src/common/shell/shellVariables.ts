// Variables whose value decides what a later program runs: the search path, preloaded
// libraries, the shell's startup files and prompts, pagers, editors and input filters (less runs
// LESSOPEN), git's GIT_* settings (GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, GIT_CONFIG_*), where
// configuration is read from (HOME, XDG_CONFIG_HOME: a ~/.gitconfig can name core.fsmonitor),
// interpreters' startup options and search paths. Assigning one, before a command, alone, with
// export/declare/local or through env, printf -v or a for loop, counts as running something.

const EXACT = new Set([
	'PATH',
	'ENV',
	'BASH_ENV',
	'PROMPT_COMMAND',
	'PS0',
	'PS1',
	'PS2',
	'PS3',
	'PS4',
	'SHELLOPTS',
	'BASHOPTS',
	'HOME',
	'XDG_CONFIG_HOME',
	'XDG_CONFIG_DIRS',
	'PAGER',
	'MANPAGER',
	'MANOPT',
	'EDITOR',
	'VISUAL',
	'BROWSER',
	'SHELL',
	'SSH_ASKPASS',
	'SUDO_ASKPASS',
	'RIPGREP_CONFIG_PATH',
	'GREP_OPTIONS',
	'TAR_OPTIONS',
	'GCONV_PATH',
	'JAVA_TOOL_OPTIONS',
	'_JAVA_OPTIONS',
	'MAKEFLAGS',
]);
/** Families by prefix: LD_PRELOAD…, DYLD_…, GIT_…, LESS/LESSOPEN/LESSCLOSE/LESSKEY…, PYTHONSTARTUP/PYTHONPATH…, NODE_OPTIONS…, PERL5OPT…, RUBYOPT…, exported bash functions. */
const PREFIXES = /^(LD_|DYLD_|GIT_|LESS|PYTHON|NODE_|PERL|RUBY|BASH_FUNC_)/;

/** True when assigning `name` can change what a later command runs. */
export function runsThroughVariable(name: string): boolean {
	return EXACT.has(name) || PREFIXES.test(name) || /^npm_config_/i.test(name);
}
