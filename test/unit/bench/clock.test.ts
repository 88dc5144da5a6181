// The benchmark's virtual clock (bench/replay/clock.ts) and the provider's queue
// (bench/replay/providerQueue.ts): seeded heavy-tailed noise, rate-limit pauses as a fault of their
// own, rates of its own (the product's forecast must learn them), and background work that waits
// behind the agent's calls on one provider.
import * as assert from 'node:assert/strict';
import { CLOCK_PROFILES, RATE_LIMIT_PAUSE_MS, VirtualClock } from '../../../bench/replay/clock';
import { ProviderQueue } from '../../../bench/replay/providerQueue';
import { FIELD_RATES } from '../../../src/common/background/latency';

describe('the virtual clock', () => {
	const base = (c: VirtualClock) => c.profile.firstTokenMs + 10_000 * c.profile.msPerInputToken + 1000 * c.profile.msPerOutputToken;
	it('draws the same noise for the same seed, other noise for another', () => {
		const a = new VirtualClock(CLOCK_PROFILES.field, { seed: 's', rateLimits: 0 });
		const b = new VirtualClock(CLOCK_PROFILES.field, { seed: 's', rateLimits: 0 });
		const c = new VirtualClock(CLOCK_PROFILES.field, { seed: 't', rateLimits: 0 });
		const draws = (k: VirtualClock) => Array.from({ length: 20 }, () => k.callMs(10_000, 1000));
		const [da, db, dc] = [draws(a), draws(b), draws(c)];
		assert.deepEqual(da, db);
		assert.notDeepEqual(da, dc);
	});

	it('has a heavy tail: most calls near the rate, some many times longer', () => {
		const clock = new VirtualClock(CLOCK_PROFILES.field, { seed: 'tail', rateLimits: 0 });
		const ratios = Array.from({ length: 2000 }, () => clock.callMs(10_000, 1000) / base(clock)).sort((x, y) => x - y);
		assert.ok(ratios[1000] > 0.7 && ratios[1000] < 1.3, `median ${ratios[1000]}`);
		assert.ok(ratios[1999] > 4, `max ${ratios[1999]}`);
	});

	it('pauses a share of calls for a rate limit and counts them', () => {
		const clock = new VirtualClock(CLOCK_PROFILES.test, { seed: 'rl', rateLimits: 0.5 });
		const plain = base(clock);
		const times = Array.from({ length: 200 }, () => clock.callMs(10_000, 1000));
		const paused = times.filter(t => t >= plain + RATE_LIMIT_PAUSE_MS[0]).length;
		assert.equal(paused, clock.rateLimitPauses);
		assert.ok(paused > 60 && paused < 140, `${paused} of 200`);
		assert.equal(new VirtualClock(CLOCK_PROFILES.test, { seed: 'rl', rateLimits: 0 }).callMs(10_000, 1000), plain, 'the test profile is quiet');
	});

	it("keeps rates of its own, not the product forecast's", () => {
		const field = CLOCK_PROFILES.field;
		assert.notDeepEqual([field.firstTokenMs, field.msPerOutputToken], [FIELD_RATES.firstTokenMs, FIELD_RATES.msPerOutputToken]);
		assert.ok(field.analysisTokens > 0, 'analysis is charged');
	});
});

describe("the provider's queue", () => {
	/** A job whose calls are known at once; returns where its finish lands. */
	const job = (queue: ProviderQueue, startedAt: number, calls: number[]) => {
		const seen: { at?: number } = {};
		queue.add(startedAt, at => (seen.at = at)).setCalls(calls);
		return seen;
	};

	it('single-slot: a started background request runs to its end, the agent waits behind it, the next request queues behind the agent', () => {
		const clock = new VirtualClock(CLOCK_PROFILES.test);
		const queue = new ProviderQueue(clock, 'single-slot');
		const seen = job(queue, 0, [10_000, 5_000]);
		clock.advance(2_000); // a tool runs
		clock.busyFor(4_000); // the agent's call arrives at 2 s: the summary's first request holds the slot until 10 s
		assert.deepEqual(clock.slotWaits, [8_000]);
		assert.equal(clock.now, 14_000);
		assert.deepEqual(queue.placed, [[0, 10_000]], "the summary's second request arrived (10 s) after the agent's call (2 s)");
		queue.settle();
		assert.equal(seen.at, undefined);
		clock.advance(6_000);
		queue.settle();
		assert.equal(seen.at, 19_000);
		assert.deepEqual(queue.placed, [
			[0, 10_000],
			[14_000, 19_000],
		]);
	});

	it('single-slot: a call that arrives with the slot free does not wait, nor at the moment a job starts', () => {
		const clock = new VirtualClock(CLOCK_PROFILES.test);
		const queue = new ProviderQueue(clock, 'single-slot');
		const seen = job(queue, 0, [3_000]);
		clock.busyFor(4_000); // the agent's call, sent as the job starts, goes first
		assert.deepEqual(clock.slotWaits, []);
		clock.advance(10_000);
		clock.busyFor(1_000);
		assert.deepEqual(clock.slotWaits, [], 'the summary ran during the tools');
		queue.settle();
		assert.equal(seen.at, 7_000);
	});

	it('cloud: a job runs beside the agent; the agent never waits; a rate-limit pause of the agent holds the job too', () => {
		const clock = new VirtualClock(CLOCK_PROFILES.test);
		const queue = new ProviderQueue(clock, 'cloud');
		const seen = job(queue, 0, [6_000, 4_000]);
		clock.busyFor(30_000, 20_000); // the agent's call meets a 20 s rate limit at once
		queue.settle();
		assert.deepEqual(clock.slotWaits, []);
		assert.equal(seen.at, 30_000, 'held 20 s by the shared rate-limit budget, then 10 s of work');
		const free = job(queue, clock.now, [5_000]);
		clock.busyFor(8_000);
		queue.settle();
		assert.equal(free.at, 35_000);
	});

	it('at an overflow the head job is settled at once, its requests back to back; a job not computed yet is never settled', () => {
		const clock = new VirtualClock(CLOCK_PROFILES.test);
		clock.advance(1_000);
		const queue = new ProviderQueue(clock, 'single-slot');
		let at: number | undefined;
		const handle = queue.add(clock.now, t => (at = t));
		queue.settle(true);
		assert.equal(at, undefined);
		assert.equal(queue.uncomputed, 1);
		handle.setCalls([5_000, 3_000]);
		queue.settle(true);
		assert.equal(at, 9_000, 'the user waits: nothing else is on the provider');
		assert.throws(() => {
			queue.add(clock.now, () => {});
			queue.drainAll();
		}, /not computed/);
	});
});
