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

/**
 * Entries grouped by the directory of their path, cut to the deepest level that gives at most
 * `maxGroups` groups (groups in order of their first entry). Linear in the entries for each level tried.
 */
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

interface TreeNode<T> {
	readonly dirs: Map<string, TreeNode<T>>;
	readonly files: { name: string; entry: T }[];
	leaves: number;
}

const newNode = <T>(): TreeNode<T> => ({ dirs: new Map(), files: [], leaves: 0 });

/**
 * Lines for `entries` as a tree of their directories, each shared directory written once:
 *
 *     - /testbed/src/acme/
 *       - cli/index.py (2 edits)
 *       - core/
 *         - a.py (created)
 *         - b.py
 *
 * A directory with one file under it is not a line of its own (the file's line carries the rest
 * of the path), and a chain of directories with nothing else in them is one line. Sorted by name.
 * `lineOf(indent, name, entry)` makes a file's line.
 */
export function pathTreeLines<T>(entries: readonly T[], pathOf: (e: T) => string, lineOf: (indent: string, name: string, entry: T) => string): string[] {
	const root = newNode<T>();
	for (const entry of entries) {
		const parts = pathOf(entry).split('/');
		const name = parts.pop()!;
		let node = root;
		node.leaves++;
		for (const part of parts) {
			let next = node.dirs.get(part);
			if (!next) node.dirs.set(part, (next = newNode<T>()));
			node = next;
			node.leaves++;
		}
		node.files.push({ name, entry });
	}
	const lines: string[] = [];
	const render = (node: TreeNode<T>, indent: string) => {
		const items: { key: string; emit: () => void }[] = [];
		for (const f of node.files) items.push({ key: f.name, emit: () => lines.push(lineOf(indent, f.name, f.entry)) });
		for (const [name, child] of node.dirs) {
			items.push({
				key: name,
				emit: () => {
					// Follow a chain of directories that hold nothing but one directory each.
					const chain = [name];
					let c = child;
					while (c.files.length === 0 && c.dirs.size === 1) {
						const [n, only] = c.dirs.entries().next().value!;
						chain.push(n);
						c = only;
					}
					if (c.leaves === 1) {
						// One file below: one line with the rest of its path.
						let leaf = c;
						while (leaf.files.length === 0) {
							const [n, only] = leaf.dirs.entries().next().value!;
							chain.push(n);
							leaf = only;
						}
						lines.push(lineOf(indent, `${chain.join('/')}/${leaf.files[0].name}`, leaf.files[0].entry));
						return;
					}
					lines.push(`${indent}- ${chain.join('/')}/`);
					render(c, indent + '  ');
				},
			});
		}
		items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
		for (const item of items) item.emit();
	};
	render(root, '');
	return lines;
}
