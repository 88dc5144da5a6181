// Command text in the done-ledger. A long command keeps what identifies it: its program and
// first arguments, the file it ran on, and the words that tell it apart from the ledger's other
// commands (a test name, a module), each gap marked with "…". A shortened form always points at
// exactly one command of the ledger: its pieces appear in that command word for word, in order
// (the first at its start, the last at its end unless the form ends with …), and in no other
// command's. Commands sharing a long start are listed under it once (commandGroups).
import type { LedgerCommand } from './doneLedger';

/** The marker for a left-out part of a command. */
export const ELLIPSIS = '…';

/**
 * True when `form` stands for `command`: the same text, or, word for word, its pieces (split at
 * {@link ELLIPSIS}) found in order, the first at the start and the last at the end (a form that
 * ends with … leaves the end open). Words are separated by single spaces, as in the ledger.
 * @internal Kept beside the shortening it reverses so both change together; the ledger tests prove with it that every shortened command names exactly one.
 */
export function formMatches(form: string, command: string): boolean {
	// A command stored already cut (doneLedger.ts keeps long commands to a bound, ending in …) is
	// shown as it is; its own … is not a gap to match across.
	if (form === command) return true;
	if (!form.includes(ELLIPSIS)) return false;
	const words = command.split(' ');
	const pieces = form.split(ELLIPSIS).map(p => (p.trim() === '' ? [] : p.trim().split(' ')));
	const first = pieces[0];
	const last = pieces[pieces.length - 1];
	const end = words.length - last.length;
	if (end < first.length || !wordsAt(words, first, 0) || !wordsAt(words, last, end)) return false;
	let at = first.length;
	for (const piece of pieces.slice(1, -1)) {
		let found = -1;
		for (let k = at; k + piece.length <= end && found === -1; k++) if (wordsAt(words, piece, k)) found = k;
		if (found === -1) return false;
		at = found + piece.length;
	}
	return true;
}

function wordsAt(words: readonly string[], piece: readonly string[], at: number): boolean {
	for (let k = 0; k < piece.length; k++) if (words[at + k] !== piece[k]) return false;
	return true;
}

/** Words kept at the start of every shortened command: the program and its first arguments. */
const LEADING_WORDS = 3;
/** A shortened form keeps at most this many distinguishing words; a command that needs more is shown in full. */
const MAX_WORDS = 5;

/**
 * The text shown for each command at `maxChars`: the command itself when short enough, else its
 * first three words and the words that tell it apart from every other command with the same
 * first words (the rarest first; its rarest path is kept too, since a file says most to a
 * reader), in their order in the command, gaps marked with {@link ELLIPSIS} (a gap of one word is
 * filled in); the full text when no such form is shorter. A form keeps every chosen word and no
 * other command holds them all, so under {@link formMatches} it stands for its command alone.
 * Words are counted once over all commands, and narrowing starts from the rarest word, so the
 * work stays close to linear in the number of commands.
 */
export function identifyingForms(commands: readonly LedgerCommand[], maxChars: number): ReadonlyMap<LedgerCommand, string> {
	// A ledger's command list is immutable and shared by later ledgers until a command changes: cache by it.
	let cached = formsCache.get(commands);
	if (!cached) formsCache.set(commands, (cached = new Map()));
	let forms = cached.get(maxChars);
	if (!forms) {
		forms = computeForms(commands, maxChars);
		cached.set(maxChars, forms);
	}
	return forms;
}

const formsCache = new WeakMap<readonly LedgerCommand[], Map<number, ReadonlyMap<LedgerCommand, string>>>();

function computeForms(commands: readonly LedgerCommand[], maxChars: number): ReadonlyMap<LedgerCommand, string> {
	const words = commands.map(c => c.command.split(' '));
	const wordSets = words.map(list => new Set(list));
	const lead = words.map(list => list.slice(0, LEADING_WORDS).join(' '));
	// Which commands hold each word, and how many share each start.
	const holders = new Map<string, number[]>();
	const sameLead = new Map<string, number>();
	wordSets.forEach((set, i) => {
		for (const w of set) {
			const h = holders.get(w);
			if (h) h.push(i);
			else holders.set(w, [i]);
		}
		sameLead.set(lead[i], (sameLead.get(lead[i]) ?? 0) + 1);
	});
	const context: FormContext = { words, wordSets, lead, holders, sameLead };
	const forms = new Map<LedgerCommand, string>();
	commands.forEach((c, i) => forms.set(c, c.command.length <= maxChars ? c.command : (distinguishingForm(i, context) ?? c.command)));
	return forms;
}

interface FormContext {
	readonly words: readonly string[][];
	readonly wordSets: readonly ReadonlySet<string>[];
	readonly lead: readonly string[];
	readonly holders: ReadonlyMap<string, readonly number[]>;
	readonly sameLead: ReadonlyMap<string, number>;
}

function distinguishingForm(i: number, context: FormContext): string | undefined {
	const { words, wordSets, lead, holders, sameLead } = context;
	const own = words[i];
	const leading = Math.min(LEADING_WORDS, own.length);
	if (own.length <= leading) return undefined;
	const df = (w: string) => holders.get(w)?.length ?? 0;
	const rest = [...new Set(own.slice(leading))].sort((a, b) => df(a) - df(b));
	// Commands with the same start that hold every word chosen so far; undefined: all of them.
	let alike: number[] | undefined;
	let alikeCount = (sameLead.get(lead[i]) ?? 1) - 1;
	const chosen = new Set<string>();
	for (const w of rest) {
		if (alikeCount === 0 || chosen.size >= MAX_WORDS) break;
		const narrowed = alike ? alike.filter(j => wordSets[j].has(w)) : holders.get(w)!.filter(j => j !== i && lead[j] === lead[i]);
		if (narrowed.length === alikeCount) continue; // tells nothing apart
		chosen.add(w);
		alike = narrowed;
		alikeCount = narrowed.length;
	}
	if (alikeCount > 0) return undefined;
	// A path says most to a reader: the rarest one is kept (it only narrows further).
	const path = rest.find(w => /[/\\]/.test(w));
	if (path && chosen.size < MAX_WORDS) chosen.add(path);
	// The kept words in command order; a gap of one word is filled in.
	const keep = own.map((w, k) => k < leading || chosen.has(w));
	for (let k = 1; k + 1 < own.length; k++) if (!keep[k] && keep[k - 1] && keep[k + 1]) keep[k] = true;
	let form = '';
	own.forEach((w, k) => {
		if (keep[k]) form += form === '' || form.endsWith(ELLIPSIS) ? w : ` ${w}`;
		else if (!form.endsWith(ELLIPSIS)) form += ` ${ELLIPSIS}`;
	});
	return form.length < own.join(' ').length ? form : undefined;
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
