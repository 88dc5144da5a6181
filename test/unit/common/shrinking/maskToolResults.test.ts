// Observation masking (cheap-first compaction, issue 7 part 2): which results are masked, in
// which order, how much, and what the placeholders say.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Conversation, Round, ToolCall } from '../../../../src/common/conversation/conversation';
import { elideOldestToolResults } from '../../../../src/common/shrinking/elideToolResults';
import { flattenRounds } from '../../../../src/common/conversation/flatten';
import { MASK_MARGIN_SHARE, maskForOverflow, maskOldToolResults } from '../../../../src/common/shrinking/maskToolResults';
import { isMaskedResult } from '../../../../src/common/conversation/toolResultPlaceholders';
import { roundTokens } from '../../../../src/common/tokens/roundTokens';
import { NothingToSummarizeError, type SummarizationMode } from '../../../../src/common/planning/plan';
import { planSummarization } from '../../../../src/common/planning/planners';
import { argumentDigest, ELIDED_PREFIX, isPlaceholderResult } from '../../../../src/common/conversation/toolResultPlaceholders';
import { deepFreeze } from '../../helpers/conversations';

const countTokens = (text: string) => Math.ceil(text.length / 4);
const MODES: readonly SummarizationMode[] = ['legacy', 'half-context'];

function call(id: string, path: string, resultChars: number, name = 'read_file'): ToolCall {
	return { id: `c-${id}`, name, arguments: JSON.stringify({ path }), result: `${path}:` + 'x'.repeat(resultChars) };
}

function round(id: string, resultChars = 4000, extra: Partial<Round> = {}): Round {
	return { id, response: `response ${id}`, toolCalls: [call(id, `src/${id}.ts`, resultChars)], ...extra };
}

/** Two past turns (4 and 3 rounds) and 5 active rounds, every result ~1,000 tokens. */
function sample(): Conversation {
	return deepFreeze({
		turns: [
			{ user: 'first request', rounds: ['t0r0', 't0r1', 't0r2', 't0r3'].map(id => round(id)) },
			{ user: 'second request', rounds: ['t1r0', 't1r1', 't1r2'].map(id => round(id)) },
		],
		activeRounds: ['a0', 'a1', 'a2', 'a3', 'a4'].map(id => round(id)),
	});
}

const flatRounds = (c: Conversation) => flattenRounds(c).map(f => f.round);
const resultOf = (c: Conversation, roundId: string, callIndex = 0) => flatRounds(c).find(r => r.id === roundId)!.toolCalls[callIndex].result!;

describe('maskOldToolResults: observation masking before summarizing', () => {
	for (const mode of MODES) {
		it(`${mode}: masks exactly the rounds its planner would summarize; the kept rounds stay the same objects`, () => {
			const conversation = sample();
			const plan = planSummarization(conversation, mode);
			const result = maskOldToolResults(conversation, mode, countTokens);
			const before = new Map(flatRounds(conversation).map(r => [r.id, r]));
			for (const r of flatRounds(result.conversation)) {
				if (plan.keepRoundIds.includes(r.id)) {
					assert.equal(r, before.get(r.id), `${r.id} is kept verbatim`);
				} else {
					assert.ok(isMaskedResult(r.toolCalls[0].result!), `${r.id} is masked`);
				}
			}
			assert.equal(result.maskedCalls, plan.summarizeRoundIds.length);
			assert.equal(result.keptRoundCount, plan.keepRoundIds.length);
		});
	}

	it('half-context keeps the newer half (6 of 12 rounds), legacy only the last round', () => {
		assert.equal(maskOldToolResults(sample(), 'half-context', countTokens).maskedCalls, 6);
		assert.equal(maskOldToolResults(sample(), 'legacy', countTokens).maskedCalls, 11);
		assert.ok(!isMaskedResult(resultOf(maskOldToolResults(sample(), 'legacy', countTokens).conversation, 'a4')));
	});

	it('with a target, masks oldest first and stops as soon as the target is freed', () => {
		const conversation = sample();
		const result = maskOldToolResults(conversation, 'half-context', countTokens, { targetTokens: 1500 });
		assert.equal(result.maskedCalls, 2);
		assert.ok(result.freedTokens >= 1500, `freed ${result.freedTokens}`);
		const masked = flatRounds(result.conversation)
			.filter(r => isMaskedResult(r.toolCalls[0].result!))
			.map(r => r.id);
		assert.deepEqual(masked, ['t0r0', 't0r1']);
		// One result fewer would not have been enough.
		const one = maskOldToolResults(conversation, 'half-context', countTokens, { targetTokens: 1 });
		assert.equal(one.maskedCalls, 1);
		assert.ok(one.freedTokens < 1500);
	});

	it('a target of 0 masks nothing and returns the same conversation', () => {
		const conversation = sample();
		const result = maskOldToolResults(conversation, 'half-context', countTokens, { targetTokens: 0 });
		assert.equal(result.maskedCalls, 0);
		assert.equal(result.conversation, conversation);
	});

	it('masks an older exact duplicate first, pointing at the newer call; a same-call with another result is no duplicate', () => {
		const same = call('dup', 'src/same.ts', 2000);
		const conversation: Conversation = deepFreeze({
			turns: [],
			activeRounds: [
				round('a0'),
				round('a1'),
				{ id: 'a2', response: 'read again', toolCalls: [{ ...same, id: 'c-old' }] },
				{ id: 'a3', response: 'same path, new content', toolCalls: [{ ...same, id: 'c-changed', result: same.result + ' edited' }] },
				round('a4'),
				round('a5'),
				round('a6'),
				{ id: 'a7', response: 'read it a third time', toolCalls: [{ ...same, id: 'c-new' }] },
			],
		});
		const result = maskOldToolResults(conversation, 'half-context', countTokens, { targetTokens: 100 });
		assert.equal(result.maskedCalls, 1);
		assert.equal(result.duplicateCalls, 1);
		const placeholder = resultOf(result.conversation, 'a2');
		assert.ok(isMaskedResult(placeholder));
		assert.match(placeholder, /identical to the output of the later call c-new/);
		assert.match(placeholder, /read_file src\/same\.ts/);
		assert.equal(resultOf(result.conversation, 'a0'), conversation.activeRounds[0].toolCalls[0].result, 'the oldest non-duplicate waits');

		const all = maskOldToolResults(conversation, 'half-context', countTokens);
		assert.equal(all.duplicateCalls, 1, 'a3 has the same arguments but another result');
		assert.doesNotMatch(resultOf(all.conversation, 'a3'), /identical/);
		assert.equal(resultOf(all.conversation, 'a7'), same.result, 'the newest copy is kept');
	});

	it('is idempotent: a second pass finds nothing left to mask', () => {
		for (const mode of MODES) {
			const once = maskOldToolResults(sample(), mode, countTokens);
			const twice = maskOldToolResults(once.conversation, mode, countTokens);
			assert.equal(twice.maskedCalls, 0, mode);
			assert.equal(twice.freedTokens, 0, mode);
			assert.equal(twice.conversation, once.conversation, mode);
		}
	});

	it('leaves results the last-resort elision removed alone, and elision leaves masked results alone', () => {
		const elided = elideOldestToolResults(sample(), 1500, countTokens);
		assert.equal(elided.elidedCalls, 2);
		const masked = maskOldToolResults(elided.conversation, 'half-context', countTokens);
		assert.equal(masked.maskedCalls, 4, '6 older rounds, 2 of them already elided');
		assert.ok(resultOf(masked.conversation, 't0r0').startsWith(ELIDED_PREFIX));
		const elidedAgain = elideOldestToolResults(masked.conversation, 1000, countTokens);
		assert.ok(isMaskedResult(resultOf(elidedAgain.conversation, 't0r2')), 'a masked result is not elided again');
		assert.ok(resultOf(elidedAgain.conversation, 't1r2').startsWith(ELIDED_PREFIX), 'elision goes on with the first unmasked result');
	});

	it('placeholders are one line naming the tool, the arguments and the size', () => {
		const conversation: Conversation = deepFreeze({
			turns: [],
			activeRounds: [
				{
					id: 'a0',
					response: 'run',
					toolCalls: [
						{
							id: 'c0',
							name: 'run_in_terminal',
							arguments: JSON.stringify({ command: 'pytest -x\n  tests/test_a.py', timeout: 60 }),
							result: 'line\n'.repeat(3000),
						},
					],
				},
				{ id: 'a1', response: 'raw', toolCalls: [{ id: 'c1', name: 'grep', arguments: 'not json\nat all', result: 'y'.repeat(400) }] },
				round('a2'),
				round('a3'),
			],
		});
		const result = maskOldToolResults(conversation, 'half-context', countTokens);
		const run = resultOf(result.conversation, 'a0');
		assert.equal(run, '[output of run_in_terminal pytest -x tests/test_a.py timeout=60 elided (3,750 tokens); call the tool again if you need it]');
		const raw = resultOf(result.conversation, 'a1');
		assert.equal(raw.split('\n').length, 1);
		assert.match(raw, /^\[output of grep not json at all elided \(100 tokens\);/);
		assert.ok(isPlaceholderResult(run) && isPlaceholderResult(raw));
	});

	it('argument digests are capped at 80 characters and list path-like arguments first', () => {
		assert.equal(argumentDigest(JSON.stringify({ startLine: 1, endLine: 400, path: 'src/a.ts' })), 'src/a.ts startLine=1 endLine=400');
		assert.equal(argumentDigest('{}'), '');
		const long = argumentDigest(JSON.stringify({ query: 'q'.repeat(500) }));
		assert.equal(long.length, 80);
		assert.ok(long.endsWith('…'));
	});

	it('never touches user messages, summaries, responses, arguments, rounds under a summary, or calls without a result', () => {
		const conversation: Conversation = deepFreeze({
			turns: [
				{ user: 'old request', rounds: [round('t0r0'), round('t0r1', 4000, { summary: 'summary of t0r0..t0r1' })] },
				{ user: 'new request', rounds: [round('t1r0'), { ...round('t1r1'), toolCalls: [{ id: 'c-open', name: 'run', arguments: '{}' }] }] },
			],
			activeRounds: [round('a0'), round('a1'), round('a2'), round('a3')],
		});
		const result = maskOldToolResults(conversation, 'half-context', countTokens);
		const after = result.conversation;
		assert.deepEqual(
			after.turns.map(t => t.user),
			['old request', 'new request'],
		);
		assert.equal(after.turns[0], conversation.turns[0], 'rounds under the summary are not shown and stay as they are');
		assert.equal(after.turns[1].rounds[1].toolCalls[0].result, undefined, 'an unanswered call stays unanswered');
		assert.ok(isMaskedResult(resultOf(after, 't1r0')));
		flatRounds(after).forEach((r, i) => {
			const original = flatRounds(conversation)[i];
			assert.equal(r.response, original.response);
			assert.equal(r.summary, original.summary);
			assert.deepEqual(
				r.toolCalls.map(c => [c.id, c.name, c.arguments]),
				original.toolCalls.map(c => [c.id, c.name, c.arguments]),
			);
		});
	});

	it('frees more than the target when needed to keep the older rounds under maxOlderPartTokens', () => {
		const conversation = sample();
		const older = ['t0r0', 't0r1', 't0r2', 't0r3', 't1r0', 't1r1'];
		const olderTokens = flatRounds(conversation)
			.filter(r => older.includes(r.id))
			.reduce((s, r) => s + roundTokens(r, countTokens), 0);
		const result = maskOldToolResults(conversation, 'half-context', countTokens, { targetTokens: 100, maxOlderPartTokens: olderTokens - 2500 });
		assert.equal(result.maskedCalls, 3, 'one result would meet the target; three are needed for the limit');
		assert.equal(result.olderPartTokens, olderTokens - result.freedTokens);
		assert.ok(result.olderPartTokens <= olderTokens - 2500);
		assert.equal(result.declined, undefined);
	});

	it('declines, masking nothing, when even masking every older result would leave the older rounds over the limit', () => {
		const conversation = sample();
		const result = maskOldToolResults(conversation, 'half-context', countTokens, { targetTokens: 100, maxOlderPartTokens: 200 });
		assert.equal(result.declined, 'older-part-too-large');
		assert.equal(result.maskedCalls, 0);
		assert.equal(result.conversation, conversation);
		assert.ok(result.olderPartTokens > 200);
	});

	it('maskForOverflow frees the overflow plus the margin, oldest first', () => {
		const conversation = sample();
		const budget = 20_000;
		const result = maskForOverflow(conversation, 'half-context', countTokens, budget, 1200);
		assert.ok(result.freedTokens >= 1200 + budget * MASK_MARGIN_SHARE);
		assert.equal(result.maskedCalls, 3, '2,200 tokens at about 970 per result');
		assert.ok(isMaskedResult(resultOf(result.conversation, 't0r2')) && !isMaskedResult(resultOf(result.conversation, 't0r3')));
	});

	it('masks nothing when the planner has nothing to summarize', () => {
		const conversation: Conversation = deepFreeze({ turns: [], activeRounds: [round('a0')] });
		for (const mode of MODES) {
			const result = maskOldToolResults(conversation, mode, countTokens);
			assert.equal(result.maskedCalls, 0);
			assert.equal(result.conversation, conversation);
			assert.equal(result.keptRoundCount, 1);
		}
	});
});

// Random conversations with results large enough to mask, some repeated calls, summaries and unanswered calls.
const callArb = fc.record({ file: fc.integer({ min: 0, max: 3 }), size: fc.integer({ min: 0, max: 3000 }), answered: fc.integer({ min: 0, max: 9 }) });
const roundArb = fc.record({ calls: fc.array(callArb, { maxLength: 3 }), summary: fc.integer({ min: 0, max: 14 }) });
const conversationArb = fc
	.record({ turns: fc.array(fc.array(roundArb, { maxLength: 6 }), { maxLength: 4 }), active: fc.array(roundArb, { maxLength: 8 }) })
	.map(spec => {
		const build = (rounds: (typeof spec)['active'], prefix: string): Round[] =>
			rounds.map((r, i) => ({
				id: `${prefix}${i}`,
				response: `response ${prefix}${i}`,
				toolCalls: r.calls.map((c, j) => ({
					id: `${prefix}${i}-${j}`,
					name: 'read_file',
					arguments: JSON.stringify({ path: `f${c.file}.ts` }),
					// Sizes from a small set of lengths per file, so identical results (duplicates) occur.
					...(c.answered === 0 ? {} : { result: `contents of f${c.file}: ` + 'z'.repeat(c.size % 4 === 0 ? 1000 : c.size) }),
				})),
				...(r.summary === 0 ? { summary: `summary at ${prefix}${i}` } : {}),
			}));
		return deepFreeze<Conversation>({
			turns: spec.turns.map((rounds, t) => ({ user: `request ${t}`, rounds: build(rounds, `t${t}r`) })),
			activeRounds: build(spec.active, 'a'),
		});
	});

describe('maskOldToolResults properties (fast-check)', () => {
	it('keeps the kept rounds, pairs every call, meets the target when it can, and is idempotent', () => {
		fc.assert(
			fc.property(
				conversationArb,
				fc.constantFrom(...MODES),
				fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
				(conversation, mode, targetTokens) => {
					let keep: readonly string[];
					try {
						keep = planSummarization(conversation, mode).keepRoundIds;
					} catch (error) {
						if (!(error instanceof NothingToSummarizeError)) throw error;
						keep = [];
					}
					const result = maskOldToolResults(conversation, mode, countTokens, { targetTokens });
					const before = flatRounds(conversation);
					const after = flatRounds(result.conversation);
					assert.equal(after.length, before.length);
					assert.deepEqual(
						result.conversation.turns.map(t => t.user),
						conversation.turns.map(t => t.user),
					);
					let changed = 0;
					after.forEach((r, i) => {
						const o = before[i];
						if (keep.includes(r.id)) assert.equal(r, o);
						assert.equal(r.summary, o.summary);
						assert.equal(r.toolCalls.length, o.toolCalls.length);
						r.toolCalls.forEach((c, j) => {
							assert.equal(c.id, o.toolCalls[j].id);
							assert.equal(c.result === undefined, o.toolCalls[j].result === undefined);
							if (c.result !== o.toolCalls[j].result) {
								changed++;
								assert.ok(isMaskedResult(c.result!));
							}
						});
					});
					assert.equal(changed, result.maskedCalls);
					const rest = maskOldToolResults(result.conversation, mode, countTokens);
					if (targetTokens === undefined) {
						assert.equal(rest.maskedCalls, 0, 'idempotent');
					} else if (result.freedTokens < targetTokens) {
						assert.equal(rest.maskedCalls, 0, 'short of the target only when nothing is left to mask');
					}
				},
			),
			{ numRuns: 300 },
		);
	});
});
