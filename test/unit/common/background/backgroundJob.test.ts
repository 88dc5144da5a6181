// The life of background summaries on a virtual clock, as the replay benchmark drives it: ready or
// waited for at the overflow, chained while the conversation grows, discarded when another summary
// made them wrong, handed over to the next request.
import * as assert from 'node:assert/strict';
import { BackgroundSummaries, dropCarried, jobsUnderWay, type BackgroundSteps } from '../../../../src/common/background/backgroundJob';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { makeSummary } from '../../../../src/common/fitting/preparedSummary';
import { applySummaryBlocks } from '../../../../src/common/summaries/applySummary';
import { UNLEARNED_SPEED } from '../../../../src/common/background/latency';
import { planOrNothing } from '../../../../src/common/planning/planners';

function round(id: string): Round {
	return { id, response: `r ${id}`, toolCalls: [{ id: `c-${id}`, name: 'read', arguments: `{"p":"${id}"}`, result: 'x'.repeat(400) }] };
}
function rounds(n: number, from = 0): Round[] {
	return Array.from({ length: n }, (_, i) => round(`a${from + i}`));
}

function harness(durationMs: number, oneAtATime = false) {
	let now = 0;
	const unused: string[] = [];
	const steps: BackgroundSteps = {
		plan: c => planOrNothing(c, 'half-context', { countTokens: t => Math.ceil(t.length / 4) }),
		summarize: (c, plan) => ({
			done: makeSummary(c, plan, async (_c, part) => ({
				summary: `summary of ${part.summarizeRoundIds.join(',')}`,
				attempts: [{ mode: 'full', outcome: 'ok', promptTokens: 100, summaryTokens: 10 }],
			})),
			durationMs: () => durationMs,
			cancel: () => {},
		}),
		now: () => now,
		onUnused: (prepared, outcome) => unused.push(`${outcome}:${prepared.plan.anchorRoundId}`),
		oneAtATime: () => oneAtATime,
	};
	return { core: new BackgroundSummaries(steps), unused, at: (ms: number) => (now = ms) };
}

/** Lets the summaries written at once settle (a few promise ticks). */
const settle = () => new Promise(resolve => setImmediate(resolve));

const consider = { messageBudget: 10_000, latestShare: 0.8, expectedSummaryTokens: 100, speed: UNLEARNED_SPEED };

describe('background summaries: the job rule shared by the agent and the benchmark', () => {
	it('a summary done before the overflow is used at once; one under way is waited for', async () => {
		const h = harness(30_000);
		const conversation: Conversation = { turns: [], activeRounds: rounds(8) };
		assert.equal(h.core.consider(conversation, { ...consider, promptTokens: 9000 }), 'threshold');
		await settle();
		h.at(40_000);
		const ready = await h.core.takeAtOverflow(conversation);
		assert.ok(ready.prepared?.blocks);
		assert.deepEqual([ready.wasReady, ready.waitedMs], [true, 0]);

		const late = harness(30_000);
		late.core.consider(conversation, { ...consider, promptTokens: 9000 });
		late.at(10_000);
		const waited = await late.core.takeAtOverflow(conversation);
		assert.deepEqual([waited.wasReady, waited.waitedMs], [false, 20_000]);
		assert.equal(late.core.stats.waitedMs, 20_000);
	});

	it('when one is ready and the prompt keeps growing, the next older slice is prepared on top of it, and both are taken in order', async () => {
		const h = harness(1000);
		let conversation: Conversation = { turns: [], activeRounds: rounds(8) };
		h.core.consider(conversation, { ...consider, promptTokens: 9000 });
		await settle();
		h.at(5000);
		conversation = { turns: [], activeRounds: [...conversation.activeRounds, ...rounds(8, 8)] };
		// Still over the threshold once the first is attached (it frees 90 tokens): a second job starts.
		assert.equal(h.core.consider(conversation, { ...consider, promptTokens: 9900 }), 'threshold');
		await settle();
		h.at(10_000);
		const first = await h.core.takeAtOverflow(conversation);
		const attached = applySummaryBlocks(conversation, first.prepared!.plan, first.prepared!.blocks!);
		const second = await h.core.takeAtOverflow(attached);
		assert.ok(second.prepared, 'the chained summary applies once the first is attached');
		assert.ok(second.prepared.plan.summarizeRoundIds.every(id => !first.prepared!.plan.summarizeRoundIds.includes(id)));
		assert.equal(h.core.stats.used, 2);
	});

	it('on a provider that runs one request at a time, nothing is started ahead: only the overflow (the bridge) starts a summary', async () => {
		const conversation: Conversation = { turns: [], activeRounds: rounds(40) };
		const serial = harness(1000, true);
		// Past the threshold, and growing fast enough for the forecast: still no start.
		for (const promptTokens of [4500, 4700, 9000]) assert.equal(serial.core.consider(conversation, { ...consider, promptTokens }), undefined);
		assert.equal(serial.core.stats.started, 0);
		assert.equal(serial.core.start(conversation), true, 'the bridge starts one at the overflow');
		const concurrent = harness(1000);
		assert.equal(concurrent.core.consider(conversation, { ...consider, promptTokens: 9000 }), 'threshold');
	});

	it('an early (forecast) start needs a slice worth a model request: a tenth of the message budget', () => {
		// Rounds arrive instantly and the prompt grows: the forecast says any summary would be late.
		const early = (conversation: Conversation) => {
			const h = harness(1000);
			return [4500, 4700, 4900].map(promptTokens => h.core.consider(conversation, { ...consider, promptTokens })).find(why => why !== undefined);
		};
		assert.equal(early({ turns: [], activeRounds: rounds(8) }), undefined, 'four short rounds (about 450 tokens) are not worth a summary yet');
		assert.equal(early({ turns: [], activeRounds: rounds(40) }), 'forecast', 'twenty rounds are');
	});

	it('a prepared summary made wrong by another summary is discarded, never attached', async () => {
		const h = harness(1000);
		const conversation: Conversation = { turns: [], activeRounds: rounds(8) };
		h.core.start(conversation);
		await settle();
		h.at(2000);
		const other = planOrNothing(conversation, 'legacy', {})!;
		const changed = applySummaryBlocks(conversation, other, ['another summary']);
		const taken = await h.core.takeAtOverflow(changed);
		assert.equal(taken.prepared, undefined);
		assert.equal(h.core.stats.discarded, 1);
		assert.equal(h.unused.length, 1);
	});

	it('hands jobs over to the next request, which adopts them; dispose drops them as made for nothing', async () => {
		const h = harness(1000);
		const conversation: Conversation = { turns: [], activeRounds: rounds(8) };
		h.core.start(conversation);
		await settle();
		const carried = h.core.handOver();
		assert.ok(carried);
		assert.equal(h.core.busy, false);
		assert.deepEqual([h.core.stats.started, h.core.stats.handedOver, jobsUnderWay(h.core.stats)], [1, 1, 0]);
		const next = harness(1000);
		assert.equal(next.core.adopt(carried), true);
		assert.equal(next.core.state().kind, 'preparing');
		next.at(5000);
		assert.equal(next.core.state().kind, 'ready');
		assert.deepEqual([next.core.stats.carriedIn, jobsUnderWay(next.core.stats)], [1, 1]);
		next.core.dispose();
		assert.equal(next.core.stats.discarded, 1);
		assert.equal(jobsUnderWay(next.core.stats), 0);
		assert.deepEqual(
			next.unused.map(u => u.split(':')[0]),
			['discarded'],
		);
	});

	it('jobs a request does not continue are counted as carried in and discarded, so every job is accounted for', async () => {
		const h = harness(1000);
		h.core.start({ turns: [], activeRounds: rounds(8) });
		const carried = h.core.handOver()!;
		const other = harness(1000);
		other.core.start({ turns: [], activeRounds: rounds(8, 100) });
		assert.equal(other.core.adopt(carried), false, 'a request with its own job adopts nothing');
		dropCarried(carried, {}, other.core.stats);
		const s = other.core.stats;
		assert.deepEqual([s.started, s.carriedIn, s.discarded, jobsUnderWay(s)], [1, 1, 1, 1]);
	});
});
