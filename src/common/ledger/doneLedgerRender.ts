// The done-ledger as prompt text, within a token bound. The facts that matter most, what was
// edited and which commands ran with what outcome, get a line each; files under one directory
// share a directory line. The text aims at a target (a share of the bound) and grows up to the
// bound only when the facts need it; reads, searches and other calls give way first (merged into
// group lines, oldest first). When even the bound is too small, each line loses detail (counts,
// the middle of long commands, the length of requests) before the oldest facts are merged away;
// user requests are never left out (as a last resort the oldest are referred to by number).
//
// Cost: every step is linear or n·log n in the number of entries (sorting, grouping), and only
// lines that may be shown are measured, so a ledger of 20,000 entries renders in milliseconds.
import type { Conversation } from '../conversation/conversation';
import type { DoneLedger, LedgerCall, LedgerCommand, LedgerEdit, LedgerRead } from './doneLedger';
import { flattenRounds, newestSummaryIndex } from '../conversation/flatten';
import { dirOf, groupEntriesByDirectory, pathTreeLines } from './ledgerPaths';
import { commandGroups, ELLIPSIS, identifyingForms } from './ledgerCommands';

export const LEDGER_HEADING = 'Already done in this session (recorded from the tool calls and their results; do not repeat any of it unless the user asks):';

export interface LedgerRenderOptions {
	/** The bound: the text never has more tokens. */
	readonly maxTokens: number;
	/** What the text aims at; it grows past it (up to maxTokens) only to keep every edit and command on its own line. Default: 40% of maxTokens. */
	readonly targetTokens?: number;
	readonly countTokens: (text: string) => number;
}

/** Share of the bound the ledger aims at when a caller gives no target. */
export const TARGET_SHARE = 0.4;

/** The share of the message budget the ledger aims at (its curve on both corpora: decision 52). */
export const LEDGER_TARGET_SHARE = 0.08;

/**
 * The ledger's size for a message budget. It aims at 8% of the budget (300–3,000 tokens) and
 * takes up to 30% (750–12,000) only to keep every edit and command on its own line: with a
 * summary of up to 10% (decision 44), at least half of the budget stays for the rounds kept word for word.
 */
export function doneLedgerCaps(messageBudget: number, compact = false): { readonly maxTokens: number; readonly targetTokens: number } {
	const targetTokens = Math.max(300, Math.min(3000, Math.round(messageBudget * LEDGER_TARGET_SHARE)));
	// Compact (FitMemory.tight): the base size is also the bound; older entries are merged sooner.
	return { targetTokens, maxTokens: compact ? targetTokens : Math.max(750, targetTokens, Math.min(12_000, Math.round(messageBudget * 0.3))) };
}

// ---- lines ----

/** How much each line says: everything, or less so that more facts fit. */
export type Detail = 'full' | 'short' | 'minimal';
const DETAILS: readonly Detail[] = ['full', 'short', 'minimal'];
/** Longest command text shown at each detail (longer ones keep their start and end, see ledgerCommands.ts). */
const COMMAND_CHARS: Record<Detail, number> = { full: 200, short: 100, minimal: 56 };
const REQUEST_CHARS: Record<Detail, number> = { full: 160, short: 80, minimal: 40 };
const PLAN_CHARS: Record<Detail, number> = { full: 1500, short: 400, minimal: 100 };
/** Longest outcome shown (an exit status is short; a command without one is described by its last output line, which is cut). */
const OUTCOME_CHARS: Record<Detail, number> = { full: 200, short: 72, minimal: 52 };
const GROUP_OUTCOME_CHARS = 40;

/** An outcome cut to `maxChars` (its start kept, {@link ELLIPSIS} at the end). */
export function shownOutcome(outcome: string, maxChars: number): string {
	return outcome.length <= maxChars ? outcome : outcome.slice(0, Math.max(1, maxChars - ELLIPSIS.length)) + ELLIPSIS;
}

const times = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What an edit entry says after its path: `created, 2 edits, 1 failed attempt`. */
export function editDetail(e: LedgerEdit, detail: Detail = 'full'): string {
	const parts: string[] = [];
	if (e.created) parts.push('created');
	if (detail !== 'minimal' && e.count > (e.created ? 1 : 0)) parts.push(times(e.created ? e.count - 1 : e.count, 'edit', 'edits'));
	if (e.failed && (detail !== 'minimal' || e.count === 0)) parts.push(times(e.failed, 'failed attempt', 'failed attempts'));
	return parts.join(', ');
}

/** The line of one command; `shown` is the command text as displayed (trimmed at lower detail). */
export function commandLine(c: LedgerCommand, detail: Detail = 'full', shown = c.command): string {
	return `- \`${shown}\`: ${shownOutcome(c.outcome, OUTCOME_CHARS[detail])}${detail !== 'minimal' && c.count > 1 ? ` (run ${c.count} times)` : ''}`;
}

function readDetail(r: LedgerRead, detail: Detail): string {
	return detail !== 'minimal' && r.count > 1 ? `${r.count} times` : '';
}

function callLine(c: LedgerCall, detail: Detail): string {
	return `- ${c.tool === 'search' ? '' : `${c.tool} `}${c.digest}${detail !== 'minimal' && c.count > 1 ? ` (${c.count} times)` : ''}`;
}

function pathLine(prefix: string, name: string, detail: string): string {
	return `${prefix}${name}${detail ? ` (${detail})` : ''}`;
}

/** The request line at a given length. */
export function requestLine(index: number, text: string, maxChars: number): string {
	return `${index + 1}. ${text.length <= maxChars ? text : text.slice(0, Math.max(1, maxChars - 1)) + '…'}`;
}

// ---- merged (group) lines for the oldest entries of a category ----

const under = (dir: string) => (dir === '' ? '' : dir === '/' ? ' under /' : ` under ${dir}/`);
/** At most this many group lines per category. */
const MAX_GROUP_LINES = 6;

function mergedPathLines<T extends { path: string }>(entries: readonly T[], describe: (group: readonly T[]) => string): string[] {
	return groupEntriesByDirectory(entries, e => e.path, MAX_GROUP_LINES).map(
		g => `- ${g.entries.length === 1 ? g.entries[0].path : `${g.entries.length} files${under(g.dir)}`} (${describe(g.entries)})`,
	);
}

function mergedReads(reads: readonly LedgerRead[]): string[] {
	return mergedPathLines(reads, group =>
		times(
			group.reduce((s, r) => s + r.count, 0),
			'read',
			'reads',
		),
	);
}

function mergedEdits(edits: readonly LedgerEdit[]): string[] {
	return mergedPathLines(edits, group => {
		const count = group.reduce((s, e) => s + e.count, 0);
		const failed = group.reduce((s, e) => s + e.failed, 0);
		return `${times(count, 'edit', 'edits')}${failed ? `, ${times(failed, 'failed attempt', 'failed attempts')}` : ''}`;
	});
}

function mergedCommands(commands: readonly LedgerCommand[]): string[] {
	const byProgram = new Map<string, LedgerCommand[]>();
	for (const c of commands) {
		const program = c.command.split(/\s+/).find(w => !/^[A-Za-z_]\w*=/.test(w)) ?? c.command;
		const list = byProgram.get(program);
		if (list) list.push(c);
		else byProgram.set(program, [c]);
	}
	const groups = [...byProgram].sort((a, b) => b[1].length - a[1].length);
	const line = (label: string, group: readonly LedgerCommand[]) => {
		const runs = group.reduce((s, c) => s + c.count, 0);
		const failed = group.filter(c => c.failed).length;
		const latest = group.reduce((a, b) => (b.last > a.last ? b : a));
		return `- ${times(group.length, 'other command', 'other commands')} ${label} (${times(runs, 'run', 'runs')}, ${failed} failing; latest: ${shownOutcome(latest.outcome, GROUP_OUTCOME_CHARS)})`;
	};
	const shown = groups.slice(0, MAX_GROUP_LINES - 1).map(([program, group]) => line(`starting with \`${program}\``, group));
	const rest = groups.slice(MAX_GROUP_LINES - 1).flatMap(([, group]) => group);
	return rest.length ? [...shown, line('with other programs', rest)] : shown;
}

function mergedCalls(calls: readonly LedgerCall[], what: readonly [one: string, many: string]): string[] {
	if (!calls.length) return [];
	const byTool = new Map<string, number>();
	for (const c of calls) {
		const space = c.digest.indexOf(' ');
		const key = c.tool === 'search' ? (space === -1 ? c.digest : c.digest.slice(0, space)) : c.tool;
		byTool.set(key, (byTool.get(key) ?? 0) + c.count);
	}
	const total = calls.reduce((s, c) => s + c.count, 0);
	const kinds = [...byTool].sort((a, b) => b[1] - a[1]);
	const named = kinds.slice(0, 8).map(([k, n]) => `${k} ×${n}`);
	if (kinds.length > 8) named.push(`${kinds.length - 8} more kinds`);
	return [`- ${times(total, `older ${what[0]}`, `older ${what[1]}`)}: ${named.join(', ')}`];
}

// ---- sections ----

type Category = 'edits' | 'commands' | 'others' | 'searches' | 'reads';
/**
 * Which entries keep their own line longest: the facts, files before commands (a file is one short
 * path, a command a longer line), then the rest.
 */
const PRIORITY: readonly Category[] = ['edits', 'reads', 'commands', 'others', 'searches'];
/** The facts: every distinct file and command, once, with its latest outcome. */
const FACTS: ReadonlySet<Category> = new Set(['edits', 'reads', 'commands']);
const TITLES: Record<Category, string> = {
	edits: 'Files created or edited:',
	commands: 'Commands run (outcome of the latest run):',
	reads: 'Files read:',
	searches: 'Searches and listings:',
	others: 'Other tool calls:',
};
/** Where each section appears in the text. */
const ORDER: readonly Category[] = ['edits', 'commands', 'reads', 'searches', 'others'];

type Entry = LedgerEdit | LedgerCommand | LedgerCall | LedgerRead;

/** One category of the ledger's entries, newest first. */
interface SectionPlan {
	readonly category: Category;
	/** Newest first. */
	readonly entries: readonly Entry[];
}

/**
 * How many of the newest entries of each category have their own line (in the order of the
 * plans, which is {@link PRIORITY}); the rest are merged into group lines.
 */
type Singles = readonly number[];

/** A tiny per-render cache of line token counts (each line counted with its line break). */
class LineCost {
	private readonly cache = new Map<string, number>();
	constructor(private readonly countTokens: (text: string) => number) {}
	of(line: string): number {
		let n = this.cache.get(line);
		if (n === undefined) {
			n = this.countTokens(line + '\n');
			this.cache.set(line, n);
		}
		return n;
	}
	sum(lines: readonly string[]): number {
		let total = 0;
		for (const line of lines) total += this.of(line);
		return total;
	}
}

interface Layout {
	readonly detail: Detail;
	/** Requests before this index are referred to by number only. */
	readonly requestsByNumber: number;
	readonly planChars: number;
	/** Command text as shown, per command, at this detail. */
	readonly commandText: ReadonlyMap<LedgerCommand, string>;
	/** Position of each command in the ledger (single commands are shown in the order they were first run). */
	readonly commandOrder: ReadonlyMap<LedgerCommand, number>;
	/** Per category, its group lines with every entry merged and their cost with the heading (filled on first use, the same at every detail). */
	readonly allMerged: Map<Category, { readonly lines: readonly string[]; readonly cost: number }>;
}

/** The single lines of a path category, as a directory tree (ledgerPaths.ts). */
function pathLines<T extends { path: string }>(entries: readonly T[], detailOf: (e: T) => string): string[] {
	return pathTreeLines(
		entries,
		e => e.path,
		(indent, name, e) => pathLine(`${indent}- `, name, detailOf(e)),
	);
}

/** A category as lines: group lines for its merged (oldest) entries, then one line for each of its `singleCount` newest entries. */
function sectionLines(plan: SectionPlan, singleCount: number, layout: Layout): string[] {
	const single = plan.entries.slice(0, singleCount);
	const merged = plan.entries.slice(singleCount).reverse(); // oldest first, as they happened
	const d = layout.detail;
	switch (plan.category) {
		case 'edits':
			return [...(merged.length ? mergedEdits(merged as LedgerEdit[]) : []), ...pathLines(single as LedgerEdit[], e => editDetail(e, d))];
		case 'reads':
			return [...(merged.length ? mergedReads(merged as LedgerRead[]) : []), ...pathLines(single as LedgerRead[], r => readDetail(r, d))];
		case 'commands': {
			// Single commands in the order they were first run (the ledger's order).
			const at = (c: LedgerCommand) => layout.commandOrder.get(c) ?? 0;
			const order = [...(single as LedgerCommand[])].sort((a, b) => at(a) - at(b));
			const lines = merged.length ? mergedCommands(merged as LedgerCommand[]) : [];
			for (const group of commandGroups(order, layout.commandText)) {
				const shown = (c: LedgerCommand) => layout.commandText.get(c) ?? c.command;
				if (!group.prefix) lines.push(commandLine(group.commands[0], d, shown(group.commands[0])));
				else {
					lines.push(`- \`${group.prefix}\` followed by:`);
					for (const c of group.commands) lines.push('  ' + commandLine(c, d, shown(c).slice(group.prefix.length)));
				}
			}
			return lines;
		}
		case 'searches':
			return [...mergedCalls(merged as LedgerCall[], ['search or listing', 'searches and listings']), ...single.map(c => callLine(c as LedgerCall, d))];
		case 'others':
			return [...mergedCalls(merged as LedgerCall[], ['call', 'calls']), ...single.map(c => callLine(c as LedgerCall, d))];
	}
}

function fixedLines(ledger: DoneLedger, layout: Layout): string[] {
	const lines = [LEDGER_HEADING, 'User requests, oldest first:'];
	if (layout.requestsByNumber > 0) {
		lines.push(`${layout.requestsByNumber === 1 ? '1.' : `1.–${layout.requestsByNumber}.`} (shown word for word in the conversation above)`);
	}
	ledger.requests.forEach((text, i) => {
		if (i >= layout.requestsByNumber) lines.push(requestLine(i, text, REQUEST_CHARS[layout.detail]));
	});
	if (ledger.requests.length === 0) lines.pop(); // no requests heading without requests
	return lines;
}

function planLines(ledger: DoneLedger, layout: Layout): string[] {
	if (!ledger.plan || layout.planChars <= 0) return [];
	const text = ledger.plan.text.length <= layout.planChars ? ledger.plan.text : ledger.plan.text.slice(0, layout.planChars - 1) + '…';
	return [`Latest plan (${ledger.plan.tool}):`, ...text.split('\n')];
}

function assemble(ledger: DoneLedger, layout: Layout, plans: readonly SectionPlan[], singles: Singles, cost: LineCost): string {
	const lines = fixedLines(ledger, layout);
	for (const category of ORDER) {
		const at = plans.findIndex(p => p.category === category);
		const plan = plans[at];
		const body = singles[at] === 0 ? allMerged(plan, layout, cost).lines : sectionLines(plan, singles[at], layout);
		if (body.length) lines.push(TITLES[category], ...body); // a heading only with lines under it
	}
	lines.push(...planLines(ledger, layout));
	return lines.join('\n');
}

// ---- fitting ----

/**
 * Chooses how many of each category's newest entries keep their own line within `budget`:
 * edits first, then commands, others, searches, reads. Once a category cannot keep all its
 * entries, the categories after it keep none. Each category first sets aside what its group
 * lines cost with every entry merged (a little more than they cost with fewer merged, so the
 * caller retries with what is left over); single lines are measured as they will be shown (a
 * file joining another under a directory line costs the difference), and only until the room
 * is used up, so the work does not grow with the number of entries that stay merged.
 */
function fill(plans: readonly SectionPlan[], layout: Layout, budget: number, cost: LineCost): Singles {
	const singles = plans.map(() => 0);
	const reserve = plans.map(plan => allMerged(plan, layout, cost).cost);
	let remaining = budget - reserve.reduce((s, r) => s + r, 0);
	for (const [i, plan] of plans.entries()) {
		if (plan.entries.length === 0) continue;
		const r = reserve[i];
		remaining += r;
		const heading = cost.of(TITLES[plan.category]);
		const all = plan.entries.length;
		// Every entry on its own line, measured as shown (shared directories written once), when that can fit.
		if (all * 2 <= remaining) {
			let total = heading;
			for (const line of sectionLines(plan, all, layout)) {
				total += cost.of(line);
				if (total > remaining) break;
			}
			if (total <= remaining) {
				singles[i] = all;
				remaining -= total;
				continue;
			}
		}
		const incremental = incrementalCosts(plan, layout, cost);
		// Prefix sums of the single lines, measured only while they can still fit.
		const prefix = [heading];
		while (prefix.length <= plan.entries.length && prefix[prefix.length - 1] <= remaining) {
			prefix.push(prefix[prefix.length - 1] + incremental(prefix.length - 1));
		}
		// Some stay merged: their group lines need room too. (The single lines' costs here are close
		// estimates; the caller checks the whole text and retries with what is left over.)
		let k = Math.min(prefix.length - 1, all - 1);
		while (k > 0 && prefix[k] + r - heading > remaining) k--;
		singles[i] = k;
		remaining -= k === 0 ? r : prefix[k] + r - heading;
		if (k < plan.entries.length) break; // the categories after this one stay merged
	}
	return singles;
}

/** A category's group lines with every entry merged, and their cost with the heading; computed once per render. */
function allMerged(plan: SectionPlan, layout: Layout, cost: LineCost): { readonly lines: readonly string[]; readonly cost: number } {
	let found = layout.allMerged.get(plan.category);
	if (!found) {
		const lines = plan.entries.length ? sectionLines(plan, 0, layout) : [];
		found = { lines, cost: lines.length ? cost.of(TITLES[plan.category]) + cost.sum(lines) : 0 };
		layout.allMerged.set(plan.category, found);
	}
	return found;
}

/**
 * Tokens of the text with every edit and command on its own line and everything else merged, or
 * Infinity as soon as it passes `limit` (so a ledger of thousands of facts is not measured whole).
 */
function factsCost(ledger: DoneLedger, plans: readonly SectionPlan[], layout: Layout, limit: number, cost: LineCost): number {
	let total = cost.sum(fixedLines(ledger, layout)) + cost.sum(planLines(ledger, layout));
	const minimumLine = 2; // "- x" and its line break
	const facts = plans.filter(p => FACTS.has(p.category)).reduce((n, p) => n + p.entries.length, 0);
	if (total + facts * minimumLine > limit) return Infinity;
	for (const plan of plans) {
		if (!FACTS.has(plan.category)) {
			total += allMerged(plan, layout, cost).cost;
			if (total > limit) return Infinity;
			continue;
		}
		const lines = plan.entries.length ? sectionLines(plan, plan.entries.length, layout) : [];
		if (lines.length) total += cost.of(TITLES[plan.category]);
		for (const line of lines) {
			total += cost.of(line);
			if (total > limit) return Infinity;
		}
	}
	return total;
}

/** The cost of giving entry k (newest first) its own line, given entries 0..k-1 have theirs. */
function incrementalCosts(plan: SectionPlan, layout: Layout, cost: LineCost): (k: number) => number {
	const d = layout.detail;
	if (plan.category === 'edits' || plan.category === 'reads') {
		const detailOf = plan.category === 'edits' ? (e: Entry) => editDetail(e as LedgerEdit, d) : (e: Entry) => readDetail(e as LedgerRead, d);
		const shownInDir = new Map<string, number>();
		const firstInDir = new Map<string, LedgerEdit | LedgerRead>();
		return k => {
			const e = plan.entries[k] as LedgerEdit | LedgerRead;
			const dir = dirOf(e.path);
			const before = shownInDir.get(dir) ?? 0;
			shownInDir.set(dir, before + 1);
			const alone = (x: LedgerEdit | LedgerRead) => cost.of(pathLine('- ', x.path, detailOf(x)));
			const child = (x: LedgerEdit | LedgerRead) => cost.of(pathLine('  - ', x.path.slice(dir.length + 1), detailOf(x)));
			if (dir === '' || before === 0) {
				firstInDir.set(dir, e);
				return alone(e);
			}
			if (before === 1) {
				// The second file of a directory: the directory line appears and the first file becomes its child.
				const first = firstInDir.get(dir)!;
				return cost.of(`- ${dir}/`) + child(first) + child(e) - alone(first);
			}
			return child(e);
		};
	}
	if (plan.category === 'commands') {
		return k => {
			const c = plan.entries[k] as LedgerCommand;
			return cost.of(commandLine(c, d, layout.commandText.get(c) ?? c.command));
		};
	}
	return k => cost.of(callLine(plan.entries[k] as LedgerCall, d));
}

function newestFirst<T extends { last: number }>(list: readonly T[]): T[] {
	return [...list].sort((a, b) => b.last - a.last);
}

/**
 * The ledger as text of at most `maxTokens` tokens (by `countTokens`), or `''` when the ledger is
 * empty or not even its most compact form (every entry merged, requests by number) fits.
 */
export function renderDoneLedger(ledger: DoneLedger, options: LedgerRenderOptions): string {
	if (ledger.requests.length === 0 && ledger.steps === 0) return '';
	const { maxTokens, countTokens } = options;
	const target = Math.min(maxTokens, options.targetTokens ?? Math.round(maxTokens * TARGET_SHARE));
	const cost = new LineCost(countTokens);
	const commandOrder = new Map(ledger.commands.map((c, i) => [c, i]));
	// A file read and edited is named once, among the edits.
	const edited = new Set(ledger.edits.map(e => e.path));
	const entriesOf = (category: Category): readonly Entry[] => (category === 'reads' ? ledger.reads.filter(r => !edited.has(r.path)) : ledger[category]);
	const plans: readonly SectionPlan[] = PRIORITY.map(category => ({ category, entries: newestFirst(entriesOf(category)) }));
	const isFact = (p: SectionPlan) => FACTS.has(p.category);
	const allFactsSingle = (singles: Singles) => plans.every((p, i) => !isFact(p) || singles[i] === p.entries.length);
	const texts = new Map<Detail, ReadonlyMap<LedgerCommand, string>>();
	// Group lines do not depend on the detail: computed once per render.
	const allMergedLines: Layout['allMerged'] = new Map();
	const layoutAt = (detail: Detail, requestsByNumber = 0, planChars = Math.min(PLAN_CHARS[detail], ledger.plan?.text.length ?? 0)): Layout => {
		let commandText = texts.get(detail);
		if (!commandText) {
			commandText = identifyingForms(ledger.commands, COMMAND_CHARS[detail]);
			texts.set(detail, commandText);
		}
		return { detail, requestsByNumber, planChars, commandText, commandOrder, allMerged: allMergedLines };
	};
	/**
	 * Fills `budget` and returns the text when it is within `limit` (checked with the exact count).
	 * The fill measures line by line, so the exact count may differ a little: the room is moved by
	 * the difference a few times, keeping the fullest text within the limit.
	 */
	const attempt = (layout: Layout, budget: number, limit: number): { readonly text: string; readonly singles: Singles } | undefined => {
		let room = budget - cost.sum(fixedLines(ledger, layout)) - cost.sum(planLines(ledger, layout));
		let best: { text: string; singles: Singles } | undefined;
		const shown = (singles: Singles) => singles.reduce((s, n) => s + n, 0);
		for (let tries = 0; tries < 4 && room > 0; tries++) {
			const singles = fill(plans, layout, room, cost);
			const text = assemble(ledger, layout, plans, singles, cost);
			const tokens = countTokens(text);
			if (tokens <= limit) {
				if (!best || shown(singles) > shown(best.singles)) best = { text, singles };
				const slack = Math.min(limit, budget) - tokens;
				// Close enough: another pass would add a line or two at the cost of rebuilding the group lines.
				if (plans.every((p, i) => singles[i] === p.entries.length) || slack < Math.max(8, limit * 0.02)) break;
				room += slack;
			} else room -= tokens - limit + 2;
		}
		return best;
	};

	// 1. With every detail: when every edit and command fits on its own line (everything else
	//    merged) within the target, fill the target; when only within the bound, take what the
	//    facts need. 2. Otherwise the same with less detail.
	// Lines are shortest at the least detail: when the facts do not fit even then, skip to 3.
	const fitsAtLeastDetail = factsCost(ledger, plans, layoutAt('minimal'), maxTokens, cost) !== Infinity;
	for (const detail of fitsAtLeastDetail ? DETAILS : []) {
		const layout = layoutAt(detail);
		const needed = factsCost(ledger, plans, layout, maxTokens, cost);
		if (needed === Infinity) continue;
		// A little room over the measured size: the fill measures line by line.
		const budget = needed <= target ? target : Math.min(maxTokens, Math.ceil(needed * 1.02) + 8);
		const fitted = attempt(layout, budget, Math.max(budget, target));
		if (fitted && allFactsSingle(fitted.singles)) return fitted.text;
	}
	// 3. The oldest facts are merged, at the least detail and the whole bound.
	const minimal = layoutAt('minimal');
	const merged = attempt(minimal, maxTokens, maxTokens);
	if (merged) return merged.text;
	// 4. No plan, then the oldest requests by number only.
	for (let byNumber = 0; byNumber <= ledger.requests.length; byNumber = byNumber === 0 ? 1 : Math.min(ledger.requests.length, byNumber * 2)) {
		const fitted = attempt(layoutAt('minimal', byNumber, 0), maxTokens, maxTokens);
		if (fitted) return fitted.text;
		if (byNumber === ledger.requests.length) break;
	}
	return '';
}

/** The ledger text a prompt shows, and the summary it was rendered for. */
export interface LedgerForPrompt {
	/** Id of the round carrying the newest summary when the text was rendered. */
	readonly anchorRoundId: string;
	readonly text: string;
	/** The bound it was rendered within: a new bound (the compact ledger) renders it again. */
	readonly maxTokens?: number;
}

/**
 * The ledger text for the next prompt, under the policy "render at each summary, keep the text
 * until the next one": no ledger while nothing is summarized (every round is still verbatim);
 * when the newest summary differs from `previous`'s, the current ledger is rendered again;
 * otherwise `previous` is returned unchanged. Work done after the newest summary is in the
 * verbatim rounds, and the text stays identical from request to request, so the prompt prefix
 * up to the kept rounds stays cacheable. `undefined`: show no ledger.
 */
export function ledgerForPrompt(
	conversation: Conversation,
	ledger: DoneLedger,
	previous: LedgerForPrompt | undefined,
	options: LedgerRenderOptions,
): LedgerForPrompt | undefined {
	const flat = flattenRounds(conversation);
	const newest = newestSummaryIndex(flat);
	if (newest === -1) return undefined;
	const anchorRoundId = flat[newest].round.id;
	if (previous?.anchorRoundId === anchorRoundId && (previous.maxTokens === undefined || previous.maxTokens === options.maxTokens)) return previous;
	return { anchorRoundId, text: renderDoneLedger(ledger, options), maxTokens: options.maxTokens };
}
