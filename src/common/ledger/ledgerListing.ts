// The done-ledger as /context lists it for the user: markdown lines that wrap at the chat panel's
// width (no code block to scroll sideways), each entry whole, newest first. The prompt's own text of
// the ledger (doneLedgerRender.ts) merges old entries to save tokens; a reader wants every line to be
// a file or a command they recognise, so nothing is merged here, only the oldest left out past a cap.
import type { DoneLedger, LedgerCall, LedgerCommand, LedgerEdit, LedgerRead } from './doneLedger';

/** Entries listed per kind; the older ones are counted, not listed. */
export const LISTED_PER_KIND = 15;

/** Markdown inline code for any text: the fence is longer than any run of backticks in it. */
export function inlineCode(text: string): string {
	const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map(m => m[0].length));
	const fence = '`'.repeat(longest + 1);
	const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
	return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * Plain text in markdown: a request or plan may hold anything, and /context is trusted with command
 * links, so no link, tag or emphasis of theirs may come alive. The characters that start inline
 * markup are escaped, and a leading one that would start a block (a heading, a list, a quote).
 */
export function plainText(text: string): string {
	return text.replace(/[\\`*_[\]<>!|~&]/g, ch => `\\${ch}`).replace(/^(\s*)([#+\-=>]|\d+[.)])/, (_, space: string, start: string) => `${space}\\${start}`);
}

const times = (n: number) => (n > 1 ? ` (${n} times)` : '');

const readItem = (r: LedgerRead) => `${inlineCode(r.path)}${times(r.count)}`;

function editItem(e: LedgerEdit): string {
	// The creation is the first successful edit of a created file.
	const edits = e.created ? e.count - 1 : e.count;
	const parts = [
		...(e.created ? ['created'] : []),
		...(edits > 0 ? [`${edits} edit${edits === 1 ? '' : 's'}`] : []),
		...(e.failed ? [`${e.failed} failed attempt${e.failed === 1 ? '' : 's'}`] : []),
	];
	return `${inlineCode(e.path)}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

const commandItem = (c: LedgerCommand) => `${inlineCode(c.command)}: ${c.outcome || 'no exit status'}${c.count > 1 ? ` (run ${c.count} times)` : ''}`;

const callItem = (c: LedgerCall) => `${c.tool === 'search' ? '' : `${plainText(c.tool)} `}${inlineCode(c.digest)}${times(c.count)}`;

/** One kind of entry: a bold title with its count, then one list item per entry, newest first. */
function section<T extends { readonly last: number }>(title: string, entries: readonly T[], item: (entry: T) => string): string[] {
	if (!entries.length) return [];
	const newest = [...entries].sort((a, b) => b.last - a.last);
	const shown = newest.slice(0, LISTED_PER_KIND);
	const left = newest.length - shown.length;
	return [`**${title}** (${entries.length}, newest first):`, '', ...shown.map(e => `- ${item(e)}`), ...(left ? [`- … and ${left} older`] : []), ''];
}

/** The ledger's entries as markdown for the chat (an empty list when it holds nothing). */
export function ledgerListing(ledger: DoneLedger): string[] {
	return [
		...(ledger.requests.length ? [`**Requests** (${ledger.requests.length}):`, '', ...ledger.requests.map((r, i) => `${i + 1}. ${plainText(r)}`), ''] : []),
		...section('Commands run', ledger.commands, commandItem),
		...section('Files created or edited', ledger.edits, editItem),
		...section('Files read', ledger.reads, readItem),
		...section('Searches and other tool calls', [...ledger.searches, ...ledger.others], callItem),
		...(ledger.plan ? [`**Latest plan** (${plainText(ledger.plan.tool)}):`, '', ...ledger.plan.text.split('\n').map(line => `> ${plainText(line)}`), ''] : []),
	];
}
