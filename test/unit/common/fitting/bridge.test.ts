// The bridge (FitOptions.bridge, decision 43): at an overflow with a summary under way in the
// background, the request never waits for it. The older rounds are set aside behind a provisional
// block (one line per call), the oldest results elided if still needed, and the real summary takes
// their place once it is ready. Driven with fakes: a prompt whose size is the characters it shows.
import * as assert from 'node:assert/strict';
import { BackgroundSummaries } from '../../../../src/common/background/backgroundJob';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../../../../src/common/conversation/flatten';
import { ELIDED_PREFIX, MASKED_PREFIX } from '../../../../src/common/conversation/toolResultPlaceholders';
import { fitPrompt, type FitEvent, type FitOptions, type FitSteps } from '../../../../src/common/fitting/fitPrompt';
import { fitLogLine } from '../../../../src/common/fitting/fitNotices';
import { newFitMemory } from '../../../../src/common/fitting/fitMemory';
import { makeSummary, type PreparedSummary } from '../../../../src/common/fitting/preparedSummary';
import { setAside, stripProvisional } from '../../../../src/common/fitting/setAside';
import { recall } from '../../../../src/common/recall/recall';
import { encodeTurnRecord, summaryChanges } from '../../../../src/common/persistence/metadata';
import { planOrNothing } from '../../../../src/common/planning/planners';
import type { SummarizationPlan } from '../../../../src/common/planning/plan';
import { restoreElided, elideOldestToolResults } from '../../../../src/common/shrinking/elideToolResults';
import { summarizerEntries } from '../../../../src/common/summaries/summarizerInput';

function round(id: string, resultChars: number, name = 'read_file'): Round {
	return {
		id,
		response: `r ${id}`,
		toolCalls: [{ id: `c-${id}`, name, arguments: JSON.stringify({ path: `src/${id}.ts` }), result: 'x'.repeat(resultChars) }],
	};
}

function conversationOf(rounds: number, resultChars: number): Conversation {
	return { turns: [], activeRounds: Array.from({ length: rounds }, (_, i) => round(`a${i}`, resultChars)) };
}

/** The fake prompt's size: the newest summary and every round after it, in characters. */
function size(conversation: Conversation): number {
	const flat = flattenRounds(conversation);
	const from = newestSummaryIndex(flat);
	let total = from >= 0 ? (flat[from].round.summary ?? '').length : 0;
	for (const { round: r } of flat.slice(from + 1)) {
		total += r.response.length + r.toolCalls.reduce((s, c) => s + c.arguments.length + (c.result ?? '').length, 0);
	}
	return total;
}

const count = (text: string) => text.length;
const plan = (c: Conversation) => planOrNothing(c, 'half-context', { countTokens: count });

interface Bridge {
	readonly calls: string[];
	/** What a take without waiting gets (a summary ready in the background), and with waiting. */
	ready?: PreparedSummary;
	waited?: PreparedSummary;
	/** The plan of the job under way, if any. */
	underWay?: SummarizationPlan;
	/** Whether a job is (or could be started) under way. */
	canPrepare: boolean;
}

function steps(budget: number, b: Bridge): FitSteps<number> {
	return {
		render: async c => (size(c) <= budget ? { fits: true, prompt: size(c) } : { fits: false }),
		measure: async c => size(c),
		showsLedger: () => false,
		takePrepared: async (_c, wait) => {
			b.calls.push(wait ? 'take-waiting' : 'take-ready');
			// Taken once, as from the background's chain.
			const taken = wait ? (b.waited ?? b.ready) : b.ready;
			if (taken === b.ready) b.ready = undefined;
			else b.waited = undefined;
			return taken;
		},
		prepareLater: () => {
			b.calls.push('prepare-later');
			return b.canPrepare;
		},
		underWay: () => b.underWay,
		summarize: async () => {
			b.calls.push('summarize');
			return { summary: 'S'.repeat(20), mode: 'full', attempts: [{ mode: 'full', outcome: 'ok' }] };
		},
		countTokens: count,
		isCancelled: () => false,
		cancellationError: () => new Error('cancelled'),
	};
}

const options = (budget: number): FitOptions => ({ mode: 'half-context', messageBudget: budget, maskOldToolResults: false, bridge: true });
const kinds = (events: readonly FitEvent[]) => events.map(e => e.kind);
const provisional = (c: Conversation) => flattenRounds(c).filter(at => at.round.summaryProvisional);

async function summaryOf(c: Conversation, p: SummarizationPlan): Promise<PreparedSummary> {
	return makeSummary(c, p, async (_c, part) => ({
		summary: `summary of ${part.summarizeRoundIds.length} rounds`,
		attempts: [{ mode: 'full', outcome: 'ok' }],
	}));
}

describe('the bridge: no wait for a summary at an overflow', () => {
	it('sets the older rounds aside behind one line per call while the summary is under way; nothing waits, nothing is summarized now', async () => {
		const start = conversationOf(12, 400);
		const budget = size(start) - 600;
		const b: Bridge = { calls: [], canPrepare: true, underWay: plan(start) };
		const result = await fitPrompt(start, newFitMemory(), steps(budget, b), options(budget));
		assert.equal(result.kind, 'fits');
		assert.deepEqual(kinds(result.events), ['bridged']);
		assert.ok(!b.calls.includes('summarize') && !b.calls.includes('take-waiting'), b.calls.join(', '));
		const aside = provisional(result.conversation);
		assert.equal(aside.length, 1);
		const text = aside[0].round.summary!;
		assert.match(text, /set aside while their summary is written/);
		assert.match(text, /read src\/a0\.ts/);
		assert.match(text, /longhaul_recall/);
		// Only what must go goes: fewer rounds than the planner's older half, and the rest stay whole.
		const setAsideRounds = (result.events[0] as Extract<FitEvent, { kind: 'bridged' }>).setAsideRounds;
		assert.ok(setAsideRounds >= 1 && setAsideRounds < plan(start)!.summarizeRoundIds.length, `${setAsideRounds}`);
		const flat = flattenRounds(result.conversation);
		const after = flat.slice(flat.findIndex(at => at.round.summaryProvisional) + 1);
		assert.ok(after.every(at => at.round.toolCalls.every(c => c.result === 'x'.repeat(400))));
	});

	it('one slot (deferSummary): rounds are set aside with no summary started until the whole older part is set aside', async () => {
		const start = conversationOf(12, 400);
		const oneSlot = { ...options(0), deferSummary: true };
		// A small overflow: a few of the older rounds go, and no summary is started for them yet.
		const small = size(start) - 600;
		const b: Bridge = { calls: [], canPrepare: true };
		const result = await fitPrompt(start, newFitMemory(), steps(small, b), { ...oneSlot, messageBudget: small });
		assert.equal(result.kind, 'fits');
		assert.deepEqual(kinds(result.events), ['bridged']);
		assert.deepEqual(b.calls, ['take-ready'], 'no summary started, none waited for');
		const aside = (result.events[0] as Extract<FitEvent, { kind: 'bridged' }>).setAsideRounds;
		assert.ok(aside >= 1 && aside < plan(start)!.summarizeRoundIds.length, `${aside}`);
		// An overflow that needs the whole older part: now its summary is started (and the request goes on).
		const large = Math.floor(size(start) / 5);
		const c: Bridge = { calls: [], canPrepare: true };
		const later = await fitPrompt(start, newFitMemory(), steps(large, c), { ...oneSlot, messageBudget: large });
		assert.equal(later.kind, 'fits');
		assert.ok(c.calls.includes('prepare-later') && !c.calls.includes('summarize') && !c.calls.includes('take-waiting'), c.calls.join(', '));
		assert.ok(!kinds(later.events).includes('summarized'));
	});

	it('sets aside further back while the prompt still overflows, before eliding anything', async () => {
		const start = conversationOf(12, 400);
		const budget = Math.floor(size(start) / 2);
		const b: Bridge = { calls: [], canPrepare: true, underWay: plan(start) };
		const result = await fitPrompt(start, newFitMemory(), steps(budget, b), options(budget));
		assert.equal(result.kind, 'fits');
		assert.ok(kinds(result.events).every(k => k === 'bridged'));
		assert.equal(provisional(result.conversation).length, 1);
		assert.ok(flattenRounds(result.conversation).every(at => at.round.toolCalls.every(c => !c.result!.startsWith(ELIDED_PREFIX))));
	});

	it('sets aside past the older half, not the newest two rounds, rather than wait when the older half is not enough', async () => {
		const start = conversationOf(12, 400);
		const budget = Math.floor(size(start) / 4);
		const b: Bridge = { calls: [], canPrepare: true, underWay: plan(start) };
		const result = await fitPrompt(start, newFitMemory(), steps(budget, b), options(budget));
		assert.equal(result.kind, 'fits');
		assert.ok(!b.calls.includes('take-waiting'), b.calls.join(', '));
		const setAside = flattenRounds(result.conversation).findIndex(at => at.round.summaryProvisional) + 1;
		assert.ok(setAside > plan(start)!.summarizeRoundIds.length && setAside <= 10, `${setAside} rounds set aside`);
	});

	it('keeps a ready summary back while the rounds it replaces can still be shown whole', async () => {
		const start = conversationOf(12, 400);
		const job = plan(start)!;
		const b: Bridge = { calls: [], canPrepare: true, underWay: job, ready: await summaryOf(start, job) };
		const slight = size(start) - 300;
		const kept = await fitPrompt(start, newFitMemory(), steps(slight, b), options(slight));
		assert.deepEqual(kinds(kept.events), ['bridged']);
		assert.ok(!b.calls.includes('take-ready'), b.calls.join(', '));
		const tight = Math.floor(size(start) / 2);
		const taken = await fitPrompt(start, newFitMemory(), steps(tight, b), options(tight));
		assert.ok(kinds(taken.events).includes('summarized'), kinds(taken.events).join(', '));
	});

	it('keeps the set-aside while the prompt fits; at the next overflow the ready summary takes the provisional block’s place', async () => {
		const start = conversationOf(12, 400);
		const budget = size(start) - 600;
		const job = plan(start)!;
		const b: Bridge = { calls: [], canPrepare: true, underWay: job };
		const first = await fitPrompt(start, newFitMemory(), steps(budget, b), options(budget));
		const small: Conversation = { turns: [], activeRounds: [...first.conversation.activeRounds, round('a12', 10)] };
		const still = await fitPrompt(small, newFitMemory(), steps(budget, { calls: [], canPrepare: true, underWay: job }), options(budget));
		assert.deepEqual(kinds(still.events), [], 'no overflow: the prompt and its beginning stay as they were');
		assert.equal(provisional(still.conversation).length, 1);
		const grown: Conversation = { turns: [], activeRounds: [...first.conversation.activeRounds, round('a12', 3000)] };
		const ready: Bridge = { calls: [], canPrepare: true, ready: await summaryOf(start, job) };
		const second = await fitPrompt(grown, newFitMemory(), steps(budget, ready), options(budget));
		assert.equal(second.kind, 'fits');
		assert.equal(kinds(second.events)[0], 'summarized');
		assert.ok(!provisional(second.conversation).some(at => job.summarizeRoundIds.includes(at.round.id)));
		const anchor = flattenRounds(second.conversation).find(at => at.round.id === job.anchorRoundId)!;
		assert.match(anchor.round.summary!, /^summary of \d+ rounds$/);
	});

	it('elides the oldest results when nothing can be set aside, and gives them back once a summary made room', async () => {
		const start = conversationOf(6, 400);
		const budget = size(start) - 300;
		const b: Bridge = { calls: [], canPrepare: true };
		const result = await fitPrompt(start, newFitMemory(), steps(budget, b), options(budget));
		assert.deepEqual(kinds(result.events), ['bridged']);
		const first = result.conversation.activeRounds[0].toolCalls[0];
		assert.ok(first.result!.startsWith(ELIDED_PREFIX));
		assert.equal(first.recorded, 'x'.repeat(400));
		const job = planOrNothing(start, 'half-context', { countTokens: count, minRecentRounds: 1 })!;
		const grown: Conversation = { turns: [], activeRounds: [...result.conversation.activeRounds, round('a6', 400)] };
		const later = await fitPrompt(grown, newFitMemory(), steps(budget, { calls: [], canPrepare: true, ready: await summaryOf(start, job) }), options(budget));
		assert.equal(kinds(later.events)[0], 'summarized');
		const after = flattenRounds(later.conversation).slice(start.activeRounds.findIndex(r => r.id === job.anchorRoundId) + 1);
		assert.ok(
			after.some(at => at.round.toolCalls[0].result === 'x'.repeat(400)),
			'elided results after the summary are whole again',
		);
	});

	it('waits for the summary under way only when neither setting aside, elision nor cutting the newest round can make room', async () => {
		const start = conversationOf(3, 400);
		const budget = 500;
		const b: Bridge = { calls: [], canPrepare: true };
		await fitPrompt(start, newFitMemory(), steps(budget, b), options(budget));
		assert.ok(b.calls.includes('take-waiting'), b.calls.join(', '));
		assert.ok(b.calls.indexOf('take-waiting') > b.calls.indexOf('prepare-later'));
	});

	it('does not wait when all it could set aside is set aside and the newest round is what is too large: that round is cut', async () => {
		const start: Conversation = { turns: [], activeRounds: [...conversationOf(11, 400).activeRounds, round('a11', 3000)] };
		const budget = 2400;
		const b: Bridge = { calls: [], canPrepare: true, underWay: plan(start), waited: await summaryOf(start, plan(start)!) };
		const result = await fitPrompt(start, newFitMemory(), steps(budget, b), options(budget));
		assert.equal(result.kind, 'fits');
		assert.ok(!b.calls.includes('take-waiting') && !b.calls.includes('summarize'), b.calls.join(', '));
		assert.ok(kinds(result.events).includes('cut-newest'), kinds(result.events).join(', '));
		assert.ok(!kinds(result.events).includes('summarized'), 'the summary is attached when it lands, not waited for');
		// Everything older than the newest two rounds stands behind the provisional block, none dropped.
		const flat = flattenRounds(result.conversation);
		assert.equal(
			flat.findIndex(at => at.round.summaryProvisional),
			9,
		);
	});

	it('without the option, the overflow waits for the summary under way as before', async () => {
		const start = conversationOf(12, 400);
		const budget = size(start) - 600;
		const b: Bridge = { calls: [], canPrepare: true, underWay: plan(start), waited: await summaryOf(start, plan(start)!) };
		const result = await fitPrompt(start, newFitMemory(), steps(budget, b), { ...options(budget), bridge: false });
		assert.deepEqual(b.calls.slice(0, 1), ['take-waiting']);
		assert.ok(kinds(result.events).includes('summarized') && !kinds(result.events).includes('bridged'));
	});
});

describe('provisional blocks are never stored', () => {
	it('summaryChanges and the turn record leave them out; stripProvisional gives the rounds back unsummarized', () => {
		const start = conversationOf(8, 100);
		const job = plan(start)!;
		const aside = setAside(start, job);
		assert.equal(provisional(aside).length, 1);
		assert.deepEqual(summaryChanges(start, aside), []);
		assert.deepEqual(encodeTurnRecord({ rounds: aside.activeRounds }).summaryBlocks, []);
		const stripped = stripProvisional(aside);
		assert.ok(flattenRounds(stripped).every(at => at.round.summary === undefined && !at.round.summaryProvisional));
		assert.equal(stripProvisional(start), start);
	});

	it('names each set-aside round by the number recall reads it back by', async () => {
		const past: Conversation = { turns: [{ user: 'first', rounds: [round('p0', 100), round('p1', 100)] }], activeRounds: [] };
		const start: Conversation = { ...past, activeRounds: conversationOf(8, 100).activeRounds };
		const job = plan(start)!;
		const aside = setAside(start, job);
		const text = provisional(aside)[0].round.summary!;
		const named = [...text.matchAll(/^- round #(\d+): read (\S+)$/gm)];
		assert.ok(named.length >= 2, text);
		for (const [, n, path] of named) {
			const answer = await recall(aside, { round: Number(n) }, { maxTokens: 2000, countTokens: count, now: () => 0, timeLimitMs: 1000 });
			assert.ok(answer.includes(JSON.stringify({ path })), `round #${n} is the one that read ${path}: ${answer.slice(0, 200)}`);
		}
	});

	it('a provisional block continues the turn’s block it absorbs, so an earlier summary is not hidden', () => {
		const start = conversationOf(10, 100);
		const first = plan(start)!;
		const summarized: Conversation = {
			turns: [],
			activeRounds: start.activeRounds.map(r => (r.id === first.anchorRoundId ? { ...r, summary: 'EARLIER SUMMARY' } : r)),
		};
		const grown: Conversation = { turns: [], activeRounds: [...summarized.activeRounds, ...Array.from({ length: 10 }, (_, i) => round(`b${i}`, 100))] };
		const next = plan(grown)!;
		assert.equal(next.previousSummary?.text, 'EARLIER SUMMARY');
		const text = provisional(setAside(grown, next))[0].round.summary!;
		assert.ok(text.startsWith('EARLIER SUMMARY\n\n'), text.slice(0, 60));
	});
});

describe('what the summarizer reads', () => {
	it('reads elided results as their tools answered, and masked ones as masked', () => {
		const start = conversationOf(4, 400);
		const elided = elideOldestToolResults(start, 300, count).conversation;
		assert.ok(elided.activeRounds[0].toolCalls[0].result!.startsWith(ELIDED_PREFIX));
		const masked: Conversation = {
			turns: [],
			activeRounds: elided.activeRounds.map((r, i) =>
				i === 1
					? {
							...r,
							toolCalls: r.toolCalls.map(c => ({
								...c,
								result: `${MASKED_PREFIX}read_file src/a1.ts elided (400 tokens); call the tool again if you need it]`,
								recorded: c.result,
							})),
						}
					: r,
			),
		};
		const entries = summarizerEntries(masked, { summarizeRoundIds: ['a0', 'a1'] }, 'the request');
		const results = entries.flatMap(e => (e.kind === 'round' ? e.round.toolCalls.map(c => c.result) : []));
		assert.equal(results[0], 'x'.repeat(400));
		assert.ok(results[1]!.startsWith(MASKED_PREFIX));
		assert.equal(restoreElided(elided).activeRounds[0].toolCalls[0].result, 'x'.repeat(400));
	});
});

describe('background summaries taken without waiting', () => {
	it('leave a job under way running and give nothing; take it once it is done', async () => {
		let now = 0;
		const conversation = conversationOf(8, 400);
		const core = new BackgroundSummaries({
			plan,
			summarize: (c, p) => ({ done: summaryOf(c, p), durationMs: () => 30_000, cancel: () => {} }),
			now: () => now,
		});
		assert.ok(core.start(conversation));
		await new Promise(resolve => setImmediate(resolve));
		now = 10_000;
		const early = await core.takeAtOverflow(conversation, false);
		assert.deepEqual([early.prepared, early.waitedMs, core.busy], [undefined, 0, true]);
		assert.ok(core.headPlan());
		now = 40_000;
		const later = await core.takeAtOverflow(conversation, false);
		assert.ok(later.prepared?.blocks);
		assert.equal(core.busy, false);
	});
});

describe('the bridge in the Longhaul log', () => {
	it('says rounds were set aside when they were, and results elided when they were', () => {
		const aside = fitLogLine({ kind: 'bridged', setAsideRounds: 7, calls: 0, freedTokens: 0, neededTokens: 100 }) ?? '';
		assert.match(aside, /set aside the 7 oldest rounds/);
		assert.doesNotMatch(aside, /elided/);
		assert.match(
			fitLogLine({ kind: 'bridged', setAsideRounds: 0, calls: 3, freedTokens: 900, neededTokens: 100 }) ?? '',
			/elided the 3 oldest tool results \(900 tokens\)/,
		);
	});
});
