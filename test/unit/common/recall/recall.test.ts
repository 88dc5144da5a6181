// Recall over a conversation: which rounds it may read, searching them (text, regular expression,
// tool, path), reading one word for word within a cap and paging through it, the time and work
// limits, the input checks, masked and elided rounds, and when the tool is offered.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Conversation, Round, ToolCall } from '../../../../src/common/conversation/conversation';
import { recall, roundRecord, type RecallOptions } from '../../../../src/common/recall/recall';
import { parseRecallInput, RECALL_TOOL_NAME } from '../../../../src/common/recall/recallInput';
import { hasRecallableRounds, recallableRounds, withRecordedRounds } from '../../../../src/common/recall/summarizedRounds';
import { isMaskedResult, maskedPlaceholder } from '../../../../src/common/conversation/toolResultPlaceholders';
import { maskOldToolResults } from '../../../../src/common/shrinking/maskToolResults';
import { decodeTurnRecord, encodeTurnRecord, STORED_RESULT_MAX_CHARS } from '../../../../src/common/persistence/metadata';
import { toolsOfferedNow } from '../../../../src/common/tools/toolSelection';
import { agentInstructions } from '../../../../src/prompts/agentInstructions';
import { TiktokenTokenizer } from '../../../../src/common/tokens/tokenizer';

const tokenizer = new TiktokenTokenizer();
const countTokens = (t: string) => tokenizer.countTokens(t);
const options = (over: Partial<RecallOptions> = {}): RecallOptions => ({
	maxTokens: 4000,
	countTokens,
	now: () => performance.now(),
	timeLimitMs: 5000,
	...over,
});

let n = 0;
const call = (name: string, args: object, result?: string): ToolCall => ({
	id: `c${++n}`,
	name,
	arguments: JSON.stringify(args),
	...(result === undefined ? {} : { result }),
});
const round = (id: string, response: string, calls: ToolCall[], summary?: string): Round => ({
	id,
	response,
	toolCalls: calls,
	...(summary ? { summary } : {}),
});

/** Two past turns and an active request; rounds up to t1r0 are summarized. */
function conversation(): Conversation {
	return {
		turns: [
			{
				user: 'Fix the parser',
				rounds: [
					round('t0r0', 'Reading the parser.', [
						call(
							'longhaul_readFile',
							{ path: 'src/parser.ts' },
							'src/parser.ts lines 1-3 of 3\n1: export function parse() {\n2:   throw new Error("E_PARSE_42");\n3: }',
						),
					]),
					round('t0r1', 'Running the tests.', [
						call('longhaul_runCommand', { command: 'npm test' }, 'exit code 1\nFAIL parser.test.ts\n  Expected E_PARSE_42 to equal ok'),
					]),
				],
			},
			{
				user: 'Now the lexer',
				rounds: [
					round(
						't1r0',
						'Editing.',
						[call('longhaul_editFile', { path: 'src/lexer.ts', oldText: 'a', newText: 'b' }, 'Edited src/lexer.ts at line 3.')],
						'SUMMARY: parser read, tests fail, lexer edited',
					),
					round('t1r1', 'Listing.', [call('longhaul_listDirectory', { path: 'src' }, 'lexer.ts\nparser.ts')]),
				],
			},
		],
		activeRounds: [round('a0', 'Still working.', [call('longhaul_readFile', { path: 'src/lexer.ts' }, 'recent text')])],
	};
}

describe('recall', () => {
	it('reads only the summarized rounds, numbered across the whole conversation', () => {
		const rounds = recallableRounds(conversation(), 'current request');
		assert.deepEqual(
			rounds.summarized.map(r => [r.number, r.request, r.round.id]),
			[
				[1, 1, 't0r0'],
				[2, 1, 't0r1'],
				[3, 2, 't1r0'],
			],
		);
		assert.equal(rounds.total, 5);
		assert.deepEqual(rounds.requests, ['Fix the parser', 'Now the lexer', 'current request']);
	});

	it('says when nothing is summarized yet', async () => {
		const c: Conversation = { turns: [], activeRounds: [round('a0', 'x', [])] };
		assert.match(await recall(c, { query: 'x' }, options()), /Nothing in this conversation has been summarized yet/);
	});

	it('searches text case-insensitively in results, arguments and the agent text, and never beyond the summarized rounds', async () => {
		const c = conversation();
		const text = await recall(c, { query: 'e_parse_42' }, options());
		assert.match(text, /^Searched summarized rounds #1–#3 \(of 5\)\. 2 matches for "e_parse_42":$/m);
		assert.match(text, /^#1 \(request 1\) call 1 longhaul_readFile \{"path":"src\/parser\.ts"\} · result, line 3: 2:\s+throw new Error\("E_PARSE_42"\);$/m);
		assert.match(text, /^#2 \(request 1\) call 1 longhaul_runCommand \{"command":"npm test"\} · result, line 3: Expected E_PARSE_42 to equal ok$/m);
		assert.match(await recall(c, { query: 'recent text' }, options()), /No matches for "recent text"/, 'the unsummarized rounds are not searched');
		assert.match(await recall(c, { query: 'lexer.ts\nparser' }, options()), /No matches/);
	});

	it('filters by tool name and by path, and lists matching calls without a query', async () => {
		const c = conversation();
		const byTool = await recall(c, { tool: 'runCommand' }, options());
		assert.match(byTool, /1 calls with tool "runCommand":\n#2 \(request 1\) call 1 longhaul_runCommand \{"command":"npm test"\}/);
		const byPath = await recall(c, { path: './src/lexer.ts' }, options());
		assert.match(byPath, /^#3 \(request 2\) call 1 longhaul_editFile/m);
		assert.doesNotMatch(byPath, /#1 /);
		const both = await recall(c, { query: 'edited', path: 'src/lexer.ts' }, options());
		assert.match(
			both,
			/matches for "edited" in calls with path "src\/lexer\.ts":\n#3 \(request 2\) call 1 longhaul_editFile .* · result, line 1: Edited src\/lexer\.ts at line 3\.$/m,
		);
		const overview = await recall(c, {}, options());
		assert.match(overview, /\. 3 summarized rounds:\n#1 \(request 1\) longhaul_readFile/);
	});

	it('regular expressions: matches, a readable error for unsupported syntax, no hang on catastrophic patterns', async () => {
		const c = conversation();
		assert.match(await recall(c, { query: 'E_PARSE_\\d+', isRegexp: true }, options()), /2 matches for \/E_PARSE_\\d\+\//);
		assert.match(await recall(c, { query: '(E)\\1', isRegexp: true }, options()), /^Cannot use the regular expression "\(E\)\\\\1": backreferences/);
		const long: Conversation = {
			turns: [{ user: 'x', rounds: [round('r0', 'x', [call('bash', { command: 'cat big' }, 'a'.repeat(50_000) + '!')], 'S')] }],
			activeRounds: [],
		};
		const started = performance.now();
		const answer = await recall(long, { query: '(a+)+$', isRegexp: true }, options());
		assert.match(answer, /No matches/);
		assert.ok(performance.now() - started < 5000, 'a catastrophic pattern finishes (linear engine)');
	});

	it('stops at the time limit or the work limit and says where', async () => {
		const c = conversation();
		let clock = 0;
		const slow = await recall(c, { query: 'x' }, options({ now: () => (clock += 1000), timeLimitMs: 1500 }));
		assert.match(slow, /\[the search stopped early: the time limit \(1500 ms\) was reached at round #2; narrow it/);
		const little = await recall(c, { query: 'e.*z', isRegexp: true }, options({ stepLimit: 50 }));
		assert.match(little, /the search stopped early: the work limit was reached/);
	});

	it('pauses during long searches so the host can do other work', async () => {
		const big: Conversation = {
			turns: [
				{
					user: 'x',
					rounds: Array.from({ length: 200 }, (_, i) =>
						round(`r${i}`, 'x', [call('bash', { command: 'ls' }, 'line\n'.repeat(500))], i === 199 ? 'S' : undefined),
					),
				},
			],
			activeRounds: [],
		};
		let clock = 0;
		let pauses = 0;
		await recall(big, { query: 'nothing here' }, options({ now: () => (clock += 3), pause: async () => void pauses++ }));
		assert.ok(pauses > 10, `${pauses} pauses`);
	});

	it('reads a round word for word; a long one is cut within the cap and continues from an offset', async () => {
		const c = conversation();
		const read = await recall(c, { round: 2 }, options());
		assert.equal(
			read,
			'Round #2 (request 1: "Fix the parser"), summarized; word for word from the stored conversation:\n' +
				"Agent's text: Running the tests.\n" +
				'--- call 1 of 1: longhaul_runCommand {"command":"npm test"}\n' +
				'exit code 1\nFAIL parser.test.ts\n  Expected E_PARSE_42 to equal ok',
		);
		assert.match(await recall(c, { round: 4 }, options()), /Round #4 is not summarized: it is in the conversation above/);
		assert.match(await recall(c, { round: 9 }, options()), /There is no round #9\. Summarized rounds: #1–#3\./);

		const result = Array.from({ length: 3000 }, (_, i) => `output line ${i}`).join('\n');
		const long: Conversation = { turns: [{ user: 'x', rounds: [round('r0', 'go', [call('bash', { command: 'make' }, result)], 'S')] }], activeRounds: [] };
		const record = roundRecord(long.turns[0].rounds[0]);
		let offset = 0;
		let rebuilt = '';
		for (let page = 0; page < 100; page++) {
			const text = await recall(long, { round: 1, ...(offset ? { offset } : {}) }, options({ maxTokens: 2000 }));
			assert.ok(countTokens(text) <= 2000, `page ${page}: ${countTokens(text)} tokens`);
			const body = text.slice(text.indexOf(':\n') + 2);
			const more = /\n\[\.\.\. (\d+) more characters of round #1; read on with \{"round":1,"offset":(\d+)\}\]$/.exec(body);
			rebuilt += more ? body.slice(0, more.index) : body;
			if (!more) break;
			offset = Number(more[2]);
			assert.equal(Number(more[1]), record.length - offset);
		}
		assert.equal(rebuilt, record, 'the pages put together are the round word for word');
	});

	it('gives back the recorded results of this request, not the masked ones the prompt shows', () => {
		const recorded = round('a0', 'x', [call('bash', { command: 'ls' }, 'the real output')]);
		const masked = { ...recorded, toolCalls: [{ ...recorded.toolCalls[0], result: '[output elided]' }], summary: 'S' };
		const view = withRecordedRounds({ turns: [], activeRounds: [masked] }, new Map([['a0', recorded]]));
		assert.equal(view.activeRounds[0].toolCalls[0].result, 'the real output');
		assert.equal(view.activeRounds[0].summary, 'S');
	});

	it("reads masked and elided rounds too: the request's own as recorded, before anything is summarized, and is offered for them", async () => {
		const recordedRound = round('m0', 'look', [call('bash', { command: 'cat notes.txt' }, 'first line\nthe needle line\nlast line')]);
		const masked: Round = { ...recordedRound, toolCalls: [{ ...recordedRound.toolCalls[0], result: maskedPlaceholder(recordedRound.toolCalls[0], 12) }] };
		const kept = round('m1', 'next', [call('bash', { command: 'ls' }, 'a b')]);
		const c: Conversation = { turns: [], activeRounds: [masked, kept] };
		assert.ok(hasRecallableRounds(c), 'a masked result makes recall useful');
		assert.ok(!hasRecallableRounds({ turns: [], activeRounds: [recordedRound, kept] }), 'nothing summarized, masked or elided');
		const rounds = recallableRounds(c, 'req', new Map([['m0', recordedRound]]));
		assert.deepEqual(
			rounds.summarized.map(r => [r.number, r.round.toolCalls[0].result]),
			[[1, recordedRound.toolCalls[0].result]],
		);
		const found = await recall(c, { query: 'needle' }, options({ currentRequest: 'req', recorded: new Map([['m0', recordedRound]]) }));
		assert.match(found, /#1 \(request 1\) call 1 bash .* result, line 2: the needle line/);
		// Without the recorded round only the placeholder is there.
		assert.match(await recall(c, { query: 'needle' }, options()), /No matches for "needle"/);
		assert.match(await recall(c, { round: 2 }, options()), /Round #2 is not summarized/);
	});

	it('gives back a result masked in an earlier request: the stored turn keeps what the tool returned beside the placeholder', async () => {
		const lines = Array.from({ length: 60 }, (_, i) => `line ${i}: ${i === 41 ? 'the needle of an older request' : 'filler text of a long output'}`);
		const rounds = [round('p0', 'read', [call('bash', { command: 'cat big.txt' }, lines.join('\n'))])];
		for (let i = 1; i < 8; i++) rounds.push(round(`p${i}`, `step ${i}`, [call('bash', { command: `echo ${i}` }, `output ${i}`)]));
		const masked = maskOldToolResults({ turns: [], activeRounds: rounds }, 'half-context', countTokens);
		assert.ok(masked.maskedCalls >= 1 && isMaskedResult(masked.conversation.activeRounds[0].toolCalls[0].result!), 'the old read is masked');
		// The request ends: its rounds are stored as the prompt showed them, then read back by the next request.
		const stored = JSON.parse(JSON.stringify(encodeTurnRecord({ rounds: masked.conversation.activeRounds }))) as unknown;
		const record = decodeTurnRecord(stored).record;
		assert.ok(record, 'the record reads back');
		const next: Conversation = { turns: [{ user: 'first request', rounds: record.rounds }], activeRounds: [] };
		assert.ok(isMaskedResult(next.turns[0].rounds[0].toolCalls[0].result!), 'the next prompt still shows the placeholder');
		const found = await recall(next, { query: 'needle of an older' }, options({ currentRequest: 'second request' }));
		assert.match(found, /#1 \(request 1\) call 1 bash .* line 42: line 41: the needle of an older request/);
		assert.equal((await recall(next, { round: 1 }, options())).includes(lines.join('\n')), true, 'the round reads back word for word');
		// A record stored before this field existed holds only the placeholder: recall says it found nothing, it does not invent.
		const { recorded: _dropped, ...oldCall } = record.rounds[0].toolCalls[0];
		const old: Conversation = {
			turns: [{ user: 'first request', rounds: [{ ...record.rounds[0], toolCalls: [oldCall] }, ...record.rounds.slice(1)] }],
			activeRounds: [],
		};
		assert.match(await recall(old, { query: 'needle of an older' }, options()), /No matches/);
	});

	it('stores the result a placeholder replaced under the same cap as any result', () => {
		const long = 'y'.repeat(STORED_RESULT_MAX_CHARS * 2);
		const masked: Round = { id: 'q0', response: '', toolCalls: [{ id: 'k', name: 'bash', arguments: '{}', result: '[masked]', recorded: long }] };
		const storedCall = encodeTurnRecord({ rounds: [masked] }).rounds[0].toolCalls[0];
		assert.equal(storedCall.result, '[masked]');
		assert.ok(
			storedCall.recorded!.length <= STORED_RESULT_MAX_CHARS && storedCall.recorded!.startsWith('yyy'),
			`${storedCall.recorded!.length} characters stored`,
		);
	});

	it('checks its input and says what is wrong', () => {
		const error = (raw: unknown) => {
			const parsed = parseRecallInput(raw);
			return 'error' in parsed ? parsed.error : 'ok';
		};
		assert.equal(error({ query: 'x' }), 'ok');
		assert.equal(error({ round: 3, offset: 10 }), 'ok');
		assert.match(error('x'), /must be an object/);
		assert.match(error({ query: 3 }), /"query" must be a string/);
		assert.match(error({ round: 0 }), /"round" must be a whole number ≥ 1/);
		assert.match(error({ round: 1.5 }), /whole number/);
		assert.match(error({ offset: 5 }), /"offset" goes with "round"/);
		assert.match(error({ round: 2, query: 'x' }), /either "round".*or "query"/);
		assert.match(error({ isRegexp: true }), /needs a "query"/);
		assert.match(error({ query: 'x'.repeat(1001) }), /longer than 1000/);
		fc.assert(fc.property(fc.anything(), raw => void parseRecallInput(raw)));
	});

	it('is offered, and named in the instructions, only once something is summarized', () => {
		const tools = [{ name: 'longhaul_readFile' }, { name: RECALL_TOOL_NAME }];
		assert.deepEqual(
			toolsOfferedNow(tools, false).map(t => t.name),
			['longhaul_readFile'],
		);
		assert.deepEqual(
			toolsOfferedNow(tools, true).map(t => t.name),
			['longhaul_readFile', RECALL_TOOL_NAME],
		);
		const instructions = (names: string[]) => agentInstructions({ toolNames: names, workspace: 'w', hasDoneLedger: false });
		assert.doesNotMatch(instructions(['longhaul_readFile']), /longhaul_recall/);
		assert.match(instructions(['longhaul_readFile', RECALL_TOOL_NAME]), /The rounds a summary replaced are still stored: longhaul_recall searches them/);
	});
});
