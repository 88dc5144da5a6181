// What a longhaul_editFile call would do, worked out before anything is written: the file's text
// now, its text after, and whether the file configures code that runs. The confirmation shows
// this plan, and the write checks that the file still holds the text the plan was made from.
// No vscode import: unit-tested in Node with real files.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CodeConfigFile, codeConfigFile } from '../common/tools/codeConfigFiles';
import { decodeUtf8Text, unwritableText } from '../common/tools/utf8Text';
import { quotePath, Refusal, resolveInsideRoots } from './pathGuard';
import { createInside, folderPathRefusal, notTextReason, readInside, updateInside } from './safeFs';

export interface EditInput {
	readonly path?: unknown;
	/** Exact text to replace; it must occur exactly once. Omit it to create a new file. */
	readonly oldText?: unknown;
	readonly newText?: unknown;
	/** With no oldText: replace an existing file's whole content. */
	readonly overwrite?: unknown;
}

export interface EditPlan {
	readonly kind: 'create' | 'overwrite' | 'edit';
	/** The physical path the write goes to (links resolved). */
	readonly path: string;
	/** The file's text now (overwrite and edit). */
	readonly before?: string;
	readonly after: string;
	/** For an edit: the 1-based line where the replaced text starts. */
	readonly line?: number;
	/** Set when the file configures a tool that runs code. */
	readonly codeConfig?: CodeConfigFile;
}

/** Files larger than this are not edited in place. */
export const MAX_EDIT_BYTES = 16 * 1024 * 1024;

function refusal(reason: string): Refusal {
	return { ok: false, reason };
}

function countOccurrences(text: string, needle: string): number {
	let count = 0;
	for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
	return count;
}

/** The file's text, or why it cannot be edited (missing, not a regular file, not UTF-8 text). */
async function currentText(roots: readonly string[], input: string): Promise<string | Refusal> {
	const read = await readInside(roots, input, MAX_EDIT_BYTES);
	if (!read.ok) return read.code === 'EFBIG' ? refusal(`${read.reason} Longhaul edits files of at most ${MAX_EDIT_BYTES} bytes.`) : read;
	const decoded = decodeUtf8Text(read.data);
	return decoded.ok ? decoded.text : refusal(notTextReason(input, decoded.reason));
}

/** The replacement of the one occurrence of `oldText`, or why there is not exactly one. */
function replaceOnce(text: string, oldText: string, newText: string, input: string): { after: string; line: number } | Refusal {
	const count = oldText === '' ? Infinity : countOccurrences(text, oldText);
	if (count !== 1) {
		return refusal(
			`oldText occurs ${oldText === '' ? 'everywhere (it is empty)' : `${count} times`} in ${quotePath(input)}; it must occur exactly once. Read the file and quote a unique passage.`,
		);
	}
	const at = text.indexOf(oldText);
	return { after: text.slice(0, at) + newText + text.slice(at + oldText.length), line: text.slice(0, at).split('\n').length };
}

/** The names in the folder of `file` (a `config` beside a `HEAD` is a bare repository's); none when unreadable. */
async function siblingNames(file: string): Promise<string[]> {
	try {
		return await fs.promises.readdir(path.dirname(file));
	} catch {
		return [];
	}
}

/** What the call would write, or why it may not: every refusal comes before the user is asked. */
export async function planEdit(roots: readonly string[], input: EditInput): Promise<EditPlan | Refusal> {
	const folderLike = folderPathRefusal(input.path);
	if (folderLike) return folderLike;
	const resolved = resolveInsideRoots(roots, input.path);
	if (!resolved.ok) return resolved;
	const given = input.path as string;
	if (typeof input.newText !== 'string') return refusal('newText must be a string.');
	const unwritable = unwritableText(input.newText);
	if (unwritable) return refusal(`newText ${unwritable}; nothing was written.`);
	const siblings = await siblingNames(resolved.path);
	const codeConfig =
		codeConfigFile(path.relative(resolved.root, resolved.path), siblings) ?? (path.isAbsolute(given) ? undefined : codeConfigFile(given, siblings));
	const base = { path: resolved.path, ...(codeConfig ? { codeConfig } : {}) };
	if (input.oldText === undefined) {
		if (!resolved.exists) return { ...base, kind: 'create', after: input.newText };
		if (input.overwrite !== true) return refusal(`${quotePath(given)} already exists; give oldText to edit it, or overwrite: true to replace it.`);
		const before = await currentText(roots, given);
		return typeof before === 'string' ? { ...base, kind: 'overwrite', before, after: input.newText } : before;
	}
	if (typeof input.oldText !== 'string') return refusal('oldText must be a string (or left out to create a file).');
	if (!resolved.exists) return refusal(`${quotePath(given)} does not exist; leave oldText out to create it.`);
	const before = await currentText(roots, given);
	if (typeof before !== 'string') return before;
	const replaced = replaceOnce(before, input.oldText, input.newText, given);
	if ('ok' in replaced) return replaced;
	return { ...base, kind: 'edit', before, after: replaced.after, line: replaced.line };
}

/**
 * Writes what the plan says: creates the file (O_EXCL, so nothing that appeared since is written
 * over), or rewrites it in place only if it still holds exactly the text the plan was made from.
 */
export async function applyPlan(roots: readonly string[], plan: EditPlan, input: EditInput): Promise<{ ok: true; path: string } | Refusal> {
	if (plan.kind === 'create') return createInside(roots, input.path, plan.after);
	return updateInside(
		roots,
		input.path,
		current =>
			current === plan.before
				? plan.after
				: refusal(
						`${quotePath(input.path as string)} changed meanwhile: it no longer holds the text its confirmation was made from; nothing was written. Read it again.`,
					),
		MAX_EDIT_BYTES,
	);
}

/** How many shown plans are kept for calls that have not written yet. */
const MAX_SHOWN = 64;

/**
 * The plans shown in confirmations, by call, until the call writes. The write goes by the plan the
 * user saw, never by one made again at write time: a file the user saved meanwhile differs from
 * the text shown, so nothing is written (a plan made again would take the new text as "before"
 * and write over it).
 */
export class ShownPlans {
	private readonly plans = new Map<string, EditPlan>();

	private static key(input: EditInput): string {
		return JSON.stringify([input.path, input.oldText, input.newText, input.overwrite]);
	}

	remember(input: EditInput, plan: EditPlan): void {
		const key = ShownPlans.key(input);
		this.plans.delete(key);
		this.plans.set(key, plan);
		if (this.plans.size > MAX_SHOWN) this.plans.delete(this.plans.keys().next().value!);
	}

	/** The plan shown for this call, once; undefined when none was shown. */
	take(input: EditInput): EditPlan | undefined {
		const key = ShownPlans.key(input);
		const plan = this.plans.get(key);
		this.plans.delete(key);
		return plan;
	}
}
