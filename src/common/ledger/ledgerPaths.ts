// Paths in the done-ledger: the directory of a path, and paths grouped by directory for the
// group lines of merged entries.

/** The directory part of a path (`src/a` for `src/a/b.ts`, `''` for `b.ts`), with either separator. */
export function dirOf(path: string): string {
	const at = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
	return at <= 0 ? (at === 0 ? '/' : '') : path.slice(0, at);
}

/**
 * The directory of a path at each depth (`['', 'src', 'src/a']` for `src/a/b.ts`), cached: a
 * render groups the same paths several times.
 */
const prefixCache = new Map<string, readonly string[]>();
function directoryPrefixes(path: string): readonly string[] {
	let prefixes = prefixCache.get(path);
	if (!prefixes) {
		const parts = path.split(/[\\/]/);
		parts.pop();
		const list = [''];
		for (let d = 1; d <= parts.length; d++) list.push(d === 1 ? parts[0] : `${list[d - 1]}/${parts[d - 1]}`);
		prefixes = list;
		if (prefixCache.size >= 100_000) prefixCache.clear();
		prefixCache.set(path, prefixes);
	}
	return prefixes;
}

export interface PathGroup {
	readonly dir: string;
	readonly paths: string[];
}

/**
 * Paths grouped by their directory, cut to the deepest level that gives at most `maxGroups`
 * groups (groups in order of their first path). Linear in the paths for each level tried.
 */
export function groupByDirectory(paths: readonly string[], maxGroups = 6): PathGroup[] {
	return groupEntriesByDirectory(paths, p => p, maxGroups).map(g => ({ dir: g.dir, paths: g.entries }));
}

/** {@link groupByDirectory} for any entries with a path. */
export function groupEntriesByDirectory<T>(entries: readonly T[], pathOf: (e: T) => string, maxGroups = 6): { dir: string; entries: T[] }[] {
	const dirs = entries.map(e => directoryPrefixes(pathOf(e)));
	const deepest = dirs.reduce((m, d) => Math.max(m, d.length - 1), 0);
	for (let depth = deepest; depth >= 0; depth--) {
		const groups = new Map<string, T[]>();
		let tooMany = false;
		for (let i = 0; i < entries.length; i++) {
			const prefixes = dirs[i];
			const key = prefixes[Math.min(depth, prefixes.length - 1)];
			const list = groups.get(key);
			if (list) list.push(entries[i]);
			else if (groups.size === maxGroups && depth > 0) {
				tooMany = true;
				break;
			} else groups.set(key, [entries[i]]);
		}
		if (!tooMany) return [...groups].map(([dir, list]) => ({ dir, entries: list }));
	}
	return [];
}
