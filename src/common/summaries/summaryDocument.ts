// A summary as a document the user can open from the chat (the `longhaul-summary:` scheme,
// src/agent/summaryDocuments.ts): what the model will remember in place of the older rounds, with
// a header saying what it stands for, above a line; the user may edit the text below the line and
// save it (summaryEdit.ts). Pure, so the text is tested in Node.
import type { RoundLocation } from '../conversation/conversation';

export interface SummaryDocument {
	/** Names one summary text on one anchor round; the same summary always gets the same key. */
	readonly key: string;
	/** The document's name, shown on its editor tab. */
	readonly title: string;
	/** The document's content: a header, then the summary exactly as the model sees it. */
	readonly content: string;
	/** The request the block belongs to, 1-based as /context numbers them (what `/restore N` takes), when known. */
	readonly request?: number;
	/** What the agent sees in place of rounds set aside while their summary is written: shown, never edited. */
	readonly readOnly?: boolean;
}

export interface SummaryToShow {
	/** The round the summary is anchored on. */
	readonly roundId: string;
	readonly text: string;
	readonly location: RoundLocation;
	/** The user's message of the turn the anchor belongs to, when known (quoted, shortened). */
	readonly request?: string;
	/** How many rounds it absorbed when it was made, when known. */
	readonly summarizedRounds?: number;
	/** The user wrote this text (a saved edit). */
	readonly edited?: boolean;
	/** A model wrote this text from the user's edited text. */
	readonly buildsOnEdit?: boolean;
	/** The number of the request in progress, for a summary anchored in it (its location has no turn number yet). */
	readonly currentRequest?: number;
	/** The text stands in for rounds set aside while their summary is written (decision 43), not a summary. */
	readonly setAside?: boolean;
}

/** The line between the header and the summary text. */
export const SUMMARY_SEPARATOR = '---';

/** Longer requests are cut to this many characters in the header. */
const REQUEST_QUOTE_CHARS = 80;

export function summaryDocument(summary: SummaryToShow): SummaryDocument {
	const request = requestNumber(summary.location, summary.currentRequest);
	const where = describeLocation(summary.location, summary.currentRequest);
	if (summary.setAside) {
		const rounds =
			summary.summarizedRounds === undefined ? 'older rounds' : `${summary.summarizedRounds} older round${summary.summarizedRounds === 1 ? '' : 's'}`;
		const intro = `While the summary of the conversation up to ${where} is written, the agent sees this text in place of ${rounds}: one line per round with its number and what its tool calls did, and how to bring any of them back. It did not wait for the summary, which takes this text's place when it is ready. This is not a summary and cannot be edited.`;
		return {
			key: `${summary.roundId}-${textHash(summary.text)}`,
			title: `Longhaul rounds set aside (${where}).md`,
			content: ['# Longhaul: rounds set aside', '', intro, '', SUMMARY_SEPARATOR, '', summary.text, ''].join('\n'),
			readOnly: true,
			...(request !== undefined ? { request } : {}),
		};
	}
	const quoted = summary.request?.trim() ? ` (the request "${shorten(summary.request.trim().replace(/\s+/g, ' '))}")` : '';
	const covered =
		summary.summarizedRounds === undefined ? '' : ` It was made from ${summary.summarizedRounds} older round${summary.summarizedRounds === 1 ? '' : 's'}.`;
	const intro = `The model sees this text in place of the conversation up to ${where}${quoted}.${covered}`;
	return {
		key: `${summary.roundId}-${textHash(summary.text)}`,
		title: `Longhaul summary (${where}).md`,
		content: documentContent(intro, summary.edited ? EDITED_NOTE : summary.buildsOnEdit ? `${BUILDS_ON_EDIT_NOTE} ${EDIT_HINT}` : EDIT_HINT, summary.text),
		...(request !== undefined ? { request } : {}),
	};
}

const EDIT_HINT = 'To correct it, edit the text below the line and save: from the next request on, the model remembers your text instead.';
/** A newer summary (a /compact, an overflow) absorbed the user's edit: it is the model's text, written from theirs. */
const BUILDS_ON_EDIT_NOTE = 'It was written from a summary you edited: your correction should be in it; check that it still is.';
const EDITED_NOTE = 'You edited this summary: the model remembers your text. Edit and save again to change it.';
/** What the header says after a save, until the next request uses the edit. */
export const SAVED_NOTE = 'You edited this summary: the model remembers your text from your next request in this chat on.';

function documentContent(intro: string, note: string, text: string): string {
	return ['# Longhaul summary', '', `${intro} ${note}`, '', SUMMARY_SEPARATOR, '', text, ''].join('\n');
}

/** The summary text of a document's content: everything below the separator line, trimmed; undefined when the line is gone. */
export function summaryTextOf(content: string): string | undefined {
	const lines = content.replace(/\r\n?/g, '\n').split('\n');
	const at = lines.findIndex(line => line.trim() === SUMMARY_SEPARATOR);
	return at < 0
		? undefined
		: lines
				.slice(at + 1)
				.join('\n')
				.trim();
}

/** The document with `text` below the line and `note` in place of the header's last sentence or two. */
export function withSummaryText(document: SummaryDocument, text: string, note: string): SummaryDocument {
	const header = document.content.split('\n')[2] ?? '';
	const intro = header.replace(` ${BUILDS_ON_EDIT_NOTE}`, '').replace(` ${EDIT_HINT}`, '').replace(` ${EDITED_NOTE}`, '').replace(` ${SAVED_NOTE}`, '');
	return { ...document, content: documentContent(intro, note, text) };
}

/** The anchor round and the text hash a document key names (`<roundId>-<hash>`). */
export function parseSummaryKey(key: string): { roundId: string; hash: string } | undefined {
	const m = /^(.+)-([0-9a-f]{8})$/.exec(key);
	return m ? { roundId: m[1], hash: m[2] } : undefined;
}

/**
 * "request 3, round 12", 1-based like the chat and numbered as /context and `/restore N` number
 * requests (the one place name used everywhere); a round of the request in progress is "round 12
 * of this request" when its number is not given.
 */
export function describeLocation(location: RoundLocation, currentRequest?: number): string {
	const round = `round ${location.roundIndex + 1}`;
	const request = requestNumber(location, currentRequest);
	return request === undefined ? `${round} of this request` : `request ${request}, ${round}`;
}

/** The 1-based request number of a location, as /context counts requests. */
export function requestNumber(location: RoundLocation, currentRequest?: number): number | undefined {
	return location.source === 'active' ? currentRequest : location.turnIndex + 1;
}

function shorten(text: string): string {
	return text.length <= REQUEST_QUOTE_CHARS ? text : text.slice(0, REQUEST_QUOTE_CHARS - 1) + '…';
}

/** FNV-1a, 32 bits, as 8 hex digits: enough to tell two summaries on one anchor apart. */
export function textHash(text: string): string {
	let hash = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193);
	}
	return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * Where an edit broke the document's structure (the separator line gone): the first line, 0-based,
 * where the edited text differs from the document as shown, up to where the separator was; the line
 * an error marker belongs on. Undefined when the shown document has no separator either.
 */
export function structureBreakLine(shown: string, edited: string): number | undefined {
	const before = shown.replace(/\r\n?/g, '\n').split('\n');
	const after = edited.replace(/\r\n?/g, '\n').split('\n');
	const separator = before.findIndex(line => line.trim() === SUMMARY_SEPARATOR);
	if (separator < 0) return undefined;
	let line = 0;
	while (line < separator && line < after.length && after[line] === before[line]) line++;
	return Math.min(line, Math.max(0, after.length - 1));
}
