// The replay benchmark (bench/replay) on one small synthetic session at one window:
// invariants of the measurements and the shape of the --json output; the day-long chat; the
// smallest corpus session. These replay whole sessions (seconds each), so they run in the
// benchmark tier (`npm run test:bench`, part of `npm test`), not with the unit tests. The full
// corpus run (`npm run bench`) is not part of the tests.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatTable } from '../../bench/replay/main';
import { MASKED_STRATEGIES, productSettings } from '../../bench/replay/masking';
import { replaySession, STRATEGIES, type ReplayResult, type StrategyName } from '../../bench/replay/replay';
import { withRecall } from '../../bench/replay/replayTypes';
import { runTasks, type TaskResult } from '../../bench/replay/pool';
import { SUMMARY_SHARE } from '../../src/common/tokens/budget';
import { concatSessions, loadSession } from '../../bench/replay/session';
import { NOT_A_SUMMARY_KINDS } from '../../bench/replay/summarizerFaults';

const WINDOW = 8_000;
/** Masked rounds are shown smaller than the ceiling (which sizes rounds unmasked) assumes, and may replace every summary. */
const isMasked = (strategy: StrategyName) => (MASKED_STRATEGIES as readonly string[]).includes(strategy);

/** Two turns (14 and 12 rounds), each round one bash call with a 600-2,400 character result. */
function syntheticSession(): object {
	const round = (t: number, r: number) => ({
		response: `Step ${t}.${r}: I will look at part ${r} of the parser.\nSecond line that the stand-in ignores.`,
		toolCalls: [
			{
				id: `c${t}-${r}`,
				name: 'bash',
				arguments: JSON.stringify({ command: `sed -n ${r * 40},${r * 40 + 40}p src/parser${t}.py` }),
				result: Array.from(
					{ length: 10 + ((r * 7 + t) % 30) },
					(_, i) => `${String(i).padStart(4)}  def function_${t}_${r}_${i}(value): return value * ${i} # ${'x'.repeat(i % 20)}`,
				).join('\n'),
			},
		],
	});
	return {
		source: 'synthetic',
		turns: [
			{ user: 'Fix the parser bug in src/parser0.py.', rounds: Array.from({ length: 14 }, (_, r) => round(0, r)) },
			{ user: 'Now also handle the empty input case.', rounds: Array.from({ length: 12 }, (_, r) => round(1, r)) },
		],
	};
}

describe('replay benchmark', function () {
	this.timeout(120_000);
	let file: string;
	const results = new Map<StrategyName, ReplayResult>();

	before(async () => {
		const dir = mkdtempSync(join(tmpdir(), 'longhaul-bench-'));
		file = join(dir, 'synthetic.json');
		writeFileSync(file, JSON.stringify(syntheticSession()));
		const session = loadSession(file);
		for (const strategy of STRATEGIES) {
			results.set(strategy, await replaySession(session, { window: WINDOW, strategy }));
		}
	});

	it('makes one request per recorded round, for every strategy', () => {
		for (const [strategy, r] of results) {
			assert.equal(r.metrics.requests, 26, strategy);
			assert.equal(r.perRequest.length, 26, strategy);
			assert.equal(r.metrics.strategy, strategy);
			assert.equal(r.metrics.window, WINDOW);
			assert.equal(r.metrics.session, 'synthetic');
		}
	});

	it('has no overflow in the product modes, and they summarize', () => {
		for (const strategy of ['legacy', 'half-context'] as const) {
			const m = results.get(strategy)!.metrics;
			assert.equal(m.overflows, 0, strategy);
			assert.ok(m.summarizations > 0, `${strategy} summarized`);
			assert.ok(m.summarizerInputTokens > 0, strategy);
		}
		assert.equal(results.get('truncate-half')!.metrics.summarizations, 0);
	});

	it('every sent prompt fits the message budget, and no prompt of the product modes is over it', () => {
		for (const [strategy, r] of results) {
			for (const q of r.perRequest) {
				if (!q.overflow) assert.ok(q.promptTokens <= r.metrics.messageBudget, `${strategy} request ${q.index}: ${q.promptTokens}`);
			}
			assert.ok(r.metrics.fillRatioMin > 0 && r.metrics.fillRatioMin <= r.metrics.fillRatioMean && r.metrics.fillRatioMean <= 1, strategy);
		}
	});

	it('keeps verbatim counts within bounds: 0 ≤ horizon ≤ ceiling ≤ rounds so far', () => {
		for (const [strategy, r] of results) {
			r.perRequest.forEach((q, i) => {
				assert.ok(q.verbatimRounds >= 0 && q.verbatimRounds <= i, `${strategy} request ${i}: horizon ${q.verbatimRounds}`);
				assert.ok(q.limitRounds <= i, `${strategy} request ${i}: limit ${q.limitRounds}`);
				if (!q.overflow && strategy !== 'keep-head-tail' && !isMasked(strategy)) {
					assert.ok(q.verbatimRounds <= q.limitRounds, `${strategy} request ${i}: ${q.verbatimRounds} > ${q.limitRounds}`);
				}
			});
			assert.ok(r.metrics.verbatimHorizonRounds <= r.metrics.verbatimLimitRounds + 1e-9 || strategy === 'keep-head-tail' || isMasked(strategy), strategy);
			assert.ok(r.metrics.intactHorizonRounds <= r.metrics.verbatimHorizonRounds + 1e-9, `${strategy}: intact ≤ shown`);
		}
	});

	it('before any compaction every round is verbatim and prompts grow by prefix', () => {
		for (const [strategy, r] of results) {
			if (isMasked(strategy)) continue; // masking changes older messages too; checked below
			const first = r.perRequest.findIndex(q => q.compactions > 0);
			assert.ok(first > 0, `${strategy} compacted`);
			for (let i = 1; i < first; i++) {
				assert.equal(r.perRequest[i].verbatimRounds, i, `${strategy} request ${i}`);
				assert.ok(r.perRequest[i].prefixReuse! > 0.5, `${strategy} request ${i} reuse ${r.perRequest[i].prefixReuse}`);
			}
		}
	});

	it('legacy keeps at most one round right after a summary; half-context keeps more', () => {
		const legacy = results.get('legacy')!.metrics;
		const half = results.get('half-context')!.metrics;
		assert.ok(legacy.verbatimAfterSummaryRounds! <= 1, `legacy ${legacy.verbatimAfterSummaryRounds}`);
		assert.ok(half.verbatimAfterSummaryRounds! >= 2, `half ${half.verbatimAfterSummaryRounds}`);
		assert.ok(half.verbatimHorizonRounds >= legacy.verbatimHorizonRounds);
	});

	it('masking first: fewer summaries, less summarizer input, no overflow, a horizon that does not fall', () => {
		for (const [mode, masked] of [
			['legacy', 'legacy+mask'],
			['half-context', 'half-context+mask'],
		] as const) {
			const plain = results.get(mode)!.metrics;
			const m = results.get(masked)!.metrics;
			assert.equal(m.overflows, 0, masked);
			assert.ok(m.maskedToolResults > 0 && m.maskFreedTokens > 0, `${masked} masked`);
			assert.ok(m.summarizations < plain.summarizations, `${masked}: ${m.summarizations} vs ${plain.summarizations} summaries`);
			assert.ok(m.summarizerInputTokens < plain.summarizerInputTokens, `${masked}: ${m.summarizerInputTokens} vs ${plain.summarizerInputTokens}`);
			assert.ok(m.verbatimHorizonRounds >= plain.verbatimHorizonRounds, `${masked} horizon`);
			assert.ok(m.intactHorizonRounds >= plain.intactHorizonRounds, `${masked} intact horizon`);
			assert.equal(plain.maskedToolResults, 0, mode);
			assert.equal(plain.intactHorizonRounds, plain.verbatimHorizonRounds, `${mode}: without masking every shown round is intact`);
		}
		// Until the first masking the masked variants render exactly what the plain modes render.
		const plain = results.get('half-context')!.perRequest;
		const masked = results.get('half-context+mask')!.perRequest;
		const firstChange = plain.findIndex((q, i) => q.promptTokens !== masked[i].promptTokens);
		assert.ok(firstChange > 0 && plain[firstChange].compactions > 0, `first difference at request ${firstChange}, where the plain mode summarized`);
	});

	it('probes what the agent can still know for every strategy: continuity on every request from the first compaction on, four details shares', () => {
		for (const [strategy, r] of results) {
			const m = r.metrics;
			const first = r.perRequest.findIndex(q => q.compactions > 0);
			if (!isMasked(strategy)) assert.equal(m.continuityRequests, r.perRequest.length - first, `${strategy}: every request from the first compaction on`);
			// Masking leaves results out before any compaction: probed from the first masked prompt on.
			else assert.ok(m.continuityRequests > 0 && (first === -1 || m.continuityRequests >= r.perRequest.length - first), strategy);
			assert.ok(m.continuity !== null && m.continuity > 0 && m.continuity <= 1, `${strategy} continuity ${m.continuity}`);
			assert.ok(m.detailsSampled > 0 && m.detailsChecks > 0, strategy);
			const shares = [m.detailsVisible!, m.detailsInSummary!, m.detailsRecalled!, m.detailsLost!];
			assert.ok(Math.abs(shares.reduce((a, b) => a + b, 0) - 1) <= 0.002, `${strategy}: ${shares}`);
			assert.ok(Math.abs(m.detailsReachable! - (1 - m.detailsLost!)) <= 0.001, strategy);
			if (!productSettings(strategy) && !withRecall(strategy)) assert.equal(m.detailsRecalled, 0, `${strategy} offers no recall`);
		}
		// The +recall references get back by recall what their plain rule dropped: the same prompt rounds, more reachable.
		for (const strategy of ['truncate-half', 'keep-head-tail'] as const) {
			const plain = results.get(strategy)!.metrics;
			const recall = results.get(`${strategy}+recall`)!.metrics;
			assert.ok(
				recall.detailsRecalled! > 0 && recall.detailsReachable! > plain.detailsReachable!,
				`${strategy}+recall: ${recall.detailsReachable} vs ${plain.detailsReachable}`,
			);
			assert.ok(recall.ledgerTokensMean > 0 && plain.ledgerTokensMean === 0, `${strategy}+recall shows the done-ledger`);
		}
		// Dropping rounds without a summary or recall loses what they showed; the product keeps it reachable.
		const truncated = results.get('truncate-half')!.metrics;
		assert.ok(truncated.detailsLost! > 0, `truncate-half lost ${truncated.detailsLost}`);
		for (const strategy of ['legacy', 'half-context'] as const) {
			assert.ok(results.get(strategy)!.metrics.detailsReachable! > truncated.detailsReachable!, strategy);
		}
	});

	it('each measure can fail: filler summaries hold nothing, masked rounds are not intact', async () => {
		const session = loadSession(file);
		const filler = (await replaySession(session, { window: WINDOW, strategy: 'half-context', summaryInformation: 0 })).metrics;
		const full = (await replaySession(session, { window: WINDOW, strategy: 'half-context', summaryInformation: 100 })).metrics;
		assert.ok(filler.summarizations > 0);
		assert.equal(filler.detailsInSummary, 0, 'a summary of filler holds no detail');
		assert.ok(full.detailsInSummary! > 0, `N = 100 holds ${full.detailsInSummary}`);
		// Without the done-ledger, what the summaries say is what carries the facts.
		const unledgered = async (summaryInformation: number) =>
			(await replaySession(session, { window: WINDOW, strategy: 'half-context', summaryInformation, doneLedger: false })).metrics.continuity!;
		const [c0, c100] = [await unledgered(0), await unledgered(100)];
		assert.ok(c100 > c0, `continuity without the ledger: ${c0} at N = 0, ${c100} at N = 100`);
		const masked = results.get('half-context+mask')!.metrics;
		assert.ok(masked.maskedToolResults > 0);
		assert.ok(masked.intactHorizonRounds < masked.verbatimHorizonRounds, `intact ${masked.intactHorizonRounds} < counted ${masked.verbatimHorizonRounds}`);
	});

	it('on the noisy queued clock: waits, analysis and rate limits are counted; background off runs none', async () => {
		const session = loadSession(file);
		const options = { window: WINDOW, strategy: 'half-context' as const, clock: 'field' as const, summaryInformation: 30, rateLimits: 0.2 };
		const on = (await replaySession(session, options)).metrics;
		const off = (await replaySession(session, { ...options, background: false })).metrics;
		const again = (await replaySession(session, options)).metrics;
		assert.ok(on.analysisTokens > 0 && on.rateLimitPauses > 0, `analysis ${on.analysisTokens}, pauses ${on.rateLimitPauses}`);
		assert.equal(off.backgroundStarted, 0);
		assert.ok(!off.background && on.background);
		assert.ok(off.compactionOverflows > 0 && off.waitMsTotal > 0);
		assert.deepEqual([again.sessionMs, again.waitMsTotal], [on.sessionMs, on.waitMsTotal], 'seeded: the same times again');
	});

	it('with the bridge a summary starts at an overflow, never ahead of one; legacy prepares ahead', async () => {
		const session = loadSession(file);
		const options = { window: WINDOW, clock: 'field' as const, summaryInformation: 30 };
		const half = (await replaySession(session, { ...options, strategy: 'half-context' })).metrics;
		const legacy = (await replaySession(session, { ...options, strategy: 'legacy' })).metrics;
		assert.ok(half.backgroundStarted > 0, 'half-context summarized in the background');
		assert.equal(half.backgroundStartedAhead, 0, 'none started before its overflow');
		assert.equal(half.waitMsTotal, 0, 'and nobody waited for one');
		assert.ok(legacy.backgroundStartedAhead > 0, `legacy started ${legacy.backgroundStartedAhead} ahead`);
	});

	it('is deterministic apart from timings', async () => {
		const again = await replaySession(loadSession(file), { window: WINDOW, strategy: 'half-context' });
		const strip = (r: ReplayResult) => ({ ...r.metrics, renderMsP50: 0, renderMsP95: 0, planMsP50: 0 });
		assert.deepEqual(strip(again), strip(results.get('half-context')!));
	});

	it('formats the table with one row per replay', () => {
		assert.match(formatTable([results.get('legacy')!.metrics]), /^session +window +strategy +req/);
		assert.match(formatTable([results.get('legacy')!.metrics]).split('\n')[1], /^synthetic +8000 +legacy /);
	});

	it('--json prints exactly one JSON object with the documented fields on stdout', () => {
		const stdout = execFileSync(
			process.execPath,
			[join(__dirname, '../../bench/replay/main.js'), '--session', file, '--window', '8k', '--strategy', 'half-context', '--json'],
			{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
		);
		const lines = stdout.trim().split('\n');
		assert.equal(lines.length, 1);
		const parsed = JSON.parse(lines[0]);
		for (const field of [
			'session',
			'window',
			'strategy',
			'requests',
			'summarizations',
			'summarizerInputTokens',
			'mainInputTokens',
			'overflows',
			'verbatimHorizonRounds',
			'verbatimAfterSummaryRounds',
			'verbatimLimitRounds',
			'fillRatioMean',
			'fillRatioMin',
			'prefixReuse',
			'renderMsP50',
			'renderMsP95',
			'planMsP50',
			'tokenizedPerNewToken',
			'continuity',
			'detailsVisible',
			'detailsInSummary',
			'detailsRecalled',
			'detailsLost',
			'detailsReachable',
		]) {
			assert.ok(field in parsed, field);
		}
		assert.equal(parsed.session, 'synthetic');
		assert.equal(parsed.window, 8000);
		assert.equal(parsed.strategy, 'half-context');
		assert.equal(parsed.overflows, 0);
	});
});

describe('replay benchmark: the same rules for every strategy, and a summarizer that fails', function () {
	this.timeout(120_000);
	let file: string;

	before(() => {
		const dir = mkdtempSync(join(tmpdir(), 'longhaul-bench-rules-'));
		file = join(dir, 'synthetic.json');
		writeFileSync(file, JSON.stringify(syntheticSession()));
	});

	it('counts the rounds truncate-half drops, and every round is verbatim or dropped', async () => {
		const { metrics, perRequest } = await replaySession(loadSession(file), { window: WINDOW, strategy: 'truncate-half' });
		assert.ok(metrics.droppedRounds > 0);
		assert.ok(metrics.droppedRounds + perRequest[perRequest.length - 1].verbatimRounds <= perRequest.length);
	});

	it('refuses reference prompts over the window by the stand-in model count, and they re-fit', async () => {
		for (const strategy of ['truncate-half', 'keep-head-tail'] as const) {
			const plain = (await replaySession(loadSession(file), { window: WINDOW, strategy })).metrics;
			const counted = (await replaySession(loadSession(file), { window: WINDOW, strategy, modelTokenRatio: 1.6 })).metrics;
			assert.equal(plain.modelRejections, 0);
			assert.ok(counted.modelRejections > 0, strategy);
			assert.equal(counted.recoveries, counted.modelRejections);
			assert.ok(counted.requestsLost <= counted.modelRejections + counted.overflows);
		}
	});

	it('with --summarizer-faults the product modes lose no request and no summary, and every fault has a known ending', async () => {
		for (const strategy of ['legacy', 'half-context'] as const) {
			const { metrics } = await replaySession(loadSession(file), { window: WINDOW, strategy, summarizerFaults: 0.5, clock: 'none' });
			assert.ok(metrics.faultsInjected > 0, strategy);
			const ended = Object.values(metrics.faultEndings).reduce((a, b) => a + b, 0);
			assert.equal(ended, metrics.faultsInjected);
			assert.equal(metrics.faultEndings.other, 0);
			assert.equal(metrics.requestsLost, 0);
			assert.equal(metrics.summariesLost ?? 0, 0);
		}
	});

	it('measures every compacting request of the product modes against the same request without it: none left it no smaller', async () => {
		for (const strategy of ['legacy', 'half-context'] as const) {
			const { metrics } = await replaySession(loadSession(file), { window: WINDOW, strategy, clock: 'none' });
			assert.ok((metrics.compactedRequestsMeasured ?? 0) > 0, strategy);
			assert.equal(metrics.compactionsNotSmaller, 0, strategy);
		}
	});

	it('counts every echo, refusal and few-token reply as a failed attempt, never as the summary', async () => {
		// Each session name draws other faults (summarizerFaults.ts faultFor): a few names meet every kind.
		const met = new Set<string>();
		for (const strategy of ['legacy', 'half-context'] as const) {
			for (const name of ['a', 'b', 'c', 'd']) {
				const { metrics } = await replaySession({ ...loadSession(file), name }, { window: WINDOW, strategy, summarizerFaults: 1, clock: 'none' });
				for (const kind of NOT_A_SUMMARY_KINDS) {
					assert.equal(metrics.faultsRejected[kind], metrics.faultKinds[kind], `${strategy} ${name} ${kind}`);
					if (metrics.faultKinds[kind] > 0) met.add(kind);
				}
				assert.equal(metrics.faultEndings.other, 0);
			}
		}
		assert.deepEqual([...met].sort(), [...NOT_A_SUMMARY_KINDS].sort());
	});
});

describe('the day-long chat (--concat)', function () {
	this.timeout(120_000);

	it('plays sessions as consecutive turns of one chat with unique ids; blocks stay in order and none is lost', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'longhaul-concat-'));
		const files = ['a.json', 'b.json', 'c.json'].map(name => join(dir, name));
		for (const f of files) writeFileSync(f, JSON.stringify(syntheticSession()));
		const chat = concatSessions(files.map(loadSession));
		assert.equal(chat.name, 'concat');
		assert.equal(chat.conversation.turns.length, 6);
		const ids = chat.conversation.turns.flatMap(t => t.rounds.map(r => r.id));
		const callIds = chat.conversation.turns.flatMap(t => t.rounds.flatMap(r => r.toolCalls.map(c => c.id)));
		assert.equal(new Set(ids).size, ids.length, 'round ids unique');
		assert.equal(new Set(callIds).size, callIds.length, 'call ids unique');
		for (const strategy of ['legacy', 'half-context'] as const) {
			const { metrics } = await replaySession(chat, { window: WINDOW, strategy });
			assert.equal(metrics.requests, 78);
			assert.equal(metrics.overflows, 0, strategy);
			assert.equal(metrics.orderViolations, 0, strategy);
			assert.equal(metrics.summariesLost, 0, strategy);
			assert.ok(metrics.summaryBlocks! >= 3, `${strategy}: ${metrics.summaryBlocks} blocks`);
			assert.ok(metrics.multiTurnSummarizations > 0, `${strategy}: a compaction spanning turns`);
		}
		const reference = (await replaySession(chat, { window: WINDOW, strategy: 'truncate-half' })).metrics;
		assert.equal(reference.orderViolations, null, 'no blocks for the reference strategies');
	});
});

describe('replay benchmark on the smallest corpus session', function () {
	this.timeout(120_000);
	// Like `npm run bench`: $LONGHAUL_CORPUS or ../shared/corpus from the repository root; skipped when absent.
	const file = join(process.env.LONGHAUL_CORPUS ?? resolve('../shared/corpus'), 'oh-ponyc-4595.json');

	it('replays oh-ponyc-4595 at 16k with no overflow in the product modes', async function () {
		if (!existsSync(file)) this.skip();
		for (const strategy of ['legacy', 'half-context'] as const) {
			const { metrics, perRequest } = await replaySession(loadSession(file), { window: 16_000, strategy });
			assert.equal(metrics.requests, 23);
			assert.equal(metrics.overflows, 0, strategy);
			assert.ok(metrics.summarizations >= 1, strategy);
			for (const q of perRequest) assert.ok(q.verbatimRounds <= q.limitRounds, `${strategy} request ${q.index}`);
		}
	});

	it('figures do not depend on promise timing: extra ticks around every summarizer call change nothing', async function () {
		if (!existsSync(file)) this.skip();
		const session = loadSession(file);
		const strip = (r: ReplayResult) => ({ ...r.metrics, renderMsP50: 0, renderMsP95: 0, planMsP50: 0 });
		for (const provider of ['cloud', 'single-slot'] as const) {
			const options = { window: 16_000, strategy: 'half-context' as const, clock: 'field' as const, summaryInformation: 30, rateLimits: 0.02, provider };
			const plain = strip(await replaySession(session, options));
			assert.ok(plain.backgroundStarted > 0, `${provider}: background summaries ran`);
			for (const extraTicks of [1, 3]) {
				assert.deepEqual(strip(await replaySession(session, { ...options, extraTicks })), plain, `${provider}, ${extraTicks} extra ticks`);
			}
		}
	});

	it('gives the same figures on one worker thread and on two', async function () {
		if (!existsSync(file)) this.skip();
		const tasks = (['legacy', 'half-context', 'keep-head-tail'] as const).map(strategy => ({
			files: [file],
			options: { window: 16_000, strategy, clock: 'field' as const, summaryInformation: 30, rateLimits: 0.02 },
		}));
		const strip = (r: TaskResult) => ({ ...r.metrics, renderMsP50: 0, renderMsP95: 0, planMsP50: 0 });
		const one = (await runTasks(tasks, 1)).map(strip);
		const two = (await runTasks(tasks, 2)).map(strip);
		// Each compacted: legacy and keep-head-tail attached summaries; half-context on this short
		// session starts its one summary at its overflow (decision 50), still under way at its end.
		assert.ok(one.every(m => m.summarizations > 0 || (m.strategy === 'half-context' && m.backgroundStarted > 0)));
		assert.deepEqual(two, one);
	});
});

describe('--sweep: a constant moved in the worker threads only', function () {
	this.timeout(300_000);
	const file = join(process.env.LONGHAUL_CORPUS?.split(',')[0] ?? resolve('../shared/corpus'), 'oh-ponyc-4595.json');

	it('replays with the constant at the value asked; at its own value the figures are the plain ones', async function () {
		if (!existsSync(file)) this.skip();
		const task = { files: [file], options: { window: 16_000, strategy: 'half-context' as const, clock: 'none' as const, summaryInformation: 30 } };
		const [plain] = await runTasks([task], 1);
		const [larger] = await runTasks([task], 1, undefined, { summaryShare: 0.3 });
		const [same] = await runTasks([task], 1, undefined, { summaryShare: SUMMARY_SHARE });
		assert.notDeepEqual(
			[larger.metrics.summarizerTokens, larger.metrics.intactHorizonRounds],
			[plain.metrics.summarizerTokens, plain.metrics.intactHorizonRounds],
			'a summary share of 0.3 changes the replay',
		);
		assert.deepEqual([same.metrics.summarizerTokens, same.metrics.intactHorizonRounds], [plain.metrics.summarizerTokens, plain.metrics.intactHorizonRounds]);
		// The worker checks the constant it loaded has the value asked, and fails otherwise.
		const [ledgerMoved] = await runTasks([task], 1, undefined, { ledgerShare: 0.01 });
		assert.equal(ledgerMoved.metrics.requests, plain.metrics.requests);
	});
});

// Seed 004 on every session of both corpora, at the cheapest configuration that showed a loss
// (16k, half-context; issue 39 reported summariesLost 1 on msa-django-11422-dschat and
// msa-pydicom-1256-dschat). That "loss" was the probe's: the bridge's provisional block giving way
// to the summary it stood in for (notes/summaries-lost.md, bench/replay/blockOrder.ts). Replays
// 32 sessions on two worker threads: minutes, the benchmark tier.
describe('seed 004 on both corpora: no summary lost or out of order (16k, half-context)', function () {
	this.timeout(30 * 60_000);
	const corpora = [resolve('../shared/corpus'), resolve('../shared/corpus-wide')];

	it('summariesLost and orderViolations are 0 on every session', async function () {
		if (!corpora.every(existsSync)) this.skip();
		const files = corpora.flatMap(dir =>
			readdirSync(dir)
				.filter(f => f.endsWith('.json'))
				.map(f => join(dir, f)),
		);
		assert.equal(files.length, 32);
		const options = { window: 16_000, strategy: 'half-context' as const, clock: 'field' as const, summaryInformation: 30, rateLimits: 0.02 };
		const results = await runTasks(
			files.map(f => ({ files: [f], options })),
			2,
		);
		const bad = results.map(r => r.metrics).filter(m => m.summariesLost !== 0 || m.orderViolations !== 0);
		assert.deepEqual(
			bad.map(m => `${m.session}: lost ${m.summariesLost}, order ${m.orderViolations}`),
			[],
		);
	});
});
