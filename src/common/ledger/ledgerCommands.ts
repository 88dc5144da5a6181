// Command text in the done-ledger. A long command keeps what identifies it: its program and
// first arguments, the file it ran on, then the words that tell it apart from the ledger's other
// commands (a test name, a module), each gap marked with "…". A shortened form always points at
// exactly one command of the ledger: its pieces appear in that command in order (the first at its
// start, the last at its end, which is empty when the form ends with …) and in no other
// command's. Commands sharing a long start are listed under it once (commandGroups).
import type { LedgerCommand } from './doneLedger';

/** The marker for a left-out part of a command. */
export const ELLIPSIS = '…';

/** `text` cut to `maxChars`: its first ~60% and last ~40% around {@link ELLIPSIS}. */
export function trimCommand(text: string, maxChars: number): string {
	if (text.length <= maxChars) return text;
	const room = Math.max(2, maxChars - ELLIPSIS.length);
	const head = Math.ceil(room * 0.6);
	return text.slice(0, head) + ELLIPSIS + text.slice(text.length - (room - head));
}

/** True when `form` stands for `command`: the same text, or its pieces (split at …) found in order, the first at the start and the last at the end. */
export function formMatches(form: string, command: string): boolean {
	if (!form.includes(ELLIPSIS)) return form === command;
	const pieces = form.split(ELLIPSIS);
	const first = pieces[0];
	const last = pieces[pieces.length - 1];
	if (!command.startsWith(first) || !command.endsWith(last) || command.length < first.length + last.length) return false;
	let at = first.length;
	const end = command.length - last.length;
	for (const piece of pieces.slice(1, -1)) {
		const found = command.indexOf(piece, at);
		if (found === -1 || found + piece.length > end) return false;
		at = found + piece.length;
	}
	return true;
}

/** Words kept at the start of every shortened command: the program and its first arguments. */
const LEADING_WORDS = 3;
/** A shortened form keeps at most this many distinguishing words; a command that needs more is shown in full. */
const MAX_WORDS = 5;

/**
 * The text shown for each command at `maxChars`: the command itself when short enough, else its
 * first three words, its rarest path, and then the words that tell it apart from every other
 * command of the ledger, the rarest first, in their order in the command, gaps marked with {@link ELLIPSIS} (a gap of one
 * word is filled in); the full text when no such form is shorter. Words are counted once over all
 * commands, so this stays close to linear in their number.
 */
export function identifyingForms(commands: readonly LedgerCommand[], maxChars: number): Map<LedgerCommand, string> {
	const words = commands.map(c => c.command.split(' '));
	// In how many commands each word appears, and which commands hold it.
	const holders = new Map<string, number[]>();
	words.forEach((list, i) => {
		for (const w of new Set(list)) {
			const h = holders.get(w);
			if (h) h.push(i);
			else holders.set(w, [i]);
		}
	});
	const forms = new Map<LedgerCommand, string>();
	commands.forEach((c, i) => {
		forms.set(c, c.command.length <= maxChars ? c.command : (distinguishingForm(i, words, holders, commands) ?? c.command));
	});
	return forms;
}

function distinguishingForm(
	i: number,
	words: readonly string[][],
	holders: ReadonlyMap<string, number[]>,
	commands: readonly LedgerCommand[],
): string | undefined {
	const own = words[i];
	const lead = Math.min(LEADING_WORDS, own.length);
	// Commands that share the leading words and every word chosen so far.
	const leading = own.slice(0, lead).join(' ');
	// Only commands with the same leading words can match a form that starts with them.
	const sameStart = (holders.get(own[0]) ?? []).filter(j => j !== i && words[j].slice(0, lead).join(' ') === leading);
	let alike = sameStart;
	const rest = [...new Set(own.slice(lead))].sort((a, b) => (holders.get(a)?.length ?? 0) - (holders.get(b)?.length ?? 0));
	// A path says most to a reader (the file or test the command ran on): the rarest one is always kept.
	const path = rest.find(w => /[/\\]/.test(w));
	if (path) {
		rest.splice(rest.indexOf(path), 1);
		rest.unshift(path);
	}
	const chosen = new Set<string>();
	for (const w of rest) {
		if (!alike.length || chosen.size >= MAX_WORDS) break;
		const holding = new Set(holders.get(w));
		const narrowed = alike.filter(j => holding.has(j));
		if (narrowed.length === alike.length && w !== path) continue; // tells nothing apart
		chosen.add(w);
		alike = narrowed;
	}
	if (alike.length) return undefined;
	// The kept words in command order; a gap of one word is filled in.
	const keep = own.map((w, k) => k < lead || chosen.has(w));
	for (let k = 1; k + 1 < own.length; k++) if (!keep[k] && keep[k - 1] && keep[k + 1]) keep[k] = true;
	let form = '';
	own.forEach((w, k) => {
		if (keep[k]) form += form === '' || form.endsWith(ELLIPSIS) ? w : ` ${w}`;
		else if (!form.endsWith(ELLIPSIS)) form += ` ${ELLIPSIS}`;
	});
	if (!keep[own.length - 1] && !form.endsWith(ELLIPSIS)) form += ELLIPSIS;
	// The form must still single the command out under the matching rule (pieces in order).
	if (form.length >= commands[i].command.length) return undefined;
	return sameStart.every(j => !formMatches(form, commands[j].command)) ? form : undefined;
}

function commonPrefix(a: string, b: string): number {
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
	return i;
}

export interface CommandGroup {
	/** Shown once for the group's commands; empty for commands listed alone. */
	readonly prefix: string;
	readonly commands: readonly LedgerCommand[];
}

/** Shortest shared start worth a line of its own, and how many commands must share it. */
const MIN_PREFIX_CHARS = 16;
const MIN_GROUP = 3;

/**
 * Commands (in the given order) with a long shared start written once: the shown texts are cut at
 * a word or path boundary, commands sharing the same first words form a group when at least
 * three share at least 16 characters. Groups come in the order of their first command.
 */
export function commandGroups(commands: readonly LedgerCommand[], shown: ReadonlyMap<LedgerCommand, string>): CommandGroup[] {
	const text = (c: LedgerCommand) => shown.get(c) ?? c.command;
	// Bucket by the first two words, then take the bucket's longest shared start at a boundary.
	const buckets = new Map<string, LedgerCommand[]>();
	for (const c of commands) {
		const key = text(c).split(' ').slice(0, 2).join(' ');
		const list = buckets.get(key);
		if (list) list.push(c);
		else buckets.set(key, [c]);
	}
	const prefixOf = new Map<LedgerCommand, string>();
	for (const bucket of buckets.values()) {
		if (bucket.length < MIN_GROUP) continue;
		let shared = text(bucket[0]);
		for (const c of bucket) shared = shared.slice(0, commonPrefix(shared, text(c)));
		// Back to a boundary after a space or a slash, before any …, and leaving something to each command.
		const cut = shared.includes(ELLIPSIS) ? shared.indexOf(ELLIPSIS) : shared.length;
		let at = cut;
		while (at > 0 && shared[at - 1] !== ' ' && shared[at - 1] !== '/') at--;
		const prefix = shared.slice(0, at);
		if (prefix.length < MIN_PREFIX_CHARS || bucket.some(c => text(c).length <= prefix.length)) continue;
		for (const c of bucket) prefixOf.set(c, prefix);
	}
	const groups: CommandGroup[] = [];
	const open = new Map<string, LedgerCommand[]>();
	for (const c of commands) {
		const prefix = prefixOf.get(c);
		if (prefix === undefined) {
			groups.push({ prefix: '', commands: [c] });
			continue;
		}
		let list = open.get(prefix);
		if (!list) {
			list = [];
			open.set(prefix, list);
			groups.push({ prefix, commands: list });
		}
		list.push(c);
	}
	return groups;
}
