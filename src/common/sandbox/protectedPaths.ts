// Which entries of a workspace folder stay read-only inside the command sandbox: the files that
// run code (codeConfigFiles.ts, the edit gate's list) and everything below them. A repository's
// own `.git` folder is the exception: git writes its objects, refs, index and logs on every
// commit, so only what names code to run is read-only there (config, hooks, info, modules), and
// the same in any folder that holds both `config` and `HEAD` (a bare repository). No vscode
// import; the walk itself is src/tools/sandboxPaths.ts.
import { codeConfigFile } from '../tools/codeConfigFiles';

export interface DirEntry {
	readonly name: string;
	readonly isDirectory: boolean;
}

export interface FolderVerdict {
	/** Entries (relative paths, `/`-separated) to bind read-only. */
	readonly readOnly: string[];
	/** Sub-folders (relative paths) to look into. */
	readonly descend: string[];
}

/** What in a git folder names code to run; the rest (objects, refs, index, logs) git writes. */
const GIT_CODE = new Set(['config', 'hooks', 'info', 'modules', 'commondir']);
/** Folders never looked into: too large, and their files run only through a file already protected. */
const SKIPPED = new Set(['node_modules', '.venv', 'venv', '__pycache__', 'target', 'dist', 'out', 'build']);

const join = (folder: string, name: string) => (folder === '' ? name : `${folder}/${name}`);

/** Whether a folder's entries make it a git folder: a `.git` folder, or one holding config and HEAD. */
function isGitFolder(folder: string, entries: readonly DirEntry[]): boolean {
	const names = new Set(entries.map(e => e.name));
	return /(^|\/)\.git$/i.test(folder) || (names.has('config') && names.has('HEAD'));
}

/** The verdict for one folder (relative to its workspace folder, '' for the folder itself) and its entries. */
export function folderVerdict(folder: string, entries: readonly DirEntry[]): FolderVerdict {
	const readOnly: string[] = [];
	const descend: string[] = [];
	if (isGitFolder(folder, entries)) {
		for (const e of entries) if (GIT_CODE.has(e.name)) readOnly.push(join(folder, e.name));
		return { readOnly, descend };
	}
	for (const e of entries) {
		const path = join(folder, e.name);
		if (e.isDirectory && e.name.toLowerCase() === '.git') {
			descend.push(path);
			continue;
		}
		// A folder counts when any file below it would (`.vscode/`, `.github/workflows/`), not
		// when it merely holds a gated file: `x` matches no file-name rule.
		if (codeConfigFile(e.isDirectory ? `${path}/x` : path)) {
			readOnly.push(path);
			continue;
		}
		if (e.isDirectory && !SKIPPED.has(e.name)) descend.push(path);
	}
	return { readOnly, descend };
}
