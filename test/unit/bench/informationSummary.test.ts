// The information-limited stand-in summarizer (bench/replay/informationSummary.ts): the length the
// prompt asks, a share N of the facts in its own words (no line of a tool result, no JSON), filler
// for the rest, the same facts at every N above their draw; and the intact horizon's rule.
import * as assert from 'node:assert/strict';
import type { Round, ToolCall } from '../../../src/common/conversation/conversation';
import type { SummarizerEntry } from '../../../src/common/summaries/summarizerInput';
import { TiktokenTokenizer } from '../../../src/common/tokens/tokenizer';
import { factChosen, FILLER_LINE, informationSummary } from '../../../bench/replay/informationSummary';
import { sampleDetails } from '../../../bench/knowledge/details';
import { summaryHolds } from '../../../bench/knowledge/knowledgeProbe';
import { intactRounds } from '../../../bench/replay/masking';

const bash = (command: string, result: string): ToolCall => ({ id: `c-${command}`, name: 'bash', arguments: JSON.stringify({ command }), result });

describe('the information-limited stand-in summary', () => {
	const tok = new TiktokenTokenizer();
	const rounds: Round[] = Array.from({ length: 24 }, (_, i) => ({
		id: `r${i}`,
		response: `Checking module ${i} next.`,
		toolCalls: [
			bash(
				`python -m pytest tests/test_mod${i}.py`,
				`<returncode>1</returncode>\nAssertionError: expected_value_${i} differs from computed_total_${i}\n1 failed`,
			),
		],
	}));
	const entries: SummarizerEntry[] = [{ kind: 'user', text: 'Fix the failing tests.' }, ...rounds.map(round => ({ kind: 'round' as const, round }))];
	const details = sampleDetails({ turns: [{ user: 'Fix the failing tests.', rounds }], activeRounds: [] });

	it('is filler only at N = 0: no fact, no detail held', () => {
		const summary = informationSummary(entries, undefined, 400, 0, tok);
		assert.deepEqual([...new Set(summary.split('\n'))], [FILLER_LINE]);
		assert.ok(details.length > 0 && details.every(d => !summaryHolds([summary], d)));
	});

	it('is as long as asked, copies no result line and writes no JSON', () => {
		for (const n of [30, 100]) {
			const summary = informationSummary(entries, undefined, 600, n, tok);
			const tokens = tok.countTokens(summary);
			assert.ok(tokens <= 600 && tokens >= 560, `${n}: ${tokens} tokens`);
			assert.ok(!summary.includes('{"') && !summary.includes('<returncode>'), 'no JSON, no raw result');
			for (const r of rounds) for (const line of r.toolCalls[0].result!.split('\n')) assert.ok(line.length < 12 || !summary.includes(line), line);
		}
	});

	it('states more facts as N grows, the same ones at every N above their draw', () => {
		const facts = (n: number) =>
			new Set(
				informationSummary(entries, undefined, 20_000, n, tok)
					.split('\n')
					.filter(l => l.startsWith('- ')),
			);
		const [f30, f60, f100] = [facts(30), facts(60), facts(100)];
		assert.ok(f30.size < f60.size && f60.size < f100.size, `${f30.size} < ${f60.size} < ${f100.size}`);
		for (const f of f30) assert.ok(f60.has(f), f);
		assert.ok(
			details.every(d => summaryHolds([...f100].join('\n').split('\n'), d)),
			'at N = 100 every detail is held in its own words',
		);
		assert.ok(factChosen('anything', 100) && !factChosen('anything', 0));
	});

	it("keeps the previous summary's facts and drops its filler", () => {
		const first = informationSummary(entries.slice(0, 5), undefined, 300, 100, tok);
		const second = informationSummary(entries.slice(5, 8), first, 2000, 100, tok);
		for (const line of first.split('\n').filter(l => l.startsWith('- '))) assert.ok(second.includes(line), line);
	});
});

describe('the intact horizon', () => {
	const round = (id: string, result: string): Round => ({ id, response: '', toolCalls: [bash('ls', result)] });
	const all = [round('a', 'one'), round('b', 'two'), round('c', 'three')];
	it('counts the newest rounds shown with every result whole; a masked or cut round is not intact', () => {
		assert.equal(intactRounds(all, all), 3);
		assert.equal(intactRounds(all, [all[0], round('b', '[output of bash ls elided (9 tokens); recall it]'), all[2]]), 1, 'masked');
		assert.equal(intactRounds(all, [all[0], all[1], round('c', 'thr… [cut]')]), 0, 'cut');
		assert.equal(intactRounds(all, [all[1], all[2]]), 2, 'a dropped older round ends the count there');
	});
});
