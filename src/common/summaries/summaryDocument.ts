// A summary as a read-only document the user can open from the chat (the `longhaul-summary:`
// scheme, src/agent/summaryDocuments.ts): what the model will remember in place of the older
// rounds, with one line saying what it stands for. Pure, so the text is tested in Node.
import type { RoundLocation } from '../planning/plan';

export interface SummaryDocument {
	/** Names one summary text on one anchor round; the same summary always gets the same key. */
	readonly key: string;
	/** The document's name, shown on its editor tab. */
	readonly title: string;
	/** The document's content: a header, then the summary exactly as the model sees it. */
	readonly content: string;
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
}

/** Longer requests are cut to this many characters in the header. */
const REQUEST_QUOTE_CHARS = 80;

export function summaryDocument(summary: SummaryToShow): SummaryDocument {
	const where = describeLocation(summary.location);
	const request = summary.request?.trim() ? ` (the request "${shorten(summary.request.trim().replace(/\s+/g, ' '))}")` : '';
	const covered =
		summary.summarizedRounds === undefined ? '' : ` It was made from ${summary.summarizedRounds} older round${summary.summarizedRounds === 1 ? '' : 's'}.`;
	return {
		key: `${summary.roundId}-${textHash(summary.text)}`,
		title: `Longhaul summary (${where}).md`,
		content: [
			'# Longhaul summary',
			'',
			`The model sees this text in place of the conversation up to ${where}${request}.${covered} Read-only.`,
			'',
			'---',
			'',
			summary.text,
			'',
		].join('\n'),
	};
}

/** "turn 3, round 12", 1-based like the chat; rounds of the request in progress have no turn number yet. */
export function describeLocation(location: RoundLocation): string {
	const round = `round ${location.roundIndex + 1}`;
	return location.source === 'active' ? `${round} of this request` : `turn ${location.turnIndex + 1}, ${round}`;
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
