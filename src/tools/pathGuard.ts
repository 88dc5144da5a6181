// Keeps Longhaul's file tools inside the workspace folders.
// No `vscode` import: the roots and the file system are passed in, so it is unit-tested in Node.
import * as fs from 'node:fs';
import * as path from 'node:path';

export type ResolvedPath = { readonly ok: true; readonly path: string; readonly root: string } | { readonly ok: false; readonly reason: string };

export interface PathGuardFs {
	/** Like fs.realpathSync.native: throws ENOENT for a missing path. */
	realpath(p: string): string;
}

export const nodeFs: PathGuardFs = { realpath: p => fs.realpathSync.native(p) };

function isInside(root: string, candidate: string): boolean {
	const rel = path.relative(root, candidate);
	return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The real path of `p`, or, when it does not exist yet, the real path of its nearest
 * existing ancestor joined with the missing rest. Symbolic links are followed, so a
 * link that leads outside the workspace is seen for what it is.
 */
function realpathAllowingMissing(p: string, fsApi: PathGuardFs): string {
	const missing: string[] = [];
	let current = p;
	for (;;) {
		try {
			return path.join(fsApi.realpath(current), ...missing.reverse());
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code !== 'ENOENT' && code !== 'ENOTDIR') {
				throw error;
			}
			const parent = path.dirname(current);
			if (parent === current) {
				return p;
			}
			missing.push(path.basename(current));
			current = parent;
		}
	}
}

/**
 * Resolves a path the model gave (relative to the first root, or absolute) and refuses
 * anything that is not inside one of the roots after `..` and symbolic links are resolved.
 */
export function resolveInsideRoots(roots: readonly string[], input: string, fsApi: PathGuardFs = nodeFs): ResolvedPath {
	if (roots.length === 0) {
		return { ok: false, reason: "No workspace folder is open; Longhaul's file tools only work inside a workspace folder." };
	}
	if (typeof input !== 'string' || input.trim() === '') {
		return { ok: false, reason: 'The path is empty.' };
	}
	if (input.includes('\0')) {
		return { ok: false, reason: 'The path contains a NUL character.' };
	}
	const realRoots = roots.map(root => realpathAllowingMissing(path.resolve(root), fsApi));
	const lexical = path.isAbsolute(input) ? path.resolve(input) : path.resolve(roots[0], input);
	const lexicalRoot = roots.map(r => path.resolve(r)).find(root => isInside(root, lexical));
	if (!lexicalRoot) {
		return { ok: false, reason: `The path ${input} is outside the workspace folders (${roots.join(', ')}).` };
	}
	const real = realpathAllowingMissing(lexical, fsApi);
	const realRoot = realRoots.find(root => isInside(root, real));
	if (!realRoot) {
		return { ok: false, reason: `The path ${input} leads outside the workspace folders through a symbolic link.` };
	}
	return { ok: true, path: real, root: realRoot };
}
