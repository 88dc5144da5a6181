// Keeps Longhaul's file tools inside the workspace folders.
// No `vscode` import: the roots and the file system are passed in, so it is unit-tested in Node.
//
// The path is resolved the way the kernel would resolve it, one component at a time with lstat:
// every symbolic link is read and followed (relative or absolute, to a file or a folder, dangling
// or not), `..` after a link climbs from where the link led, and whatever does not exist yet is
// the rest of the path. Only then is the result compared with the workspace folders. The guard
// says where a path leads; safeFs.ts opens it so that no link can be followed after the check.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export type Refusal = { readonly ok: false; readonly reason: string };

export type ResolvedPath =
	| {
			readonly ok: true;
			/** The physical path: no symbolic link in it, and the part that does not exist yet appended. */
			readonly path: string;
			/** The workspace folder (its real path) that holds it. */
			readonly root: string;
			/** Whether the whole path exists. */
			readonly exists: boolean;
	  }
	| Refusal;

export interface PathGuardFs {
	/** Like fs.lstatSync: throws ENOENT for a missing path and does not follow a final link. */
	lstat(p: string): fs.Stats;
	/** Like fs.readlinkSync. */
	readlink(p: string): string;
	/** Like fs.realpathSync.native: used on paths that exist, to get their canonical spelling. */
	realpath(p: string): string;
}

export const nodeFs: PathGuardFs = {
	lstat: p => fs.lstatSync(p),
	readlink: p => fs.readlinkSync(p),
	realpath: p => fs.realpathSync.native(p),
};

/** Linux gives up after 40 links (ELOOP); so does the guard. */
const MAX_LINKS = 40;
/** Linux's NAME_MAX and PATH_MAX, checked for the part of a path that does not exist yet. */
const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4096;

/** Is `candidate` the folder `root` or inside it? Both absolute and normalized. */
export function isInside(root: string, candidate: string): boolean {
	const rel = path.relative(root, candidate);
	// `..foo` is a legal name inside the root; only `..` itself or `../…` climbs out.
	return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function errorCode(error: unknown): string {
	return (error as NodeJS.ErrnoException)?.code ?? 'EUNKNOWN';
}

const SEPARATORS = path.sep === '\\' ? /[\\/]+/ : /\/+/;

function components(p: string): string[] {
	return p.split(SEPARATORS).filter(c => c !== '' && c !== '.');
}

type Walk = { ok: true; path: string; exists: boolean; existing: string; viaLink: boolean } | { ok: false; code: string; at: string; viaLink?: boolean };

/**
 * Resolves an absolute path as the kernel does: component by component, following every link.
 * `existing` is the longest prefix of the result that exists (the result itself when `exists`).
 */
function walk(abs: string, fsApi: PathGuardFs): Walk {
	const start = path.parse(abs).root;
	let resolved = start;
	let existing = start;
	let pending = components(abs.slice(start.length));
	let links = 0;
	let missing = false;
	let viaLink = false;
	while (pending.length > 0) {
		const name = pending.shift()!;
		if (name === '..') {
			// `resolved` holds no link, so its parent is the physical parent.
			resolved = path.dirname(resolved);
			if (!missing) existing = resolved;
			continue;
		}
		const next = path.join(resolved, name);
		if (missing) {
			// Nothing to lstat below a missing folder: check the limits the kernel would.
			if (Buffer.byteLength(name) > MAX_NAME_BYTES) return { ok: false, code: 'ENAMETOOLONG', at: next, viaLink };
			resolved = next;
			continue;
		}
		let stat: fs.Stats;
		try {
			stat = fsApi.lstat(next);
		} catch (error) {
			const code = errorCode(error);
			if (code !== 'ENOENT') return { ok: false, code, at: next, viaLink };
			missing = true;
			existing = resolved;
			resolved = next;
			continue;
		}
		if (stat.isSymbolicLink()) {
			if (++links > MAX_LINKS) return { ok: false, code: 'ELOOP', at: next, viaLink };
			let target: string;
			try {
				target = fsApi.readlink(next);
			} catch (error) {
				return { ok: false, code: errorCode(error), at: next, viaLink };
			}
			viaLink = true;
			if (path.isAbsolute(target)) {
				const targetRoot = path.parse(target).root;
				resolved = targetRoot;
				existing = targetRoot;
				pending = [...components(target.slice(targetRoot.length)), ...pending];
			} else {
				pending = [...components(target), ...pending];
			}
			continue;
		}
		if (pending.length > 0 && !stat.isDirectory()) return { ok: false, code: 'ENOTDIR', at: next, viaLink };
		resolved = next;
		existing = next;
	}
	if (Buffer.byteLength(resolved) >= MAX_PATH_BYTES) return { ok: false, code: 'ENAMETOOLONG', at: resolved, viaLink };
	return { ok: true, path: resolved, exists: !missing, existing, viaLink };
}

/** The physical path of `abs` in its canonical spelling (case on macOS and Windows), or an error code. */
function physical(abs: string, fsApi: PathGuardFs): Walk {
	const walked = walk(abs, fsApi);
	if (!walked.ok) return walked;
	let canonical: string;
	try {
		// The existing prefix holds no link, so realpath only fixes the spelling; if something was
		// swapped in the meantime, realpath says where it leads now and the inside check sees that.
		canonical = fsApi.realpath(walked.existing);
	} catch (error) {
		return { ok: false, code: errorCode(error), at: walked.existing };
	}
	const rest = path.relative(walked.existing, walked.path);
	return { ...walked, path: rest ? path.join(canonical, rest) : canonical, existing: canonical };
}

/** The real paths of the workspace folders (a folder that cannot be resolved is used as given). */
export function realRoots(roots: readonly string[], fsApi: PathGuardFs = nodeFs): string[] {
	return roots.map(root => {
		const resolved = physical(path.resolve(root), fsApi);
		return resolved.ok ? resolved.path : path.resolve(root);
	});
}

/** The input as it may appear in a message: quoted, control characters escaped, at most 200 characters. */
export function quotePath(input: string): string {
	return JSON.stringify(input.length > 200 ? `${input.slice(0, 200)}…` : input);
}

const CODE_REASONS: Readonly<Record<string, string>> = {
	ELOOP: 'goes through too many symbolic links (ELOOP)',
	ENAMETOOLONG: 'is too long (ENAMETOOLONG)',
	ENOTDIR: 'goes through something that is not a folder (ENOTDIR)',
	EACCES: 'cannot be checked: permission denied (EACCES)',
	EPERM: 'cannot be checked: operation not permitted (EPERM)',
};

export function codeReason(input: string, code: string): Refusal {
	return { ok: false, reason: `The path ${quotePath(input)} ${CODE_REASONS[code] ?? `cannot be checked (${code})`}.` };
}

/**
 * Resolves a path the model gave (relative to the first root, or absolute) and refuses anything
 * that is not inside one of the roots once `..` and symbolic links are resolved. Never throws:
 * every odd path (too long, a link loop, a file used as a folder, no permission) is a refusal.
 */
export function resolveInsideRoots(roots: readonly string[], input: unknown, fsApi: PathGuardFs = nodeFs): ResolvedPath {
	if (roots.length === 0) {
		return { ok: false, reason: "No workspace folder is open; Longhaul's file tools only work inside a workspace folder." };
	}
	if (typeof input !== 'string' || input.trim() === '') {
		return { ok: false, reason: 'The path is empty.' };
	}
	if (input.includes('\0')) {
		return { ok: false, reason: 'The path contains a NUL character.' };
	}
	// A model may send a URI where a path is asked for. `file:` URIs (`file:///a`, `file:/a`) are
	// read as the path they name; any other `scheme:/…` (two letters or more, so not a Windows
	// drive) is refused rather than made into folders named `http:` or `vscode-remote:`.
	if (/^[a-z][a-z0-9+.-]+:\//i.test(input)) {
		if (!/^file:\//i.test(input)) return { ok: false, reason: `${quotePath(input)} is a URI, not a path; give a path inside the workspace folders.` };
		let local: string;
		try {
			local = fileURLToPath(input);
		} catch {
			return { ok: false, reason: `${quotePath(input)} is not a file URI that names a local path.` };
		}
		return resolveInsideRoots(roots, local, fsApi);
	}
	try {
		const given = roots.map(root => path.resolve(root));
		const real = realRoots(roots, fsApi);
		const outside = { ok: false as const, reason: `The path ${quotePath(input)} is outside the workspace folders (${roots.join(', ')}).` };
		const throughLink = { ok: false as const, reason: `The path ${quotePath(input)} leads outside the workspace folders through a symbolic link.` };
		// A path that is outside by its spelling is refused without looking at the disk there.
		const lexical = path.isAbsolute(input) ? path.resolve(input) : path.resolve(given[0], input);
		if (![...given, ...real].some(root => isInside(root, lexical))) return outside;
		// Then the walk, on the path as given: path.resolve removes `link/..` by spelling, where the
		// kernel climbs from wherever the link led.
		const absolute = path.isAbsolute(input) ? input : `${given[0]}${path.sep}${input}`;
		const resolved = physical(absolute, fsApi);
		if (!resolved.ok) {
			// What a link leads to outside is not described (no ENOTDIR or ELOOP about outside paths).
			return resolved.viaLink && !real.some(root => isInside(root, resolved.at)) ? throughLink : codeReason(input, resolved.code);
		}
		const root = real.find(r => isInside(r, resolved.path));
		if (!root) return resolved.viaLink ? throughLink : outside;
		return { ok: true, path: resolved.path, root, exists: resolved.exists };
	} catch (error) {
		return codeReason(input, errorCode(error));
	}
}
