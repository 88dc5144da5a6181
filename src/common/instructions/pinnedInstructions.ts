// Pinned instructions: the workspace's own instruction files (AGENTS.md,
// .github/copilot-instructions.md, and the files `longhaul.instructionFiles` names) go into the
// system instructions of every prompt, word for word. They are part of the instructions, not of the
// conversation, so no summary, masking or truncation ever touches them; they are read again at each
// request, so an edit takes effect at once. Together they may take a tenth of the room for messages:
// past that, the later files are cut (their beginning kept) or left out, and the user is told.
import { firstLines } from '../text/cutText';

/** The instruction files read by default, relative to each workspace folder. */
export const DEFAULT_INSTRUCTION_FILES: readonly string[] = ['AGENTS.md', '.github/copilot-instructions.md'];

/** Share of the message budget all pinned instructions together may take. */
export const INSTRUCTIONS_SHARE = 0.1;
/** A file cut to fewer tokens than this is left out instead (a stub says nothing useful). */
const MIN_CUT_TOKENS = 40;

export interface InstructionFile {
	/** As the user knows it: relative to its workspace folder (with the folder's name when there are several). */
	readonly path: string;
	readonly text: string;
}

export interface PinnedFile {
	readonly path: string;
	/** The whole file's tokens. */
	readonly tokens: number;
	/** What the prompt holds of it. */
	readonly keptTokens: number;
	readonly state: 'whole' | 'cut' | 'left-out';
}

export interface PinnedInstructions {
	/** The section for the system instructions; undefined when no file had text. */
	readonly text?: string;
	readonly files: readonly PinnedFile[];
	/** The most all files together may take. */
	readonly maxTokens: number;
}

export function instructionsCap(messageBudget: number): number {
	return Math.floor(messageBudget * INSTRUCTIONS_SHARE);
}

/** The files within `maxTokens`, in order: each whole if it fits in what is left, else its first lines, else left out. */
export function pinInstructions(files: readonly InstructionFile[], maxTokens: number, countTokens: (text: string) => number): PinnedInstructions {
	const pinned: PinnedFile[] = [];
	const blocks: string[] = [];
	let left = maxTokens;
	for (const file of files) {
		const text = file.text.replace(/\r\n?/g, '\n').trim();
		if (!text) continue;
		const tokens = countTokens(text);
		if (tokens <= left) {
			blocks.push(fileBlock(file.path, text));
			pinned.push({ path: file.path, tokens, keptTokens: tokens, state: 'whole' });
			left -= tokens;
			continue;
		}
		const room = left - countTokens(cutNote(tokens, maxTokens));
		const head = room >= MIN_CUT_TOKENS ? firstLines(text, room, countTokens) : '';
		if (!head) {
			pinned.push({ path: file.path, tokens, keptTokens: 0, state: 'left-out' });
			continue;
		}
		const kept = countTokens(head);
		blocks.push(fileBlock(file.path, `${head}\n${cutNote(tokens - kept, maxTokens)}`));
		pinned.push({ path: file.path, tokens, keptTokens: kept, state: 'cut' });
		left = 0;
	}
	return { ...(blocks.length ? { text: section(blocks) } : {}), files: pinned, maxTokens };
}

function fileBlock(path: string, text: string): string {
	return `<instructions file="${path.replace(/"/g, "'")}">\n${text}\n</instructions>`;
}

function cutNote(leftOut: number, maxTokens: number): string {
	return `[... ${leftOut} more tokens of this file left out: the workspace's instruction files may take ${maxTokens} tokens of the prompt ...]`;
}

function section(blocks: readonly string[]): string {
	return [
		'# Workspace instructions',
		"The user keeps these instruction files in the workspace. Follow them for the whole session, unless the user's request says otherwise; they are read again at every request and always given here in full.",
		...blocks,
	].join('\n\n');
}

/** The one-line notice when a file did not fit whole; undefined when every file did. */
export function pinnedNotice(pinned: PinnedInstructions): string | undefined {
	const short = pinned.files.filter(f => f.state !== 'whole');
	if (!short.length) return undefined;
	const what = short.map(f =>
		f.state === 'cut' ? `${f.path} was cut to its first ${f.keptTokens} of ${f.tokens} tokens` : `${f.path} (${f.tokens} tokens) was left out`,
	);
	return `Workspace instructions: ${what.join('; ')}, to keep all instruction files within ${pinned.maxTokens} tokens (a tenth of the room for messages). Shorten the file or pick a model with a larger window.`;
}
