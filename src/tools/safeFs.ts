// Reads, writes and lists inside the workspace folders so that nothing the path guard did not see
// can be used: no vscode import, unit-tested in Node with real files, links, fifos and hard links.
//
// - Files are opened with O_NOFOLLOW (a final component swapped for a link fails) and O_NONBLOCK
//   (a named pipe opens without waiting for a writer), then checked through the open descriptor:
//   a regular file, one hard link only, and (on Linux, through /proc/self/fd) really inside a
//   workspace folder. A folder swapped for a link between the check and the open is caught there.
// - New files are created with O_CREAT|O_EXCL|O_NOFOLLOW inside a folder that is open and checked
//   (on Linux the name is created through /proc/self/fd/N/name, the equivalent of openat), so a
//   link, dangling or not, is never written through. Missing folders are made one at a time the
//   same way.
// - Files with more than one hard link are neither read nor written: another name for the same
//   file may be outside the workspace, and nothing tells where.
// Elsewhere than Linux the descriptor check compares the inode of the open file with the checked
// path instead, which leaves a window between the two calls (see docs/reliability.md).
import * as fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { decodeUtf8Text } from '../common/tools/utf8Text';
import { codeReason, isInside, nodeFs, PathGuardFs, quotePath, realRoots, Refusal, resolveInsideRoots } from './pathGuard';

const C = fs.constants;
const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;
const NOCTTY = C.O_NOCTTY ?? 0;
const DIRECTORY = C.O_DIRECTORY ?? 0;

const READ_FLAGS = C.O_RDONLY | NOFOLLOW | NONBLOCK | NOCTTY;
const UPDATE_FLAGS = C.O_RDWR | NOFOLLOW | NONBLOCK | NOCTTY;
const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW | NONBLOCK | NOCTTY;
const DIR_FLAGS = C.O_RDONLY | DIRECTORY | NOFOLLOW;

/** Where the kernel says an open descriptor is (Linux); undefined elsewhere. */
const PROC_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd') ? '/proc/self/fd' : undefined;

export interface SafeFsOptions {
	/** The file system the path guard looks at (tests swap folders for links in it). */
	readonly fsApi?: PathGuardFs;
}

export type Result<T> = ({ readonly ok: true } & T) | (Refusal & { readonly code?: string });

function errorCode(error: unknown): string {
	return (error as NodeJS.ErrnoException)?.code ?? 'EUNKNOWN';
}

function refusal(reason: string, code?: string): Refusal & { code?: string } {
	return { ok: false, reason, code };
}

function openError(input: string, error: unknown): Refusal & { code?: string } {
	const code = errorCode(error);
	if (code === 'ENOENT') return refusal(`The file ${quotePath(input)} does not exist (ENOENT: no such file).`, code);
	if (code === 'EEXIST') return refusal(`The file ${quotePath(input)} already exists.`, code);
	if (code === 'ELOOP' || code === 'EMLINK') {
		return refusal(`The path ${quotePath(input)} became a symbolic link after it was checked; Longhaul does not follow it.`, code);
	}
	if (code === 'EISDIR') return refusal(`The path ${quotePath(input)} is a folder, not a file.`, code);
	return { ...codeReason(input, code), code };
}

/** Refuses what the open descriptor shows to be anything but a single-link regular file inside. */
async function checkOpenFile(handle: FileHandle, checked: string, roots: readonly string[], input: string): Promise<Refusal | fs.Stats> {
	const stat = await handle.stat();
	if (stat.isDirectory()) return refusal(`The path ${quotePath(input)} is a folder, not a file.`, 'EISDIR');
	if (!stat.isFile()) {
		return refusal(`The path ${quotePath(input)} is not a regular file (a named pipe, socket or device); Longhaul reads and writes only regular files.`);
	}
	if (stat.nlink > 1) {
		return refusal(
			`The file ${quotePath(input)} has ${stat.nlink} hard links; another name for it may be outside the workspace, so Longhaul neither reads nor writes it.`,
		);
	}
	const where = await openedLocation(handle, checked);
	if (where === undefined || !roots.some(root => isInside(root, where))) {
		return refusal(`The path ${quotePath(input)} changed after it was checked and no longer leads inside the workspace folders.`);
	}
	return stat;
}

/**
 * The real path of an open descriptor: on Linux what /proc/self/fd says; elsewhere the checked
 * path, if it still names the very file that is open (same device and inode), else undefined.
 */
async function openedLocation(handle: FileHandle, checked: string): Promise<string | undefined> {
	if (PROC_FD) {
		try {
			const where = fs.readlinkSync(`${PROC_FD}/${handle.fd}`);
			return where.endsWith(' (deleted)') ? undefined : where;
		} catch {
			return undefined;
		}
	}
	try {
		const [opened, now] = [await handle.stat(), fs.lstatSync(checked)];
		return opened.dev === now.dev && opened.ino === now.ino ? checked : undefined;
	} catch {
		return undefined;
	}
}

async function close(handle: FileHandle | undefined): Promise<void> {
	await handle?.close().catch(() => undefined);
}

/** Reads at most `maxBytes` + 1 bytes from the start of an open file. */
async function readUpTo(handle: FileHandle, maxBytes: number): Promise<Buffer> {
	const buffer = Buffer.alloc(maxBytes + 1);
	let length = 0;
	while (length < buffer.length) {
		const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
		if (bytesRead === 0) break;
		length += bytesRead;
	}
	return buffer.subarray(0, length);
}

export type ReadResult = Result<{ readonly path: string; readonly data: Buffer }>;

/**
 * Reads a file inside the workspace folders: a single-link regular file of at most `maxBytes`.
 * A larger file is refused with code 'EFBIG'.
 */
export async function readInside(roots: readonly string[], input: unknown, maxBytes: number, options: SafeFsOptions = {}): Promise<ReadResult> {
	const fsApi = options.fsApi ?? nodeFs;
	const resolved = resolveInsideRoots(roots, input, fsApi);
	if (!resolved.ok) return resolved;
	const shown = input as string;
	let handle: FileHandle | undefined;
	try {
		handle = await fs.promises.open(resolved.path, READ_FLAGS);
		const checked = await checkOpenFile(handle, resolved.path, realRoots(roots, fsApi), shown);
		if (!(checked instanceof fs.Stats)) return checked;
		if (checked.size > maxBytes) {
			return refusal(`The file ${quotePath(shown)} has ${checked.size} bytes; Longhaul reads files of at most ${maxBytes} bytes.`, 'EFBIG');
		}
		const data = await readUpTo(handle, maxBytes);
		if (data.length > maxBytes) {
			return refusal(`The file ${quotePath(shown)} grew past ${maxBytes} bytes while it was read.`, 'EFBIG');
		}
		return { ok: true, path: resolved.path, data };
	} catch (error) {
		return openError(shown, error);
	} finally {
		await close(handle);
	}
}

export type UpdateResult = Result<{ readonly path: string; readonly before: string }>;

/** Why a file that is not UTF-8 text is not edited, and what to do instead. */
export function notTextReason(input: string, why: string): string {
	return `The file ${quotePath(input)} ${why}. Longhaul edits only UTF-8 text files, so that no byte it was not asked to change is changed; nothing was written. Convert it first (for example iconv -f latin1 -t utf-8), or change it with a command.`;
}

/**
 * Replaces the content of an existing file inside the workspace folders with `update(old)`, in
 * place (the same file, no rename), after the same checks as a read. Only UTF-8 text without NUL
 * bytes is updated (code 'ENOTTEXT' otherwise), so every byte outside the change stays as it was.
 */
export async function updateInside(
	roots: readonly string[],
	input: unknown,
	update: (before: string) => string | Refusal,
	maxBytes: number,
	options: SafeFsOptions = {},
): Promise<UpdateResult> {
	const fsApi = options.fsApi ?? nodeFs;
	const resolved = resolveInsideRoots(roots, input, fsApi);
	if (!resolved.ok) return resolved;
	const shown = input as string;
	let handle: FileHandle | undefined;
	try {
		handle = await fs.promises.open(resolved.path, UPDATE_FLAGS);
		const checked = await checkOpenFile(handle, resolved.path, realRoots(roots, fsApi), shown);
		if (!(checked instanceof fs.Stats)) return checked;
		const data = await readUpTo(handle, maxBytes);
		if (data.length > maxBytes) {
			return refusal(`The file ${quotePath(shown)} has more than ${maxBytes} bytes; Longhaul edits files of at most ${maxBytes} bytes.`, 'EFBIG');
		}
		// Text that is not UTF-8 would come back with every unreadable byte changed: refused instead.
		const decoded = decodeUtf8Text(data);
		if (!decoded.ok) return refusal(notTextReason(shown, decoded.reason), 'ENOTTEXT');
		const before = decoded.text;
		const after = update(before);
		if (typeof after !== 'string') return after;
		const bytes = Buffer.from(after, 'utf8');
		await handle.truncate(0);
		await handle.write(bytes, 0, bytes.length, 0);
		return { ok: true, path: resolved.path, before };
	} catch (error) {
		return openError(shown, error);
	} finally {
		await close(handle);
	}
}

/** An open, checked folder; `ref` names it for creating or listing what is inside. */
interface OpenDir {
	readonly ref: string;
	close(): Promise<void>;
}

/** Opens a folder without following a final link and checks that it is inside the roots. */
async function openDir(dir: string, roots: readonly string[], input: string, fsApi: PathGuardFs): Promise<OpenDir | Refusal> {
	if (!PROC_FD) {
		// No descriptor to ask: the folder must still be a folder that the guard resolves to itself.
		const again = resolveInsideRoots(roots, dir, fsApi);
		const stat = fs.lstatSync(dir);
		if (!again.ok || again.path !== dir || !stat.isDirectory()) {
			return refusal(`The path ${quotePath(input)} changed after it was checked and no longer leads inside the workspace folders.`);
		}
		return { ref: dir, close: async () => undefined };
	}
	const handle = await fs.promises.open(dir, DIR_FLAGS);
	const where = await openedLocation(handle, dir);
	if (where === undefined || !realRoots(roots, fsApi).some(root => isInside(root, where))) {
		await close(handle);
		return refusal(`The path ${quotePath(input)} changed after it was checked and no longer leads inside the workspace folders.`);
	}
	return { ref: `${PROC_FD}/${handle.fd}`, close: () => close(handle) };
}

/** Opens `dir`, making the folders that are missing one at a time inside checked parents. */
async function openDirCreating(dir: string, roots: readonly string[], input: string, fsApi: PathGuardFs): Promise<OpenDir | Refusal> {
	const missing: string[] = [];
	let existing = dir;
	for (;;) {
		try {
			fs.lstatSync(existing);
			break;
		} catch (error) {
			if (errorCode(error) !== 'ENOENT' || path.dirname(existing) === existing) throw error;
			missing.unshift(path.basename(existing));
			existing = path.dirname(existing);
		}
	}
	let currentPath = existing;
	let current = await openDir(existing, roots, input, fsApi);
	for (const name of missing) {
		if (!('ref' in current)) return current;
		const parent = current;
		const childRef = path.join(parent.ref, name);
		currentPath = path.join(currentPath, name);
		try {
			await fs.promises.mkdir(childRef).catch(error => {
				// A folder made by someone else in the meantime is fine; a link there is refused by openDir.
				if (errorCode(error) !== 'EEXIST') throw error;
			});
			current = await openDir(PROC_FD ? childRef : currentPath, roots, input, fsApi);
		} finally {
			await parent.close();
		}
	}
	return current;
}

export type CreateResult = Result<{ readonly path: string }>;

/**
 * A path that ends with a separator (`src/new/`) names a folder: a file is not made at `src/new`
 * in its place. The refusal, or undefined for a file path.
 */
export function folderPathRefusal(input: unknown): Refusal | undefined {
	const separator = path.sep === '\\' ? /[\\/]+$/ : /\/+$/;
	if (typeof input !== 'string' || !separator.test(input)) return undefined;
	return refusal(
		`The path ${quotePath(input)} ends with ${path.sep === '\\' ? 'a path separator' : '/'}, so it names a folder; Longhaul writes files only. Give the path of a file (such as ${quotePath(`${input.replace(separator, '')}/index.ts`)}); folders are made as needed.`,
		'EISDIR',
	);
}

/**
 * Creates a new file inside the workspace folders (and the folders it needs). Refuses with code
 * 'EEXIST' when anything, a dangling link included, already has that name.
 */
export async function createInside(roots: readonly string[], input: unknown, content: string, options: SafeFsOptions = {}): Promise<CreateResult> {
	const folderLike = folderPathRefusal(input);
	if (folderLike) return folderLike;
	const fsApi = options.fsApi ?? nodeFs;
	const resolved = resolveInsideRoots(roots, input, fsApi);
	if (!resolved.ok) return resolved;
	const shown = input as string;
	if (resolved.exists) return refusal(`The file ${quotePath(shown)} already exists.`, 'EEXIST');
	let dir: OpenDir | Refusal | undefined;
	let handle: FileHandle | undefined;
	try {
		dir = await openDirCreating(path.dirname(resolved.path), roots, shown, fsApi);
		if (!('ref' in dir)) return dir;
		handle = await fs.promises.open(path.join(dir.ref, path.basename(resolved.path)), CREATE_FLAGS, 0o666);
		const checked = await checkOpenFile(handle, resolved.path, realRoots(roots, fsApi), shown);
		if (!(checked instanceof fs.Stats)) return checked;
		const bytes = Buffer.from(content, 'utf8');
		await handle.write(bytes, 0, bytes.length, 0);
		return { ok: true, path: resolved.path };
	} catch (error) {
		return openError(shown, error);
	} finally {
		await close(handle);
		if (dir && 'ref' in dir) await dir.close();
	}
}

export type ListResult = Result<{ readonly path: string; readonly entries: fs.Dirent[] }>;

/** Lists a folder inside the workspace folders. */
export async function listInside(roots: readonly string[], input: unknown, options: SafeFsOptions = {}): Promise<ListResult> {
	const fsApi = options.fsApi ?? nodeFs;
	const resolved = resolveInsideRoots(roots, input, fsApi);
	if (!resolved.ok) return resolved;
	const shown = input as string;
	let dir: OpenDir | Refusal | undefined;
	try {
		dir = await openDir(resolved.path, roots, shown, fsApi);
		if (!('ref' in dir)) return dir;
		const entries = await fs.promises.readdir(dir.ref, { withFileTypes: true });
		return { ok: true, path: resolved.path, entries };
	} catch (error) {
		const code = errorCode(error);
		if (code === 'ENOTDIR') return refusal(`The path ${quotePath(shown)} is a file, not a folder.`, code);
		if (code === 'ENOENT') return refusal(`The folder ${quotePath(shown)} does not exist (ENOENT: no such file or directory).`, code);
		return openError(shown, error);
	} finally {
		if (dir && 'ref' in dir) await dir.close();
	}
}
