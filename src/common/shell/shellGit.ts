// What a git command line does. Read-only subcommands stay inspections unless an option makes
// them run something: any `-c` / `--config-env` before the subcommand (a config value such as
// core.fsmonitor, core.pager or alias.* is a command), `--exec-path=`, `-p` (the pager), grep's
// -O (open the files in a program), --output (writes a file), --ext-diff / --textconv (run the
// diff and conversion programs the configuration names), cat-file --filters. git accepts long
// options abbreviated, so any prefix of those counts too.
import { type Arg, type Effects, inspecting, running } from './shellEffectsModel';

/** Read-only git subcommands (branch, tag, remote, stash and config are read-only only in some forms). */
const GIT_LOOKS = new Set([
	'status',
	'diff',
	'log',
	'show',
	'grep',
	'ls-files',
	'ls-tree',
	'blame',
	'rev-parse',
	'describe',
	'shortlog',
	'cat-file',
	'rev-list',
]);
/** Global options that take the next word as their value. */
const GLOBAL_WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree', '--namespace']);
/** Global options that change nothing that runs. */
const GLOBAL_FLAGS = new Set([
	'-P',
	'--no-pager',
	'--bare',
	'--no-replace-objects',
	'--literal-pathspecs',
	'--glob-pathspecs',
	'--noglob-pathspecs',
	'--icase-pathspecs',
	'--no-optional-locks',
	'--no-advice',
	'--no-lazy-fetch',
]);
/** Long options of the read-only subcommands that run a program or write a file. */
const RUNNING_LONG = ['--output', '--ext-diff', '--textconv', '--open-files-in-pager', '--filters', '--help'];
/** Options of their own that only look like an abbreviation of one of those (an exact name wins in git). */
const OWN_OPTIONS = new Set(['--text']);

function runningOption(sub: string, text: string): boolean {
	if (text.startsWith('--')) {
		const name = text.split('=')[0];
		return name.length > 2 && !OWN_OPTIONS.has(name) && RUNNING_LONG.some(r => r.startsWith(name));
	}
	// grep's -O[program] may stand in a cluster (-nO…); after it the rest of the word is its value.
	return sub === 'grep' && /^-[^-]*O/.test(text);
}

/** Index of the subcommand after the global options, or 'runs' when a global option runs something. */
function subcommandAt(args: readonly Arg[]): number | 'runs' {
	let i = 0;
	while (i < args.length && args[i].text.startsWith('-')) {
		const a = args[i];
		if (!a.literal) return 'runs';
		if (GLOBAL_WITH_VALUE.has(a.text)) i += 2;
		else if ([...GLOBAL_WITH_VALUE].some(g => g.startsWith('--') && a.text.startsWith(g + '='))) i++;
		else if (GLOBAL_FLAGS.has(a.text)) i++;
		else return 'runs'; // -c, --config-env, --exec-path, -p, --paginate and anything unknown
	}
	return i;
}

/** Global options that point git at a repository other than the one the folder is in. */
const ELSEWHERE = /^(-C|--git-dir|--work-tree)(=|$)/;

/**
 * A read-only subcommand run with -C, --git-dir or --work-tree reads the configuration of that
 * repository, which the agent may have written (core.fsmonitor, a bare repository): it counts as
 * running code, unless the sandbox holds it (shellCommand.ts decides).
 */
export function gitEffects(args: readonly Arg[]): Effects {
	const effects = gitSubcommandEffects(args);
	for (let i = 0; i < args.length && args[i].text.startsWith('-'); i += GLOBAL_WITH_VALUE.has(args[i].text) ? 2 : 1) {
		if (ELSEWHERE.test(args[i].text)) effects.otherRepository = true;
	}
	return effects;
}

function gitSubcommandEffects(args: readonly Arg[]): Effects {
	const at = subcommandAt(args);
	if (at === 'runs') return running();
	if (at >= args.length) return inspecting();
	const sub = args[at];
	const rest = args.slice(at + 1);
	if (!sub.literal || rest.some(a => !a.literal || runningOption(sub.text, a.text))) return running();
	if (GIT_LOOKS.has(sub.text)) return inspecting();
	const onlyOptions = (allowed: RegExp) => rest.every(a => allowed.test(a.text));
	switch (sub.text) {
		case 'branch':
			// Listing forms only; a name, or -d/-D/-m/-M/-c/-C/-u/--delete/… changes branches.
			return onlyOptions(/^(-a|-r|-v|-vv|-l|--list|--all|--remotes|--verbose|--show-current|--no-color|--color|--merged|--no-merged|--contains)$/)
				? inspecting()
				: running();
		case 'tag':
			return onlyOptions(/^(-l|--list|-n\d*)$/) ? inspecting() : running();
		case 'remote':
			return onlyOptions(/^(-v|--verbose)$/) ? inspecting() : running();
		case 'stash':
			return rest[0]?.text === 'list' || rest[0]?.text === 'show' ? inspecting() : running();
		case 'config':
			return rest.some(a => /^(--get|--get-all|--get-regexp|-l|--list)$/.test(a.text)) ? inspecting() : running();
	}
	return running();
}
