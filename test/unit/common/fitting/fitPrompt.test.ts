// The overflow pipeline driven with fakes: a prompt whose size is the characters it shows, a
// summarizer that answers what the test says, and a cancellation switch.
import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { flattenRounds, newestSummaryIndex } from '../../../../src/common/conversation/flatten';
import { fitPrompt, NARROWED_SUMMARIES, SUMMARY_ATTEMPTS, type FitEvent, type FitSteps } from '../../../../src/common/fitting/fitPrompt';
import { newFitMemory, type FitMemory } from '../../../../src/common/fitting/fitMemory';
import { makeSummaryAhead, type PreparedSummary } from '../../../../src/common/fitting/preparedSummary';
import { planOrNothing } from '../../../../src/common/planning/planners';
import type { SummaryFlowResult } from '../../../../src/common/summaries/summarizationFlow';
import type { BlockRequest } from '../../../../src/common/summaries/summarizeBlocks';
import { summaryBlocks } from '../../../../src/common/conversation/summaryBlocks';
import { applySummaryBlocks } from '../../../../src/common/summaries/applySummary';
import type { CondensedAhead } from '../../../../src/common/summaries/condenseBlocks';

const LEDGER = 200;

function round(id: string, resultChars: number): Round {
	return { id, response: `r ${id}`, toolCalls: [{ id: `c-${id}`, name: 'read', arguments: `{"p":"${id}"}`, result: 'x'.repeat(resultChars) }] };
}

function conversationOf(rounds: number, resultChars: number): Conversation {
	return { turns: [], activeRounds: Array.from({ length: rounds }, (_, i) => round(`a${i}`, resultChars)) };
}

/** The fake prompt's size: the newest summary and every round after it, in characters, plus the ledger while shown. */
function size(conversation: Conversation, session: FitMemory): number {
	const flat = flattenRounds(conversation);
	const from = newestSummaryIndex(flat);
	let total = from >= 0 ? (flat[from].round.summary ?? '').length : 0;
	for (const { round: r } of flat.slice(from + 1)) {
		total += r.response.length + r.toolCalls.reduce((s, c) => s + c.arguments.length + (c.result ?? '').length, 0);
	}
	return total + (session.ledgerSuspended || from < 0 ? 0 : LEDGER);
}

interface Harness {
	readonly calls: string[];
	cancelled: boolean;
	/** What the summarizer answers for each request (one turn's rounds); default a 20-character summary. */
	answer: (request: BlockRequest) => SummaryFlowResult;
	/** What the model answers when asked to shorten an older block; default: undefined (it fails). */
	condense: (text: string, target: number) => string | undefined;
	prepared?: PreparedSummary;
	/** Cancel the request while this step is under way. */
	cancelDuring?: string;
}

function harness(budget: number, session: FitMemory): { h: Harness; steps: FitSteps<number> } {
	const h: Harness = {
		calls: [],
		cancelled: false,
		answer: () => ({ summary: 'S'.repeat(20), mode: 'full', attempts: [{ mode: 'full', outcome: 'ok' }] }),
		condense: () => undefined,
	};
	const step = async <T>(name: string, value: () => T): Promise<T> => {
		h.calls.push(name);
		await Promise.resolve();
		if (h.cancelDuring === name) h.cancelled = true;
		return value();
	};
	const steps: FitSteps<number> = {
		render: c => step('render', () => (size(c, session) <= budget ? { fits: true as const, prompt: size(c, session) } : { fits: false as const })),
		measure: c => step('measure', () => size(c, session)),
		showsLedger: c => newestSummaryIndex(flattenRounds(c)) >= 0,
		takePrepared: () => step('takePrepared', () => h.prepared),
		summarize: (_c, request) => step('summarize', () => h.answer(request)),
		condense: (text, target) => step('condense', () => h.condense(text, target)),
		countTokens: text => text.length,
		isCancelled: () => h.cancelled,
		cancellationError: () => new Error('cancelled'),
	};
	return { h, steps };
}

const kinds = (events: readonly FitEvent[]) => events.map(e => e.kind);

describe('fitPrompt: the overflow pipeline', () => {
	it('returns the prompt untouched when it fits, without measuring', async () => {
		const session = newFitMemory();
		const { h, steps } = harness(10_000, session);
		const start = conversationOf(4, 100);
		const result = await fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: 10_000, maskOldToolResults: true });
		assert.equal(result.kind, 'fits');
		assert.equal(result.conversation, start);
		assert.deepEqual(h.calls, ['render']);
		assert.deepEqual(result.events, []);
	});

	it('overflow → mask → fits: masking first, no summary asked for', async () => {
		const session = newFitMemory();
		const start = conversationOf(10, 300);
		const budget = size(start, session) - 500;
		const { h, steps } = harness(budget, session);
		const result = await fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: budget, maskOldToolResults: true });
		assert.equal(result.kind, 'fits');
		assert.deepEqual(kinds(result.events), ['masked']);
		assert.ok(!h.calls.includes('summarize'));
		assert.deepEqual(
			h.calls.filter(c => c === 'measure'),
			['measure'],
			'measured once for the one overflow',
		);
		const masked = result.events[0] as Extract<FitEvent, { kind: 'masked' }>;
		assert.ok(masked.freedTokens >= 500, `freed ${masked.freedTokens}`);
		assert.ok(result.kind === 'fits' && result.prompt <= budget);
	});

	it('uses a prepared summary first, and it does not count as an attempt', async () => {
		const session = newFitMemory();
		const start = conversationOf(8, 300);
		const budget = size(start, session) - 200;
		const { h, steps } = harness(budget, session);
		const plan = planOrNothing(start, 'half-context')!;
		h.prepared = { plan, attempts: [], blocks: ['PREPARED'], narrowed: false, plannedRoundCount: plan.summarizeRoundIds.length, requests: 1, durationMs: 1 };
		const result = await fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: budget, maskOldToolResults: false });
		assert.equal(result.kind, 'fits');
		assert.deepEqual(kinds(result.events), ['summarized']);
		const event = result.events[0] as Extract<FitEvent, { kind: 'summarized' }>;
		assert.equal(event.source, 'background');
		assert.ok(!h.calls.includes('summarize'));
		assert.equal(result.conversation.activeRounds.find(r => r.id === plan.anchorRoundId)?.summary, 'PREPARED');
		assert.equal(start.activeRounds.find(r => r.id === plan.anchorRoundId)?.summary, undefined, 'the input is not changed');
		assert.equal(session.repeats.watchedLeft > 0, true, 'the loop breaker watches calls after the summary');
	});

	it('two model summaries that free nothing → loop breaker for the request → truncation (the newest result cut)', async () => {
		const session = newFitMemory();
		const start = conversationOf(16, 300);
		// Summaries that are as large as what they replace free nothing.
		const budget = 1_500;
		const { h, steps } = harness(budget, session);
		h.answer = plan => ({
			summary: (plan.previousSummary?.text ?? '') + 'S'.repeat(plan.summarizeRoundIds.length * 300),
			mode: 'full',
			attempts: [{ mode: 'full', outcome: 'ok' }],
		});
		// The token-aware rule keeps at most half the budget verbatim: what does not fit is the summaries.
		const result = await fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: budget, maskOldToolResults: false });
		const seen = kinds(result.events);
		// Past requests, then the ledger, are tightened first (this fake has neither to shrink), then the breaker.
		assert.deepEqual(seen.slice(0, SUMMARY_ATTEMPTS + 4), ['summarized', 'summarized', 'tightened', 'tightened', 'loop-breaker', 'cut-newest']);
		assert.equal(h.calls.filter(c => c === 'summarize').length, SUMMARY_ATTEMPTS);
		assert.match(session.modelSummariesStopped ?? '', /did not make the prompt fit/);
		assert.equal(session.tight, 'requests', 'with model summaries stopped, the ledger is back to its full size');
		assert.equal(result.events.find(e => e.kind === 'loop-breaker')?.scope, 'request', 'summaries that free nothing stop for the request');
		assert.ok(!seen.slice(SUMMARY_ATTEMPTS + 3).includes('summarized'), 'no model summary after the loop breaker');
	});

	it('two summaries that shrank what they replaced but leave newest rounds too large: stopped for this render only', async () => {
		const session = newFitMemory();
		// Four ordinary rounds, then two whose results alone are larger than the budget.
		const start: Conversation = {
			turns: [],
			activeRounds: [...conversationOf(4, 300).activeRounds, round('big1', 2_500), round('big2', 2_500)],
		};
		const budget = 2_000;
		const { h, steps } = harness(budget, session);
		const options = { mode: 'half-context' as const, messageBudget: budget, maskOldToolResults: false };
		const first = await fitPrompt(start, session, steps, options);
		assert.equal(first.kind, 'fits');
		const breaker = first.events.find(e => e.kind === 'loop-breaker');
		assert.equal(breaker?.scope, 'render');
		assert.equal(h.calls.filter(c => c === 'summarize').length, SUMMARY_ATTEMPTS);
		assert.equal(session.modelSummariesStopped, undefined, 'model summaries are not stopped for the request');
		assert.ok(kinds(first.events).includes('cut-newest'), 'truncation shortens the newest result this time');

		// The agent goes on: new ordinary rounds overflow again, and the model summarizes them.
		const later: Conversation = {
			...first.conversation,
			activeRounds: [...first.conversation.activeRounds, ...['n1', 'n2', 'n3', 'n4', 'n5', 'n6'].map(id => round(id, 300))],
		};
		const second = await fitPrompt(later, session, steps, options);
		assert.equal(second.kind, 'fits');
		assert.equal(kinds(second.events)[0], 'summarized', 'the next overflow is summarized by the model again');
	});

	it('a failed summary leaves the conversation as it was and truncation takes over', async () => {
		const session = newFitMemory();
		const start = conversationOf(8, 300);
		const budget = size(start, session) - 400;
		const { h, steps } = harness(budget, session);
		h.answer = () => ({
			attempts: [
				{ mode: 'full', outcome: 'model-error' },
				{ mode: 'simple', outcome: 'empty' },
			],
		});
		const result = await fitPrompt(start, session, steps, { mode: 'legacy', messageBudget: budget, maskOldToolResults: false });
		assert.equal(result.kind, 'fits');
		assert.deepEqual(kinds(result.events), ['summary-failed', 'tightened', 'elided']);
		assert.ok(
			flattenRounds(result.conversation).every(f => f.round.summary === undefined),
			'no summary attached',
		);
		assert.equal(session.modelSummariesStopped, undefined, 'a failure is not a loop');
	});

	it('nothing left → drop older rounds → ledger off → refusal, with the earlier summary kept', async () => {
		const session = newFitMemory();
		// Rounds without tool results (nothing to elide) and long responses.
		const rounds: Round[] = Array.from({ length: 6 }, (_, i) => ({ id: `a${i}`, response: 'y'.repeat(400), toolCalls: [] }));
		rounds[0] = { ...rounds[0], summary: 'EARLIER' };
		const start: Conversation = { turns: [], activeRounds: rounds };
		const { h, steps } = harness(300, session);
		session.modelSummariesStopped = 'stopped earlier in the request';
		const result = await fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: 300, maskOldToolResults: false });
		assert.equal(result.kind, 'refused');
		const seen = kinds(result.events);
		assert.equal(seen.at(-1), 'ledger-off');
		assert.ok(seen.includes('dropped'));
		assert.ok(seen.indexOf('dropped') < seen.indexOf('ledger-off'));
		assert.ok(!h.calls.includes('summarize'), 'the loop breaker had stopped model summaries');
		const drop = result.events.find(e => e.kind === 'dropped') as Extract<FitEvent, { kind: 'dropped' }>;
		assert.ok(drop.texts[0].startsWith('EARLIER'), 'the earlier summary is carried word for word');
		assert.ok(result.kind === 'refused' && result.neededTokens > 300);
		assert.equal(session.ledgerSuspended, true);
	});

	it('summaries that cannot make room next to long past requests and a grown ledger → those are tightened, no truncation, summaries go on', async () => {
		const session = newFitMemory();
		const budget = 2_000;
		const { h, steps } = harness(budget, session);
		// What is not rounds: 1,500 tokens; 1,480 with past requests shortened (not enough here); 200 with the ledger tight too.
		const fixed = () => (session.tight === 'ledger' ? 200 : session.tight === 'requests' ? 1_480 : 1_500);
		const withFixed: FitSteps<number> = {
			...steps,
			render: async c => {
				const total = size(c, session) + fixed();
				h.calls.push('render');
				return total <= budget ? { fits: true, prompt: total } : { fits: false };
			},
			measure: async c => size(c, session) + fixed(),
		};
		const options = { mode: 'half-context' as const, messageBudget: budget, maskOldToolResults: false };
		const first = await fitPrompt(conversationOf(12, 300), session, withFixed, options);
		assert.equal(first.kind, 'fits');
		assert.deepEqual(kinds(first.events), ['summarized', 'summarized', 'tightened', 'tightened']);
		assert.deepEqual(
			first.events.flatMap(e => (e.kind === 'tightened' ? [e.part] : [])),
			['requests', 'ledger'],
			'past requests first, then the ledger',
		);
		assert.equal(session.modelSummariesStopped, undefined);

		const later: Conversation = {
			...first.conversation,
			activeRounds: [...first.conversation.activeRounds, ...['n1', 'n2', 'n3', 'n4', 'n5', 'n6'].map(id => round(id, 300))],
		};
		const second = await fitPrompt(later, session, withFixed, options);
		assert.equal(second.kind, 'fits');
		// The next overflow is a summary again; the ledger, rendered anew with it, is tightened again,
		// past requests stay shortened for the rest of the request.
		assert.deepEqual(kinds(second.events), ['summarized', 'summarized', 'tightened']);
		const last = second.events.at(-1);
		assert.equal(last?.kind === 'tightened' ? last.part : undefined, 'ledger');
		assert.equal(session.modelSummariesStopped, undefined);
	});

	it('a ledger left out comes back with the next summary of the request', async () => {
		const session = newFitMemory();
		// One summarized round, then a newest round that fits only without the ledger.
		const budget = 1_000;
		const start: Conversation = {
			turns: [],
			activeRounds: [
				{ ...round('a0', 300), summary: 'EARLIER' },
				{ id: 'a1', response: 'y'.repeat(budget - 100), toolCalls: [] },
			],
		};
		const { steps } = harness(budget, session);
		const options = { mode: 'half-context' as const, messageBudget: budget, maskOldToolResults: false };
		const first = await fitPrompt(start, session, steps, options);
		assert.equal(first.kind, 'fits');
		assert.equal(kinds(first.events).at(-1), 'ledger-off');
		assert.equal(session.ledgerSuspended, true);

		// The agent goes on with ordinary rounds; the next overflow is summarized and the ledger returns.
		const later: Conversation = {
			...first.conversation,
			activeRounds: [...first.conversation.activeRounds, ...['n1', 'n2', 'n3', 'n4'].map(id => round(id, 200))],
		};
		const second = await fitPrompt(later, session, steps, options);
		assert.equal(second.kind, 'fits');
		assert.ok(kinds(second.events).includes('summarized'));
		assert.equal(session.ledgerSuspended, false, 'the ledger is shown again after the summary');
	});

	it('only the newest round is left and too large: its result is cut further before the ledger goes or the request is refused', async () => {
		const session = newFitMemory();
		const start: Conversation = { turns: [], activeRounds: [{ ...round('a0', 100), summary: 'EARLIER' }, round('a1', 3_000)] };
		const { steps } = harness(1_500, session);
		session.modelSummariesStopped = 'stopped earlier in the request';
		const result = await fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: 1_500, maskOldToolResults: false });
		assert.equal(result.kind, 'fits');
		assert.deepEqual(kinds(result.events), ['tightened', 'cut-newest'], 'past requests tightened, the ledger kept: the newest round is what is too large');
		assert.equal(session.ledgerSuspended, false, 'the ledger stays');
		const kept = flattenRounds(result.conversation).at(-1)!.round.toolCalls[0].result!;
		assert.ok(kept.length < 3_000 && kept.length >= 256, `cut, not removed: ${kept.length} characters`);
		assert.ok(kept.startsWith('xxx') && kept.endsWith('xxx'), 'head and tail kept');
	});

	it('narrowed summaries do not count as attempts, up to the bound', async () => {
		const session = newFitMemory();
		const start = conversationOf(40, 300);
		const budget = 2_000;
		const { h, steps } = harness(budget, session);
		// The summarizer prompt only takes two rounds at a time: every summary is narrowed.
		h.answer = plan =>
			plan.summarizeRoundIds.length > 2
				? {
						attempts: [
							{ mode: 'full', outcome: 'prompt-too-large' },
							{ mode: 'simple', outcome: 'prompt-too-large' },
						],
					}
				: { summary: 'S'.repeat(20), mode: 'full', attempts: [{ mode: 'full', outcome: 'ok' }] };
		const result = await fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: budget, maskOldToolResults: false });
		const summaries = result.events.filter((e): e is Extract<FitEvent, { kind: 'summarized' }> => e.kind === 'summarized');
		assert.ok(summaries.every(s => s.prepared.narrowed));
		assert.equal(summaries.length, NARROWED_SUMMARIES + SUMMARY_ATTEMPTS, 'four narrowed for free, then two attempts');
		assert.ok(kinds(result.events).includes('loop-breaker'));
		assert.ok(h.calls.filter(c => c === 'summarize').length < 200, 'bounded');
	});

	it('a compaction that spans turns asks for one block per turn, oldest first, and attaches them all', async () => {
		const session = newFitMemory();
		const turn = (t: number, n: number) => ({ user: `request ${t}`, rounds: Array.from({ length: n }, (_, i) => round(`t${t}r${i}`, 300)) });
		const start: Conversation = { turns: [turn(0, 2), turn(1, 3)], activeRounds: conversationOf(5, 300).activeRounds };
		const budget = size(start, session) - 300;
		const { h, steps } = harness(budget, session);
		const asked: string[][] = [];
		h.answer = request => {
			asked.push([...request.summarizeRoundIds]);
			return { summary: `S(${request.summarizeRoundIds.join(',')})`, mode: 'full', attempts: [{ mode: 'full', outcome: 'ok' }] };
		};
		const result = await fitPrompt(start, session, steps, {
			mode: 'half-context',
			messageBudget: budget,
			maskOldToolResults: false,
			halfContextSplit: 'rounds',
		});
		assert.equal(result.kind, 'fits');
		assert.deepEqual(asked, [
			['t0r0', 't0r1'],
			['t1r0', 't1r1', 't1r2'],
		]);
		const event = result.events[0] as Extract<FitEvent, { kind: 'summarized' }>;
		assert.deepEqual(event.prepared.blocks, ['S(t0r0,t0r1)', 'S(t1r0,t1r1,t1r2)']);
		assert.equal(event.prepared.requests, 2);
		assert.deepEqual(
			summaryBlocks(result.conversation).map(b => [b.turnIndex, b.text]),
			[
				[0, 'S(t0r0,t0r1)'],
				[1, 'S(t1r0,t1r1,t1r2)'],
			],
		);
	});

	it('a later turn that cannot be summarized: the turns done are kept, the rest stays verbatim (narrowed)', async () => {
		const session = newFitMemory();
		const turn = (t: number, n: number) => ({ user: `request ${t}`, rounds: Array.from({ length: n }, (_, i) => round(`t${t}r${i}`, 300)) });
		const start: Conversation = { turns: [turn(0, 2), turn(1, 3)], activeRounds: conversationOf(5, 300).activeRounds };
		const budget = size(start, session) - 300;
		const { h, steps } = harness(budget, session);
		h.answer = request =>
			request.summarizeRoundIds[0].startsWith('t1')
				? { attempts: [{ mode: 'full', outcome: 'model-error' }] }
				: { summary: 'S0', mode: 'full', attempts: [{ mode: 'full', outcome: 'ok' }] };
		const result = await fitPrompt(start, session, steps, {
			mode: 'half-context',
			messageBudget: budget,
			maskOldToolResults: false,
			halfContextSplit: 'rounds',
		});
		const first = result.events[0] as Extract<FitEvent, { kind: 'summarized' }>;
		assert.equal(first.kind, 'summarized');
		assert.deepEqual(first.prepared.plan.summarizeRoundIds, ['t0r0', 't0r1']);
		assert.equal(first.prepared.narrowed, true);
		assert.deepEqual(first.prepared.blocks, ['S0']);
		assert.equal(summaryBlocks(result.conversation)[0].text, 'S0');
	});

	describe('bounded growth: when all blocks pass the summary budget, the oldest are condensed', () => {
		/** Turns 0-2 already summarized with 200-character blocks, and a request in progress that overflows. */
		const summarizedTurns = (): Conversation => {
			const turn = (t: number) => ({ user: `request ${t}`, rounds: [round(`t${t}r0`, 10), round(`t${t}r1`, 10)] });
			const base: Conversation = { turns: [turn(0), turn(1), turn(2)], activeRounds: conversationOf(8, 300).activeRounds };
			const plan = planOrNothing(base, 'legacy')!;
			return applySummaryBlocks(base, { summarizeRoundIds: plan.summarizeRoundIds.filter(id => id.startsWith('t')) }, [
				'A'.repeat(2000),
				'B'.repeat(2000),
				'C'.repeat(2000),
			]);
		};

		it('the model shortens the oldest first; the newest block is never touched; the condensed block is marked', async () => {
			const session = newFitMemory();
			const start = summarizedTurns();
			const budget = size(start, session) - 300;
			const { h, steps } = harness(budget, session);
			const targets: number[] = [];
			h.condense = (text, target) => {
				targets.push(target);
				return text.slice(0, target);
			};
			// All blocks may hold 4,000 characters: 3 × 2,000 + the new one (20). The oldest goes as low as the
			// excess needs (150, plus the note), which is not enough alone; the next to a quarter (500).
			const result = await fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: budget, maskOldToolResults: false, summaryBudget: 4000 });
			const condensed = result.events.find((e): e is Extract<FitEvent, { kind: 'condensed' }> => e.kind === 'condensed');
			assert.ok(condensed, `events: ${kinds(result.events)}`);
			assert.deepEqual(
				condensed.blocks.map(b => [b.turnIndex, b.by]),
				[
					[0, 'model'],
					[1, 'model'],
				],
			);
			assert.deepEqual(targets, [150, 500]);
			assert.equal(condensed.ahead, 0, 'nothing was prepared ahead');
			const blocks = summaryBlocks(result.conversation);
			assert.deepEqual(
				blocks.map(b => [b.turnIndex, b.condensed, b.text.length]),
				[
					[0, true, 150],
					[1, true, 500],
					[2, false, 2000],
					[3, false, 20],
				],
			);
			assert.deepEqual(
				summaryBlocks(start).map(b => b.condensed),
				[false, false, false],
				'the input is not changed',
			);
		});

		it('a summary prepared in the background brings its condensations: the overflow attaches it and condenses without a model call', async () => {
			const session = newFitMemory();
			const start = summarizedTurns();
			const budget = size(start, session) - 300;
			const { h, steps } = harness(budget, session);
			const plan = planOrNothing(start, 'half-context')!;
			const ahead: number[] = [];
			const memory = new Map<string, CondensedAhead>();
			const prepare = () =>
				makeSummaryAhead(start, plan, async () => ({ summary: 'P'.repeat(20), mode: 'full', attempts: [{ mode: 'full', outcome: 'ok' }] }), {
					budgetTokens: 4000,
					countTokens: text => text.length,
					condense: async (text, target) => {
						ahead.push(target);
						return text.slice(0, target);
					},
					memory,
				});
			h.prepared = await prepare();
			assert.deepEqual(ahead, [150, 500], 'the job condensed what attaching it will need');
			const again = await prepare();
			assert.deepEqual(ahead, [150, 500], 'a later job with the same memory asks for nothing again');
			assert.deepEqual([...(again.condensations?.keys() ?? [])], [...(h.prepared.condensations?.keys() ?? [])], 'and still brings the condensations');
			h.condense = () => assert.fail('no condense request at the overflow');
			const result = await fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: budget, maskOldToolResults: false, summaryBudget: 4000 });
			assert.ok(!h.calls.includes('condense') && !h.calls.includes('summarize'), h.calls.join(', '));
			const event = result.events.find((e): e is Extract<FitEvent, { kind: 'condensed' }> => e.kind === 'condensed');
			assert.deepEqual([event?.blocks.length, event?.ahead], [2, 2], 'both condensed blocks are counted as prepared ahead');
			assert.deepEqual(
				summaryBlocks(result.conversation).map(b => [b.turnIndex, b.condensed, b.text.length]),
				[
					[0, true, 150],
					[1, true, 500],
					[2, false, 2000],
					[3, false, 20],
				],
			);
		});

		it('without the model (or when it writes too much), blocks are cut to their first lines; never deleted', async () => {
			const session = newFitMemory();
			const lines = Array.from({ length: 40 }, (_, i) => `line ${i} of the block`).join('\n');
			const base = summarizedTurns();
			const start = applySummaryBlocks(base, { summarizeRoundIds: ['t0r0', 't0r1'] }, [lines]);
			const budget = size(start, session) - 300;
			const { h, steps } = harness(budget, session);
			h.condense = text => text;
			const result = await fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: budget, maskOldToolResults: false, summaryBudget: 4000 });
			const blocks = summaryBlocks(result.conversation);
			assert.equal(blocks.length, 4, 'no block removed');
			assert.equal(blocks[0].condensed, true);
			assert.ok(lines.startsWith(blocks[0].text), 'the first lines of the block');
			assert.ok(blocks[0].text.split('\n').length >= 2);
			const condensed = result.events.find((e): e is Extract<FitEvent, { kind: 'condensed' }> => e.kind === 'condensed')!;
			assert.equal(condensed.blocks[0].by, 'first-lines');
		});

		it('cancellation while condensing stops the pipeline; nothing is attached', async () => {
			const session = newFitMemory();
			const start = summarizedTurns();
			const budget = size(start, session) - 300;
			const { h, steps } = harness(budget, session);
			h.cancelDuring = 'condense';
			await assert.rejects(
				fitPrompt(start, session, steps, { mode: 'half-context', messageBudget: budget, maskOldToolResults: false, summaryBudget: 4000 }),
				/cancelled/,
			);
			assert.equal(h.calls.at(-1), 'condense');
		});
	});

	it('automatic summaries off: says so once per session, masks and truncates, never asks for or takes a summary', async () => {
		const session = newFitMemory();
		const start = conversationOf(10, 300);
		const budget = size(start, session) - 500;
		const { h, steps } = harness(budget, session);
		const plan = planOrNothing(start, 'half-context')!;
		h.prepared = { plan, attempts: [], blocks: ['PREPARED'], narrowed: false, plannedRoundCount: plan.summarizeRoundIds.length, requests: 1, durationMs: 1 };
		const options = { mode: 'half-context' as const, messageBudget: budget, maskOldToolResults: false, autoSummarize: false };
		const first = await fitPrompt(start, session, steps, options);
		assert.equal(first.kind, 'fits');
		assert.deepEqual(kinds(first.events), ['summaries-off', 'masked'], 'masking first, even with maskOldToolResults off');

		// A later, larger overflow of the same request: no second notice, truncation, still no summary.
		const more = conversationOf(12, 300).activeRounds.map(r => ({ ...r, id: `b${r.id}` }));
		const grown: Conversation = { ...first.conversation, activeRounds: [...first.conversation.activeRounds, ...more] };
		const second = await fitPrompt(grown, session, steps, options);
		assert.equal(second.kind, 'fits');
		const seen = kinds(second.events);
		assert.ok(!seen.includes('summaries-off') && !seen.includes('summarized'), seen.join(', '));
		assert.ok(seen.includes('elided') || seen.includes('dropped'), `truncation: ${seen.join(', ')}`);
		assert.ok(!h.calls.includes('summarize') && !h.calls.includes('takePrepared'), h.calls.join(', '));
		for (const event of [...first.events, ...second.events]) {
			if (event.kind === 'masked' || event.kind === 'elided' || event.kind === 'dropped') {
				assert.ok(event.neededTokens > budget, `${event.kind} carries what the prompt needed before it: ${event.neededTokens}`);
			}
		}
	});

	for (const during of ['render', 'measure', 'takePrepared', 'summarize']) {
		it(`cancellation during ${during} stops the pipeline with the caller's error`, async () => {
			const session = newFitMemory();
			const start = conversationOf(8, 300);
			const budget = size(start, session) - 400;
			const { h, steps } = harness(budget, session);
			h.cancelDuring = during;
			// Masking is what measures before anything else changes the conversation.
			const options = { mode: 'half-context' as const, messageBudget: budget, maskOldToolResults: during === 'measure' };
			await assert.rejects(fitPrompt(start, session, steps, options), /cancelled/);
			assert.equal(h.calls.at(-1), during, `nothing runs after ${during}`);
		});
	}
});
