// longhaul_recall's searches run on RE2 in a worker thread stopped at the time limit: no pattern
// and no line blocks the extension host, a cancel takes effect at once, hits found before a stop
// are kept, and the answers are those of the same search run on this thread.
import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../src/common/conversation/conversation';
import { recall, searchHere, type RecallOptions } from '../../../src/common/recall/recall';
import type { RecallInput } from '../../../src/common/recall/recallInput';
import { recallableRounds } from '../../../src/common/recall/summarizedRounds';
import { TiktokenTokenizer } from '../../../src/common/tokens/tokenizer';
import { searchRecallInWorker } from '../../../src/tools/recallInWorker';
import { maxLag } from '../helpers/eventLoopLag';

const tokenizer = new TiktokenTokenizer();
const countTokens = (t: string) => tokenizer.countTokens(t);

let n = 0;
const round = (id: string, response: string, result: string, summary?: string): Round => ({
	id,
	response,
	toolCalls: [{ id: `c${++n}`, name: 'bash', arguments: JSON.stringify({ command: `cat ${id}` }), result }],
	...(summary ? { summary } : {}),
});
const conversationOf = (...rounds: Round[]): Conversation => ({ turns: [{ user: 'look around', rounds }], activeRounds: [] });

const inWorker = (over: Partial<RecallOptions> = {}, signal?: AbortSignal): RecallOptions => ({
	maxTokens: 4000,
	countTokens,
	now: () => performance.now(),
	// Far above what these searches need, also on a loaded machine: the tests that are about the
	// time limit set their own.
	timeLimitMs: 60_000,
	runSearch: job => searchRecallInWorker(job, signal),
	...over,
});

// The length of a line that [\s\S]{1000}x searches for longer than any time limit below, on any
// machine: RE2 is linear, but with 1,000 states per character (about 20 µs a character here, so
// 20 s for a million).
const SLOW_LINE = 1_000_000;

// These tests assert what happened, not how fast: a loaded machine (2 cores shared by several test
// runs) starts a worker late and runs everything slower, and none of the assertions below depends
// on that. The speed of searches is for benchmarks.
describe('recall searches in a worker thread (security, third pass)', () => {
	before(function () {
		// Loading the tokenizer blocks the loop once; under load it can take more than mocha's 20 s.
		this.timeout(120_000);
		countTokens('warm up the tokenizer, so its first load does not count as a blocked loop');
	});

	it("[\\s\\S]{1000}x against 1,000,000 a's does not block the event loop: the worker is stopped at the time limit", async function () {
		this.timeout(60_000);
		const c = conversationOf(round('r0', 'x', 'a'.repeat(SLOW_LINE), 'S'));
		const { result, lagMs, tookMs } = await maxLag(() => recall(c, { query: '[\\s\\S]{1000}x', isRegexp: true }, inWorker({ timeLimitMs: 1000 })));
		assert.match(result, /No matches for \/\[\\s\\S\]\{1000\}x\//);
		// "reached;" or "reached in round #1;" is the host's stop (recallInWorker.ts): the worker's own
		// check says "at round", and with one round it never gets to make it.
		assert.match(result, /\[the search stopped early: the time limit \(1000 ms\) was reached(?: in round #1)?;/);
		assert.ok(tookMs >= 1000, `stopped after ${tookMs} ms, before its time limit`);
		// The loop kept turning while the worker searched: never blocked for a quarter of the search
		// (on this thread, the control below, it is blocked for most of it).
		assert.ok(lagMs < tookMs / 4, `the event loop was blocked ${lagMs} ms of ${tookMs} ms`);
	});

	it('control: the same search on this thread blocks the event loop for as long as one match runs', async function () {
		this.timeout(120_000);
		const c = conversationOf(round('r0', 'x', 'a'.repeat(20_000), 'S'));
		const { lagMs, tookMs } = await maxLag(() => recall(c, { query: '[\\s\\S]{1000}x', isRegexp: true }, inWorker({ runSearch: undefined })));
		assert.ok(lagMs > tookMs / 2, `on this thread the loop was blocked only ${lagMs} ms of ${tookMs} ms: the worker test above would prove nothing`);
	});

	it('a cancel ends the search at once', async function () {
		this.timeout(60_000);
		const c = conversationOf(round('r0', 'x', 'a'.repeat(SLOW_LINE), 'S'));
		const cancel = new AbortController();
		setTimeout(() => cancel.abort(), 200);
		// With a minute's time limit and a line that takes longer, only the cancel can end it before
		// the test's own timeout; the cancel's timer can only fire while the search leaves the loop free.
		const result = await recall(c, { query: '[\\s\\S]{1000}x', isRegexp: true }, inWorker({}, cancel.signal));
		assert.equal(result, 'The search was cancelled.');
	});

	it('keeps the hits found before the stop, and says in which round it stopped', async function () {
		this.timeout(60_000);
		const c = conversationOf(round('r0', 'x', 'first: needle here'), round('r1', 'y', 'b'.repeat(SLOW_LINE), 'S'));
		// Time enough for a late worker to start and search round #1 (one short line); round #2 is
		// stopped by the host whatever the machine.
		const result = await recall(c, { query: 'needle|[\\s\\S]{1000}x', isRegexp: true }, inWorker({ timeLimitMs: 4000 }));
		assert.match(result, /^#1 \(request 1\) call 1 bash \{"command":"cat r0"\} · result, line 1: first: needle here$/m);
		assert.match(result, /the time limit \(4000 ms\) was reached in round #2/);
	});

	it('answers exactly as the same search on this thread', async function () {
		this.timeout(120_000);
		const c = conversationOf(
			round('r0', 'Reading the parser.', 'export function parse() {\n  throw new Error("E_PARSE_42");\n}'),
			round('r1', 'Running tests.', 'exit code 1\nFAIL parser.test.ts\n  Expected E_PARSE_42 to equal ok'),
			round('r2', 'Listing.', 'lexer.ts\nparser.ts', 'S'),
		);
		const inputs: RecallInput[] = [
			{ query: 'e_parse_42' },
			{ query: 'E_PARSE_\\d+', isRegexp: true },
			{ query: '^fail\\b', isRegexp: true },
			{ query: '\\u0045_PARSE', isRegexp: true },
			{ query: '(E)\\1', isRegexp: true },
			{ query: '(?=E)', isRegexp: true },
			{ query: '[', isRegexp: true },
			{ tool: 'bash' },
			{ query: 'ts', maxResults: 2 },
			{},
		];
		for (const input of inputs) {
			const here = await recall(c, input, inWorker({ runSearch: undefined }));
			assert.equal(await recall(c, input, inWorker()), here, JSON.stringify(input));
		}
		assert.match(await recall(c, { query: '(E)\\1', isRegexp: true }, inWorker()), /^Cannot use the regular expression "\(E\)\\\\1": backreferences/);
		assert.match(await recall(c, { query: '(?<!x)E', isRegexp: true }, inWorker()), /lookahead and lookbehind .* are not supported/);
		const job = { rounds: recallableRounds(c).summarized, input: { query: 'parse' }, stepLimit: 1e6, timeLimitMs: 60_000 };
		assert.deepEqual(await searchRecallInWorker(job), await searchHere(job, { now: () => performance.now() }));
	});
});
