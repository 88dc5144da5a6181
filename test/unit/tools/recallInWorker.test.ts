// longhaul_recall's searches run on RE2 in a worker thread stopped at the time limit: no pattern
// and no line blocks the extension host, a cancel takes effect at once, hits found before a stop
// are kept, and the answers are those of the same search run on this thread.
import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../src/common/conversation/conversation';
import { recall, searchHere, type RecallOptions } from '../../../src/common/recall/recall';
import type { RecallInput } from '../../../src/common/recall/recallInput';
import { recallableRounds } from '../../../src/common/recall/summarizedRounds';
import { TiktokenTokenizer } from '../../../src/common/tokens/tokenizer';
import { RECALL_GRACE_MS, searchRecallInWorker } from '../../../src/tools/recallInWorker';
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
	timeLimitMs: 1000,
	runSearch: job => searchRecallInWorker(job, signal),
	...over,
});

describe('recall searches in a worker thread (security, third pass)', () => {
	before(() => countTokens('warm up the tokenizer, so its first load is not timed'));

	it("[\\s\\S]{1000}x against 100,000 a's does not block the event loop: the worker is stopped at the time limit", async function () {
		this.timeout(20_000);
		const c = conversationOf(round('r0', 'x', 'a'.repeat(100_000), 'S'));
		const { result, lagMs, tookMs } = await maxLag(() => recall(c, { query: '[\\s\\S]{1000}x', isRegexp: true }, inWorker()));
		assert.match(result, /No matches for \/\[\\s\\S\]\{1000\}x\//);
		assert.match(result, /\[the search stopped early: the time limit \(1000 ms\) was reached in round #1;/);
		assert.ok(lagMs < 250, `the event loop was blocked ${lagMs} ms`);
		assert.ok(tookMs >= 1000 && tookMs < 1000 + RECALL_GRACE_MS + 1500, `took ${tookMs} ms`);
	});

	it('control: the same search on this thread blocks the event loop for as long as one match runs', async function () {
		this.timeout(20_000);
		const c = conversationOf(round('r0', 'x', 'a'.repeat(40_000), 'S'));
		const { lagMs } = await maxLag(() => recall(c, { query: '[\\s\\S]{1000}x', isRegexp: true }, inWorker({ runSearch: undefined, timeLimitMs: 60_000 })));
		assert.ok(lagMs > 500, `on this thread the loop was blocked only ${lagMs} ms: the worker test above would prove nothing`);
	});

	it('a cancel ends the search at once', async function () {
		this.timeout(20_000);
		const c = conversationOf(round('r0', 'x', 'a'.repeat(100_000), 'S'));
		const cancel = new AbortController();
		setTimeout(() => cancel.abort(), 200);
		const { result, tookMs } = await maxLag(() => recall(c, { query: '[\\s\\S]{1000}x', isRegexp: true }, inWorker({ timeLimitMs: 10_000 }, cancel.signal)));
		assert.equal(result, 'The search was cancelled.');
		assert.ok(tookMs < 1000, `took ${tookMs} ms`);
	});

	it('keeps the hits found before the stop, and says in which round it stopped', async function () {
		this.timeout(20_000);
		const c = conversationOf(round('r0', 'x', 'first: needle here'), round('r1', 'y', 'b'.repeat(100_000), 'S'));
		const result = await recall(c, { query: 'needle|[\\s\\S]{1000}x', isRegexp: true }, inWorker());
		assert.match(result, /^#1 \(request 1\) call 1 bash \{"command":"cat r0"\} · result, line 1: first: needle here$/m);
		assert.match(result, /the time limit \(1000 ms\) was reached in round #2/);
	});

	it('answers exactly as the same search on this thread', async function () {
		this.timeout(20_000);
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
		const job = { rounds: recallableRounds(c).summarized, input: { query: 'parse' }, stepLimit: 1e6, timeLimitMs: 1000 };
		assert.deepEqual(await searchRecallInWorker(job), await searchHere(job, { now: () => performance.now() }));
	});
});
