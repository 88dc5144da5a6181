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
	it('with one slot, a background job makes progress only between the agent calls', () => {
		const clock = new VirtualClock(CLOCK_PROFILES.test);
		const queue = new ProviderQueue(clock, 1);
		let finished: number | undefined;
		queue.add(0, 10_000, at => (finished = at));
		clock.busyFor(4_000); // the agent's call: the job waits
		clock.advance(2_000); // a tool runs: the job runs
		queue.settle();
		assert.equal(finished, undefined);
		clock.busyFor(4_000);
		clock.advance(10_000);
		queue.settle();
		assert.equal(finished, 4_000 + 2_000 + 4_000 + 8_000);
	});

	it('with two slots, it runs beside the agent; at an overflow the head job is settled at once', async () => {
		const clock = new VirtualClock(CLOCK_PROFILES.test);
		const two = new ProviderQueue(clock, 2);
		let finished: number | undefined;
		two.add(0, 10_000, at => (finished = at));
		clock.busyFor(12_000);
		two.settle();
		assert.equal(finished, 10_000);
		const one = new ProviderQueue(clock, 1);
		let waitedFor: number | undefined;
		await one.drainingHead(async () => {
			one.add(clock.now, 5_000, at => (waitedFor = at));
		});
		assert.equal(waitedFor, clock.now + 5_000, 'the agent waits: nothing else is on the provider');
	});
});
