// Paths in the done-ledger: the directory of a path, and paths grouped by directory for the
// group lines of merged entries.

/** The directory part of a path (`src/a` for `src/a/b.ts`, `''` for `b.ts`), with either separator. */
export function dirOf(path: string): string {
	const at = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
	return at <= 0 ? (at === 0 ? '/' : '') : path.slice(0, at);
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
	const dirs = paths.map(p => {
		const parts = p.split(/[\\/]/);
		parts.pop();
		return parts;
	});
	const deepest = dirs.reduce((m, d) => Math.max(m, d.length), 0);
	for (let depth = deepest; depth >= 0; depth--) {
		const groups = new Map<string, string[]>();
		for (let i = 0; i < paths.length; i++) {
			const key = dirs[i].slice(0, depth).join('/');
			const list = groups.get(key);
			if (list) list.push(paths[i]);
			else groups.set(key, [paths[i]]);
			if (groups.size > maxGroups && depth > 0) break;
		}
		if (groups.size <= maxGroups || depth === 0) {
			return [...groups].map(([dir, ps]) => ({ dir, paths: ps }));
		}
	}
	return [];
}
