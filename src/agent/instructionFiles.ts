// Reads the workspace's instruction files for the pinned instructions
// (src/common/instructions/pinnedInstructions.ts) at the start of each request: AGENTS.md and
// .github/copilot-instructions.md in every workspace folder, then the paths of
// `longhaul.instructionFiles`. Only files really inside a workspace folder are read, with the file
// tools' guard (src/tools/safeFs.ts). In an untrusted workspace nothing is read: a file there could
// steer the agent, and the user has not said they trust it; Longhaul says which files it left unread.
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
	DEFAULT_INSTRUCTION_FILES,
	instructionsCap,
	pinInstructions,
	pinnedNotice,
	type InstructionFile,
	type PinnedInstructions,
} from '../common/instructions/pinnedInstructions';
import { readInside } from '../tools/safeFs';
import { log } from './log';
import { countTokens } from '../common/tokens/tokenizer';

/** Larger files are not read (a tenth of the window is far smaller anyway). */
const MAX_INSTRUCTION_BYTES = 1024 * 1024;

export interface InstructionFilesRead {
	readonly files: readonly InstructionFile[];
	/** The file-system paths of `files`. */
	readonly fsPaths: readonly string[];
	/** Files that exist but were not read because the workspace is not trusted. */
	readonly untrustedSkipped: readonly string[];
	/** Paths from `longhaul.instructionFiles` that could not be read, with the reason. */
	readonly problems: readonly string[];
}

export async function readInstructionFiles(configured: readonly string[]): Promise<InstructionFilesRead> {
	const folders = (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file');
	const files: InstructionFile[] = [];
	const fsPaths: string[] = [];
	const untrustedSkipped: string[] = [];
	const problems: string[] = [];
	const seen = new Set<string>();
	for (const folder of folders) {
		const root = folder.uri.fsPath;
		for (const [relative, fromSetting] of [...DEFAULT_INSTRUCTION_FILES.map(p => [p, false] as const), ...configured.map(p => [p, true] as const)]) {
			const full = path.resolve(root, relative);
			const shown = folders.length > 1 ? `${folder.name}/${path.relative(root, full)}` : path.relative(root, full);
			if (seen.has(full)) continue;
			seen.add(full);
			if (!vscode.workspace.isTrusted) {
				if (await exists(full)) untrustedSkipped.push(shown);
				continue;
			}
			const read = await readInside([root], full, MAX_INSTRUCTION_BYTES);
			if (read.ok) {
				files.push({ path: shown, text: read.data.toString('utf8') });
				fsPaths.push(read.path);
			} else if (fromSetting && read.code !== 'ENOENT') {
				problems.push(`${shown}: ${read.reason}`);
			} else if (fromSetting && folders.length === 1) {
				problems.push(`${shown}: not found`);
			}
		}
	}
	if (problems.length) log().info(`instruction files not read: ${problems.join('; ')}`);
	return { files, fsPaths, untrustedSkipped, problems };
}

/** VS Code attaches instruction files (AGENTS.md and others) to chat requests on its own, under these reference ids. */
const AUTOMATIC_INSTRUCTIONS = 'vscode.instructions.file';

/**
 * The request's references without the instruction files VS Code attached on its own that Longhaul
 * must not pass on: those it pins itself (they would be there twice), and in an untrusted workspace
 * all of them (their names are added to `untrustedSkipped`).
 */
export function withoutInstructionReferences(
	references: readonly vscode.ChatPromptReference[],
	read: InstructionFilesRead,
): { references: vscode.ChatPromptReference[]; read: InstructionFilesRead } {
	const pinned = new Set(read.fsPaths.map(p => path.resolve(p)));
	const skipped = [...read.untrustedSkipped];
	const kept = references.filter(ref => {
		if (!ref.id.startsWith(AUTOMATIC_INSTRUCTIONS) || !(ref.value instanceof vscode.Uri)) return true;
		if (!vscode.workspace.isTrusted) {
			const name = vscode.workspace.asRelativePath(ref.value, false);
			if (!skipped.includes(name)) skipped.push(name);
			return false;
		}
		return !(ref.value.scheme === 'file' && pinned.has(path.resolve(ref.value.fsPath)));
	});
	return { references: kept, read: { ...read, untrustedSkipped: skipped } };
}

async function exists(file: string): Promise<boolean> {
	try {
		await vscode.workspace.fs.stat(vscode.Uri.file(file));
		return true;
	} catch {
		return false;
	}
}

/** The files read, within their share of this message budget. */
export function pinnedFor(read: InstructionFilesRead, messageBudget: number): PinnedInstructions {
	return pinInstructions(read.files, instructionsCap(messageBudget), countTokens);
}

/** What the user is told at the start of a response: files cut or left out, files left unread in an untrusted workspace. */
export function instructionNotices(read: InstructionFilesRead, pinned: PinnedInstructions): string[] {
	const notices: string[] = [];
	const short = pinnedNotice(pinned);
	if (short) notices.push(short);
	if (read.untrustedSkipped.length) {
		notices.push(
			`Workspace instructions not read: this workspace is not trusted, so ${read.untrustedSkipped.join(', ')} ${read.untrustedSkipped.length === 1 ? 'was' : 'were'} left out of the prompt. Trust the workspace to use ${read.untrustedSkipped.length === 1 ? 'it' : 'them'}.`,
		);
	}
	return notices;
}
