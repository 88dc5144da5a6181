import * as assert from 'node:assert/strict';
import { EARLIEST_SHARE, forecastOverflow, shouldStartBackground, type PromptSample } from '../../../../src/common/background/startRule';

/** A request whose prompt grows `growth` tokens per round of `msPerRound`. */
function growing(start: number, growth: number, rounds: number, msPerRound: number): PromptSample[] {
	return Array.from({ length: rounds }, (_, i) => ({ tokens: start + i * growth, atMs: i * msPerRound }));
}

describe('background start rule: start when the summary would otherwise be late', () => {
	it('forecasts rounds and time left from recent growth, ignoring the drop of a summary', () => {
		const history = [...growing(5000, 1000, 4, 10_000), { tokens: 4000, atMs: 40_000 }, { tokens: 5000, atMs: 50_000 }];
		const forecast = forecastOverflow(history, 10_000)!;
		assert.ok(Math.abs(forecast.growthPerRound - 4000 / 5) < 1e-9);
		assert.equal(forecast.msPerRound, 10_000);
		assert.ok(Math.abs(forecast.roundsLeft - 5000 / 800) < 1e-9);
	});

	it('starts early for a slow summary and not for a fast one, at the same fill', () => {
		const history = growing(5000, 500, 4, 10_000); // 6,500 of 10,000; 7 rounds (70 s) left
		assert.deepEqual(shouldStartBackground({ history, messageBudget: 10_000, latestShare: 0.8, summaryMs: 5_000 }), { start: false });
		const slow = shouldStartBackground({ history, messageBudget: 10_000, latestShare: 0.8, summaryMs: 60_000 });
		assert.equal(slow.start && slow.why, 'forecast');
	});

	it('always starts at the user threshold, never below the earliest share, never with 0', () => {
		const high = growing(8000, 0, 3, 1000);
		assert.deepEqual(shouldStartBackground({ history: high, messageBudget: 10_000, latestShare: 0.8, summaryMs: 1 }), { start: true, why: 'threshold' });
		const low = growing(EARLIEST_SHARE * 10_000 - 2000, 1000, 2, 100_000);
		assert.equal(shouldStartBackground({ history: low, messageBudget: 10_000, latestShare: 0.8, summaryMs: 1e9 }).start, false);
		assert.equal(shouldStartBackground({ history: high, messageBudget: 10_000, latestShare: 0, summaryMs: 1e9 }).start, false);
	});
});
