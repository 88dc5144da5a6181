import * as assert from 'node:assert/strict';
import { produceSummary, type SummaryFlowDeps, type SummaryPromptMode } from '../../../src/common/summarizationFlow';

class TooLarge extends Error {}
class Cancelled extends Error {}

function deps(script: Partial<Record<SummaryPromptMode, { render?: 'too-large'; reply?: string | Error }>>): SummaryFlowDeps<SummaryPromptMode> & { sent: SummaryPromptMode[] } {
	const sent: SummaryPromptMode[] = [];
	return {
		sent,
		async render(mode) {
			if (script[mode]?.render === 'too-large') throw new TooLarge('does not fit');
			return { prompt: mode, tokenCount: 100 };
		},
		async send(mode) {
			sent.push(mode);
			const reply = script[mode]?.reply;
			if (reply instanceof Error) throw reply;
			return reply;
		},
		countTokens: text => text.split(/\s+/).filter(Boolean).length,
		isPromptTooLarge: e => e instanceof TooLarge,
		isCancellation: e => e instanceof Cancelled,
	};
}

describe('produceSummary: the Full → Simple chain', () => {
	it('uses Full when it works', async () => {
		const d = deps({ full: { reply: 'a good summary' } });
		const result = await produceSummary(d, 10);
		assert.equal(result.summary, 'a good summary');
		assert.equal(result.mode, 'full');
		assert.deepEqual(d.sent, ['full']);
	});

	for (const [name, full] of [
		['the Full prompt does not fit', { render: 'too-large' as const }],
		['the model fails on Full', { reply: new Error('network down') }],
		['Full returns an empty text', { reply: '   ' }],
		['Full returns a summary over the budget', { reply: 'one two three four five six seven eight nine ten eleven' }],
	] as const) {
		it(`falls back to Simple when ${name}`, async () => {
			const d = deps({ full, simple: { reply: 'short summary' } });
			const result = await produceSummary(d, 10);
			assert.equal(result.summary, 'short summary');
			assert.equal(result.mode, 'simple');
			assert.equal(result.attempts.length, 2);
			assert.notEqual(result.attempts[0].outcome, 'ok');
		});
	}

	it('returns no summary, with both attempts explained, when Simple fails too', async () => {
		const result = await produceSummary(deps({ full: { reply: '' }, simple: { reply: new Error('blocked') } }), 10);
		assert.equal(result.summary, undefined);
		assert.deepEqual(result.attempts.map(a => a.outcome), ['empty', 'model-error']);
		assert.match(result.attempts[1].detail!, /blocked/);
	});

	it('lets cancellation through untouched, without trying Simple', async () => {
		const d = deps({ full: { reply: new Cancelled('user cancelled') }, simple: { reply: 'never' } });
		await assert.rejects(produceSummary(d, 10), Cancelled);
		assert.deepEqual(d.sent, ['full']);
	});
});
