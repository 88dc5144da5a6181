// Which entries of a workspace folder stay read-only inside the command sandbox: the files that
// run code (codeConfigFiles.ts, the edit gate's list) and everything below them, a repository's
// whole `.git` folder (git commits inside the sandbox fail: docs/decisions.md §46), and, in a folder
// holding both `config` and `HEAD` (a bare repository), what names code to run. A protected name
// that is a symbolic link counts too: the sandbox binds what it leads to read-only, and the walk
// after the command notices when the link itself was replaced. No vscode import; the walk itself
// is src/tools/commandSandbox.ts.
import { codeConfigFile } from '../tools/codeConfigFiles';

export interface DirEntry {
	readonly name: string;
	readonly isDirectory: boolean;
	/** A symbolic link (then isDirectory is false: links are never followed by the walk). */
	readonly isLink?: boolean;
}

export interface FolderVerdict {
	/** Entries (relative paths, `/`-separated) to bind read-only. */
	readonly readOnly: string[];
	/** Sub-folders (relative paths) to look into. */
	readonly descend: string[];
	/** `.git` files (worktrees, submodules, --separate-git-dir): their `gitdir:` target is read-only too. */
	readonly gitFiles: string[];
}

/** What in a bare repository names code to run; the rest (objects, refs, index, logs) git writes. */
const GIT_CODE = new Set(['config', 'hooks', 'info', 'modules', 'commondir']);
/** Folders never looked into: too large, and their files run only through a file already protected. */
const SKIPPED = new Set(['node_modules', '.venv', 'venv', '__pycache__', 'target', 'dist', 'out', 'build']);

const join = (folder: string, name: string) => (folder === '' ? name : `${folder}/${name}`);

/** Whether a folder's entries make it a bare repository: one holding config and HEAD. */
function isBareRepository(entries: readonly DirEntry[]): boolean {
	const names = new Set(entries.map(e => e.name));
	return names.has('config') && names.has('HEAD');
}

/** Whether an entry is a file that runs code, or a folder (or a link to one) whose files do. */
function runsCode(path: string, e: DirEntry): boolean {
	// A file or link may stand where a protected folder would be (`.vscode` as an empty file is
	// another command's placeholder): it counts, so that it cannot be swapped for the folder.
	if (!e.isDirectory) return codeConfigFile(path) !== undefined || codeConfigFile(`${path}/x`) !== undefined;
	// A folder counts when any file below it would (`.vscode/`, `.github/workflows/`), not
	// when it merely holds a gated file: `x` matches no file-name rule.
	return codeConfigFile(e.isDirectory ? `${path}/x` : path) !== undefined;
}

/** The verdict for one folder (relative to its workspace folder, '' for the folder itself) and its entries. */
export function folderVerdict(folder: string, entries: readonly DirEntry[]): FolderVerdict {
	const readOnly: string[] = [];
	const descend: string[] = [];
	const gitFiles: string[] = [];
	if (isBareRepository(entries)) {
		for (const e of entries) if (GIT_CODE.has(e.name)) readOnly.push(join(folder, e.name));
		return { readOnly, descend, gitFiles };
	}
	for (const e of entries) {
		const path = join(folder, e.name);
		if (e.name.toLowerCase() === '.git' && !e.isDirectory && !e.isLink) gitFiles.push(path);
		if (runsCode(path, e)) {
			readOnly.push(path);
			continue;
		}
		if (e.isDirectory && !SKIPPED.has(e.name)) descend.push(path);
	}
	return { readOnly, descend, gitFiles };
}

/**
 * The `gitdir:` a `.git` file names, relative to the folder that holds the file or absolute; undefined
 * when the text names none.
 */
export function gitdirOf(text: string): string | undefined {
	const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
	return match?.[1];
}

/**
 * Names that run code at the top of a workspace folder which, where they do not exist, the sandbox
 * holds with an empty read-only placeholder so that a command cannot create them: what VS Code, git
 * and the package managers read on their own (opening the folder, `git status`, `npm install`,
 * `cargo build`, `yarn`, entering the folder with direnv). Each costs a mount at every command
 * (about half a millisecond on a busy machine, bench/sandbox), so the list stops at these; hooks
 * folders (.husky, .githooks) need a `core.hooksPath` that the read-only `.git/config` cannot get.
 * Names whose empty stand-in would break an
 * ordinary build (package.json, setup.py, a Dockerfile), the rest of codeConfigFiles.ts and anything
 * deeper than the top are found by the walk after the command and reported.
 */
export const ABSENT_NAMES: readonly string[] = ['.git', '.vscode', '.github', '.devcontainer', '.cargo', '.envrc', '.npmrc', '.yarnrc.yml'];

/**
 * The placeholders a workspace folder needs: the protected top-level names missing from `present`
 * (compared without case). Each is an empty file (`/dev/null` bound read-only: one cheap mount,
 * where an empty read-only folder costs a tmpfs and a remount, about three times as much in
 * bench/sandbox), so `mkdir .vscode` and `.vscode/x` both fail; `.git` alone is an empty folder,
 * since git stops at a `.git` file it cannot read, and a workspace inside a larger repository must
 * still find that one.
 */
export function absentNames(present: readonly string[]): { name: string; folder: boolean }[] {
	const have = new Set(present.map(n => n.toLowerCase()));
	return ABSENT_NAMES.filter(name => !have.has(name.toLowerCase())).map(name => ({ name, folder: name === '.git' }));
}

/**
 * The folders between a workspace folder and the protected paths below it (`/`-separated relative
 * paths, parents first): the sandbox binds each onto itself, so that, being a mount point, it can
 * be neither renamed nor removed (EBUSY), and a protected path keeps its place.
 */
export function ancestorsOf(relativePaths: readonly string[]): string[] {
	const out = new Set<string>();
	for (const rel of relativePaths) {
		const parts = rel.split('/');
		for (let i = 1; i < parts.length; i++) out.add(parts.slice(0, i).join('/'));
	}
	return [...out].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}
