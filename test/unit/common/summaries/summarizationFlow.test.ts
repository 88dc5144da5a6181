import * as assert from 'node:assert/strict';
import { produceSummary, type SummaryFlowDeps, type SummaryPromptMode } from '../../../../src/common/summaries/summarizationFlow';

class TooLarge extends Error {}
class Cancelled extends Error {}

type Script = Partial<Record<SummaryPromptMode, { render?: 'too-large'; reply?: string | Error; cancelWhileSending?: boolean }>>;

function deps(script: Script): SummaryFlowDeps<SummaryPromptMode> & { sent: SummaryPromptMode[]; cancel(): void } {
	const sent: SummaryPromptMode[] = [];
	let cancelled = false;
	return {
		sent,
		cancel: () => (cancelled = true),
		async render(mode) {
			if (script[mode]?.render === 'too-large') throw new TooLarge('does not fit');
			return { prompt: mode, tokenCount: 100 };
		},
		async send(mode) {
			sent.push(mode);
			if (script[mode]?.cancelWhileSending) cancelled = true;
			const reply = script[mode]?.reply;
			if (reply instanceof Error) throw reply;
			return reply;
		},
		countTokens: text => text.split(/\s+/).filter(Boolean).length,
		isPromptTooLarge: e => e instanceof TooLarge,
		isCancellation: e => e instanceof Cancelled,
		isCancelled: () => cancelled,
		cancellationError: () => new Cancelled('cancelled'),
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
		assert.deepEqual(
			result.attempts.map(a => a.outcome),
			['empty', 'model-error'],
		);
		assert.match(result.attempts[1].detail!, /blocked/);
	});

	it('lets cancellation through untouched, without trying Simple', async () => {
		const d = deps({ full: { reply: new Cancelled('user cancelled') }, simple: { reply: 'never' } });
		await assert.rejects(produceSummary(d, 10), Cancelled);
		assert.deepEqual(d.sent, ['full']);
	});

	// Some providers end a cancelled stream quietly: the reply is empty or cut short, nothing throws.
	it('stops after a quietly cancelled reply instead of retrying in Simple', async () => {
		const d = deps({ full: { reply: '', cancelWhileSending: true }, simple: { reply: 'never' } });
		await assert.rejects(produceSummary(d, 10), Cancelled);
		assert.deepEqual(d.sent, ['full']);
	});

	it('does not keep a summary that arrived after the user cancelled', async () => {
		const d = deps({ full: { reply: 'a summary', cancelWhileSending: true } });
		await assert.rejects(produceSummary(d, 10), Cancelled);
	});

	it('sends nothing when cancelled before the first attempt', async () => {
		const d = deps({ full: { reply: 'a summary' } });
		d.cancel();
		await assert.rejects(produceSummary(d, 10), Cancelled);
		assert.deepEqual(d.sent, []);
	});

	it('treats a model error after a cancel as the cancel', async () => {
		const d = deps({ full: { reply: new Error('stream aborted'), cancelWhileSending: true }, simple: { reply: 'never' } });
		await assert.rejects(produceSummary(d, 10), Cancelled);
		assert.deepEqual(d.sent, ['full']);
	});
});
