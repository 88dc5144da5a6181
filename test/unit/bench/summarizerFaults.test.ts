// The summarizer faults of the replay (bench/replay/summarizerFaults.ts) and the stand-in model's
// content-dependent count (standInModel.ts): pure functions, read through the product's own
// summaryOfReply where the reply matters.
import * as assert from 'node:assert/strict';
import { contentRatio, standInCount } from '../../../bench/replay/standInModel';
import { FAULT_KINDS, echoOf, endingOf, faultFor, standInReply, type FaultKind } from '../../../bench/replay/summarizerFaults';
import { summaryOfReply } from '../../../src/prompts/extractSummary';

const SUMMARY = 'The user asked to fix the parser. Edited src/parser.py twice. The tests pass now. Next: the empty input case.';

describe('bench summarizer faults', () => {
	it('fails about the share asked for, the same calls every time, with every kind of fault', () => {
		const draws = Array.from({ length: 2000 }, (_, i) => faultFor('session-a', i, 0.2));
		const share = draws.filter(d => d !== undefined).length / draws.length;
		assert.ok(share > 0.17 && share < 0.23, `share ${share}`);
		assert.deepEqual(
			Array.from({ length: 2000 }, (_, i) => faultFor('session-a', i, 0.2)),
			draws,
		);
		assert.deepEqual(new Set(draws.filter(d => d !== undefined)), new Set(FAULT_KINDS));
		assert.ok(Array.from({ length: 200 }, (_, i) => faultFor('session-a', i, 0)).every(d => d === undefined));
		assert.notDeepEqual(
			Array.from({ length: 50 }, (_, i) => faultFor('session-b', i, 0.2)),
			draws.slice(0, 50),
		);
	});

	it('writes replies the product reads as a summary, none, a cut-off reply, or no summary', () => {
		const prompt = `You write the memory...\n<previous-summary>\nOlder work.\n</previous-summary>\n\n<conversation-transcript>\n<user>\nfix it\n</user>`;
		const read = (fault: FaultKind | undefined) => summaryOfReply(standInReply(SUMMARY, fault, () => `${SUMMARY} ${SUMMARY}`, prompt));
		assert.deepEqual(read(undefined), { kind: 'summary', text: SUMMARY, tagged: true });
		assert.throws(() => read('error'));
		assert.equal(read('empty'), undefined);
		assert.deepEqual(read('no-tags'), { kind: 'summary', text: SUMMARY, tagged: false });
		assert.deepEqual(read('over-cap'), { kind: 'summary', text: `${SUMMARY} ${SUMMARY}`, tagged: true });
		const cut = read('cut-off');
		assert.ok(cut?.kind === 'cut-off' && cut.partial !== undefined && SUMMARY.startsWith(cut.partial) && cut.partial.length < SUMMARY.length);
		assert.equal(read('echo')?.kind, 'echo');
		assert.ok(echoOf(prompt).startsWith('<previous-summary>'));
		for (const kind of ['refusal', 'few-tokens'] as const) {
			const reply = read(kind);
			assert.ok(reply?.kind === 'summary' && !reply.tagged && reply.text.split(' ').length < 12, kind);
		}
	});

	it('names how each fault ended from where it hit and what the flow made', () => {
		const hit = (kind: FaultKind, mode: 'full' | 'simple', pass?: 'condense') => ({ kind, mode, ...(pass ? { pass } : {}), retried: false });
		assert.equal(endingOf({ ...hit('error', 'full'), retried: true }, { summary: 's', mode: 'full' }, 'foreground'), 'retry');
		assert.equal(endingOf(hit('over-cap', 'full'), { summary: 's', mode: 'full', condensed: true }, 'foreground'), 'condense');
		assert.equal(endingOf(hit('cut-off', 'full'), { summary: 's', mode: 'simple' }, 'foreground'), 'simple');
		assert.equal(endingOf(hit('no-tags', 'full', 'condense'), { summary: 's', mode: 'full', condensed: true }, 'foreground'), 'read');
		assert.equal(endingOf(hit('empty', 'simple'), {}, 'foreground'), 'truncation');
		assert.equal(endingOf(hit('empty', 'simple'), {}, 'background'), 'retry');
		assert.equal(endingOf(hit('empty', 'simple'), {}, 'reference'), 'other');
	});
});

describe('bench stand-in model count', () => {
	const code = ['  def f(x):', '      return {"a": x[0]}', '/work/testbed/src/marshmallow/fields.py'].join('\n');
	const prose = ['The user asked for a fix of the parser.', 'It fails on empty input and the tests show it.'].join('\n');

	it('counts code-like lines more than prose, with R as the mean of the two levels', () => {
		assert.ok(contentRatio(code, 1.25) > 1.25 && contentRatio(prose, 1.25) < 1.25);
		const mixed = contentRatio(`${code}\n${prose}`, 1.25);
		assert.ok(mixed > contentRatio(prose, 1.25) && mixed < contentRatio(code, 1.25));
		assert.ok(Math.abs((contentRatio(code, 1.25) + contentRatio(prose, 1.25)) / 2 - 1.25) < 1e-9);
	});

	it('scales with R and with the local count, the same for the same text', () => {
		assert.ok(standInCount(1000, prose, 2) > standInCount(1000, prose, 1));
		assert.ok(standInCount(2000, code, 1.25) > standInCount(1000, code, 1.25));
		assert.equal(standInCount(1234, code, 1.25), standInCount(1234, code, 1.25));
	});
});
