// The done-ledger as prompt text, within a token cap. Every entry gets its own line while it
// fits; over the cap, the oldest entries are merged into group lines ("12 files under src/"),
// reads and searches first, then other calls, then commands, then edits. User requests are
// never left out: they are shortened, and only as a last resort the oldest are referred to by
// number (they stay word for word in the conversation itself).
import type { Conversation } from '../conversation/conversation';
import type { DoneLedger, LedgerCall, LedgerCommand, LedgerEdit, LedgerRead } from './doneLedger';
import { flattenRounds, newestSummaryIndex } from '../conversation/flatten';

export const LEDGER_HEADING = 'Already done in this session (recorded from the tool calls and their results; do not repeat any of it unless the user asks):';

export interface LedgerRenderOptions {
	readonly maxTokens: number;
	readonly countTokens: (text: string) => number;
}

/** A reasonable cap for a message budget: 8% of it, between 300 and 3,000 tokens. */
export function doneLedgerMaxTokens(messageBudget: number): number {
	return Math.max(300, Math.min(3000, Math.round(messageBudget * 0.08)));
}

// ---- one line per entry (the fact lines the continuity benchmark looks for) ----

const times = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function editLine(e: LedgerEdit): string {
	const parts: string[] = [];
	if (e.created) parts.push('created');
	if (e.count > (e.created ? 1 : 0)) parts.push(times(e.created ? e.count - 1 : e.count, 'edit', 'edits'));
	if (e.failed) parts.push(times(e.failed, 'failed attempt', 'failed attempts'));
	return `- ${e.path} (${parts.join(', ')})`;
}

export function commandLine(c: LedgerCommand): string {
	return `- \`${c.command}\`: ${c.outcome}${c.count > 1 ? ` (run ${c.count} times)` : ''}`;
}

function readLine(r: LedgerRead): string {
	return `- ${r.path}${r.count > 1 ? ` (${r.count} times)` : ''}`;
}

function callLine(c: LedgerCall): string {
	return `- ${c.tool === 'search' ? '' : `${c.tool} `}${c.digest}${c.count > 1 ? ` (${c.count} times)` : ''}`;
}

/** The request line at a given length. */
export function requestLine(index: number, text: string, maxChars: number): string {
	return `${index + 1}. ${text.length <= maxChars ? text : text.slice(0, Math.max(1, maxChars - 1)) + '…'}`;
}

// ---- merged lines ----

function dirOf(path: string): string[] {
	const parts = path.split(/[\\/]/);
	parts.pop();
	return parts;
}

/** Paths grouped by their directory, cut to the deepest level that gives at most `maxGroups` groups. */
export function groupByDirectory(paths: readonly string[], maxGroups = 6): { dir: string; paths: string[] }[] {
	const dirs = paths.map(dirOf);
	const deepest = Math.max(0, ...dirs.map(d => d.length));
	for (let depth = deepest; depth >= 0; depth--) {
		const groups = new Map<string, string[]>();
		paths.forEach((p, i) => {
			const key = dirs[i].slice(0, depth).join('/');
			groups.set(key, [...(groups.get(key) ?? []), p]);
		});
		if (groups.size <= maxGroups || depth === 0) {
			return [...groups].map(([dir, ps]) => ({ dir, paths: ps }));
		}
	}
	return [];
}

const under = (dir: string) => (dir === '' ? '' : dir === '/' ? ' under /' : ` under ${dir}/`);

function mergedReads(reads: readonly LedgerRead[]): string[] {
	const total = (ps: string[]) => reads.filter(r => ps.includes(r.path)).reduce((s, r) => s + r.count, 0);
	return groupByDirectory(reads.map(r => r.path)).map(
		g => `- ${g.paths.length === 1 ? g.paths[0] : `${g.paths.length} files${under(g.dir)}`} (${times(total(g.paths), 'read', 'reads')})`,
	);
}

function mergedEdits(edits: readonly LedgerEdit[]): string[] {
	return groupByDirectory(edits.map(e => e.path)).map(g => {
		const group = edits.filter(e => g.paths.includes(e.path));
		const count = group.reduce((s, e) => s + e.count, 0);
		const failed = group.reduce((s, e) => s + e.failed, 0);
		return `- ${g.paths.length === 1 ? g.paths[0] : `${g.paths.length} files${under(g.dir)}`} (${times(count, 'edit', 'edits')}${failed ? `, ${times(failed, 'failed attempt', 'failed attempts')}` : ''})`;
	});
}

function mergedCommands(commands: readonly LedgerCommand[]): string[] {
	const byProgram = new Map<string, LedgerCommand[]>();
	for (const c of commands) {
		const program = c.command.split(/\s+/).find(w => !/^[A-Za-z_]\w*=/.test(w)) ?? c.command;
		byProgram.set(program, [...(byProgram.get(program) ?? []), c]);
	}
	return [...byProgram].map(([program, group]) => {
		const runs = group.reduce((s, c) => s + c.count, 0);
		const failed = group.filter(c => c.failed).length;
		const latest = group.reduce((a, b) => (b.last > a.last ? b : a));
		return `- ${times(group.length, 'other command', 'other commands')} starting with \`${program}\` (${times(runs, 'run', 'runs')}, ${failed} failing at their latest run; latest: ${latest.outcome})`;
	});
}

function mergedCalls(calls: readonly LedgerCall[], what: string): string[] {
	if (!calls.length) return [];
	const byTool = new Map<string, number>();
	for (const c of calls) {
		const key = c.tool === 'search' ? c.digest.split(' ')[0] : c.tool;
		byTool.set(key, (byTool.get(key) ?? 0) + c.count);
	}
	const total = calls.reduce((s, c) => s + c.count, 0);
	return [`- ${total} older ${what}: ${[...byTool].map(([k, n]) => `${k} ×${n}`).join(', ')}`];
}

// ---- layout ----

interface Shape {
	/** How many of the oldest entries (in MERGE_ORDER) are merged. */
	readonly merged: number;
	readonly requestChars: number;
	/** Requests before this index are referred to by number only. */
	readonly requestsByNumber: number;
	readonly planChars: number;
}

type Category = 'reads' | 'searches' | 'others' | 'commands' | 'edits';
const MERGE_ORDER: readonly Category[] = ['reads', 'searches', 'others', 'commands', 'edits'];

/** Entries in the order they are merged: category by category, oldest first within each. */
function mergeQueue(ledger: DoneLedger): { category: Category; entry: { last: number } }[] {
	return MERGE_ORDER.flatMap(category =>
		[...(ledger[category] as readonly { last: number }[])].sort((a, b) => a.last - b.last).map(entry => ({ category, entry })),
	);
}

function layout(ledger: DoneLedger, shape: Shape, queue: ReturnType<typeof mergeQueue>): string {
	const merged = new Set(queue.slice(0, shape.merged).map(q => q.entry));
	const split = <T extends { last: number }>(list: readonly T[]) => ({ single: list.filter(e => !merged.has(e)), merged: list.filter(e => merged.has(e)) });
	const lines: string[] = [LEDGER_HEADING];
	const section = (title: string, body: string[]) => {
		if (body.length) lines.push(title, ...body);
	};

	const requestLines: string[] = [];
	if (shape.requestsByNumber > 0) {
		requestLines.push(`${shape.requestsByNumber === 1 ? '1.' : `1.–${shape.requestsByNumber}.`} (shown word for word in the conversation above)`);
	}
	ledger.requests.forEach((text, i) => {
		if (i >= shape.requestsByNumber) requestLines.push(requestLine(i, text, shape.requestChars));
	});
	section('User requests, oldest first:', requestLines);

	const edits = split(ledger.edits);
	section('Files created or edited:', [...mergedEdits(edits.merged), ...edits.single.map(editLine)]);
	const commands = split(ledger.commands);
	section('Commands run (outcome of the latest run):', [...mergedCommands(commands.merged), ...commands.single.map(commandLine)]);
	const reads = split(ledger.reads);
	section('Files read:', [...(reads.merged.length ? mergedReads(reads.merged) : []), ...reads.single.map(readLine)]);
	const searches = split(ledger.searches);
	section('Searches and listings:', [...mergedCalls(searches.merged, 'searches and listings'), ...searches.single.map(callLine)]);
	const others = split(ledger.others);
	section('Other tool calls:', [...mergedCalls(others.merged, 'calls'), ...others.single.map(callLine)]);
	if (ledger.plan && shape.planChars > 0) {
		const text = ledger.plan.text.length <= shape.planChars ? ledger.plan.text : ledger.plan.text.slice(0, shape.planChars - 1) + '…';
		lines.push(`Latest plan (${ledger.plan.tool}):`, text);
	}
	return lines.join('\n');
}

/** The smallest `n` in [lo, hi] with `fits(n)`, assuming fits is monotone; hi when none. */
function smallestFitting(lo: number, hi: number, fits: (n: number) => boolean): number {
	while (lo < hi) {
		const mid = Math.floor((lo + hi) / 2);
		if (fits(mid)) hi = mid;
		else lo = mid + 1;
	}
	return lo;
}

const REQUEST_LENGTHS = [160, 80, 40] as const;

/**
 * The ledger as text of at most `maxTokens` tokens (by `countTokens`), or `''` when the ledger is
 * empty or not even its most compact form (every entry merged, requests by number) fits.
 */
export function renderDoneLedger(ledger: DoneLedger, options: LedgerRenderOptions): string {
	const text = renderWithCounter(ledger, options, false);
	return text === '' || options.countTokens(text) <= options.maxTokens ? text : renderWithCounter(ledger, options, true);
}

function renderWithCounter(ledger: DoneLedger, options: LedgerRenderOptions, exactCounts: boolean): string {
	if (ledger.requests.length === 0 && ledger.steps === 0) return '';
	const { maxTokens, countTokens } = options;
	const queue = mergeQueue(ledger);
	const planChars = ledger.plan?.text.length ?? 0;
	// The search compares a per-line estimate (lines repeat from render to render, so a caching
	// tokenizer counts only the new ones); the answer is then checked with the exact count.
	const estimate = (text: string) => text.split('\n').reduce((sum, line) => sum + countTokens(line) + 1, 0);
	const exactFits = (shape: Shape) => countTokens(layout(ledger, shape, queue)) <= maxTokens;
	const exact = exactCounts;
	const fits = (shape: Shape) => (exact ? exactFits(shape) : estimate(layout(ledger, shape, queue)) <= maxTokens);
	const shapeAt = (merged: number, requestChars: number, requestsByNumber = 0, plan = planChars): Shape => ({
		merged,
		requestChars,
		requestsByNumber,
		planChars: plan,
	});
	/** The fewest merges in [lo, hi] that fit; the size is not strictly monotone (a group line can appear), so step on from the search's answer. */
	const fewestMerges = (lo: number, hi: number, requestChars: number): Shape | undefined => {
		for (let m = smallestFitting(lo, hi, k => fits(shapeAt(k, requestChars))); m <= hi; m++) {
			if (fits(shapeAt(m, requestChars))) return shapeAt(m, requestChars);
		}
		return undefined;
	};

	// 1. Merge old reads, searches and other calls, shortening the requests before touching edits and commands.
	const cheap = queue.findIndex(q => q.category === 'commands' || q.category === 'edits');
	const cheapEnd = cheap === -1 ? queue.length : cheap;
	for (const requestChars of REQUEST_LENGTHS) {
		const shape = fewestMerges(0, cheapEnd, requestChars);
		if (shape) return layout(ledger, shape, queue);
	}
	// 2. Then merge the oldest commands, then the oldest edits.
	const shortest = REQUEST_LENGTHS[REQUEST_LENGTHS.length - 1];
	const merged = fewestMerges(cheapEnd, queue.length, shortest);
	if (merged) return layout(ledger, merged, queue);
	// 3. Everything merged: shorten the plan, then refer to the oldest requests by number.
	for (const plan of [400, 100, 0]) {
		const shape = shapeAt(queue.length, shortest, 0, Math.min(plan, planChars));
		if (fits(shape)) return layout(ledger, shape, queue);
	}
	const byNumber = smallestFitting(0, ledger.requests.length, k => fits(shapeAt(queue.length, shortest, k, 0)));
	const last = shapeAt(queue.length, shortest, byNumber, 0);
	return fits(last) ? layout(ledger, last, queue) : '';
}

/** The ledger text a prompt shows, and the summary it was rendered for. */
export interface LedgerForPrompt {
	/** Id of the round carrying the newest summary when the text was rendered. */
	readonly anchorRoundId: string;
	readonly text: string;
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
	if (previous?.anchorRoundId === anchorRoundId) return previous;
	return { anchorRoundId, text: renderDoneLedger(ledger, options) };
}
