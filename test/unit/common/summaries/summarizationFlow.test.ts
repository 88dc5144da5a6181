import * as assert from 'node:assert/strict';
import {
	condensePasses,
	describeAttempts,
	describeAttemptsForUser,
	produceSummary,
	type SummaryFlowDeps,
	type SummaryPromptMode,
} from '../../../../src/common/summaries/summarizationFlow';
import type { SummaryReply } from '../../../../src/common/summaries/summaryAcceptance';

class TooLarge extends Error {}
/** A reply whose summary stood inside <summary> tags. */
const tagged = (text: string): SummaryReply => ({ kind: 'summary', text, tagged: true });
const CUT_OFF: SummaryReply = { kind: 'cut-off' };
class Cancelled extends Error {}

type Script = Partial<Record<SummaryPromptMode, { render?: 'too-large'; reply?: string | Error | SummaryReply; cancelWhileSending?: boolean }>>;

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
			return typeof reply === 'string' ? tagged(reply) : reply;
		},
		countTokens: text => text.split(/\s+/).filter(Boolean).length,
		isPromptTooLarge: e => e instanceof TooLarge,
		isCancellation: e => e instanceof Cancelled,
		isCancelled: () => cancelled,
		cancellationError: () => new Cancelled('cancelled'),
	};
}

describe('produceSummary: the Full → Simple chain', () => {
	it('does not use a reply cut off before its summary ended: Simple is tried, and with both cut off there is no summary', async () => {
		const fallback = await produceSummary(deps({ full: { reply: CUT_OFF }, simple: { reply: 'short summary' } }), 10);
		assert.equal(fallback.summary, 'short summary');
		assert.equal(describeAttempts(fallback.attempts), 'full:cut-off, simple:ok');
		const none = await produceSummary(deps({ full: { reply: CUT_OFF }, simple: { reply: CUT_OFF } }), 10);
		assert.equal(none.summary, undefined);
		assert.equal(describeAttempts(none.attempts), 'full:cut-off, simple:cut-off');
	});

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

describe('produceSummary: the condense pass for a summary over the cap', () => {
	type Prompt = { kind: SummaryPromptMode | 'condense'; input?: string };
	const words = (n: number, word = 'w') => Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ');

	function condenseDeps(replies: Partial<Record<string, string | Error>>, options: { condenseTooLarge?: boolean } = {}) {
		const sent: Prompt[] = [];
		const d: SummaryFlowDeps<Prompt> = {
			async render(mode) {
				return { prompt: { kind: mode }, tokenCount: 1000 };
			},
			async renderCondense(summary) {
				if (options.condenseTooLarge) throw new TooLarge('condense prompt does not fit');
				return { prompt: { kind: 'condense', input: summary }, tokenCount: 40 };
			},
			async send(prompt) {
				sent.push(prompt);
				const key = prompt.kind === 'condense' ? `condense-after-${sent.filter(p => p.kind !== 'condense').at(-1)!.kind}` : prompt.kind;
				const reply = replies[key];
				if (reply instanceof Error) throw reply;
				return reply === undefined ? undefined : tagged(reply);
			},
			countTokens: text => text.split(/\s+/).filter(Boolean).length,
			isPromptTooLarge: e => e instanceof TooLarge,
			isCancellation: e => e instanceof Cancelled,
			isCancelled: () => false,
			cancellationError: () => new Cancelled('cancelled'),
		};
		return { d, sent };
	}

	it('shortens a too-long Full summary with one condense pass whose input is that summary alone, before Simple', async () => {
		const long = words(30, 'fact');
		const { d, sent } = condenseDeps({ full: long, 'condense-after-full': words(8, 'fact') });
		const result = await produceSummary(d, 10);
		assert.equal(result.summary, words(8, 'fact'));
		assert.equal(result.mode, 'full');
		assert.equal(result.condensed, true);
		assert.deepEqual(
			sent.map(p => p.kind),
			['full', 'condense'],
		);
		assert.equal(sent[1].input, long, 'the condense request carries the too-long summary');
		assert.equal(describeAttempts(result.attempts), 'full:summary-too-large, full/condense:ok');
		assert.equal(condensePasses(result.attempts), 1);
		assert.equal(result.attempts[0].summaryTokens, 30);
	});

	it('goes on to Simple when the condensed summary is still too long, and condenses Simple once too', async () => {
		const { d, sent } = condenseDeps({ full: words(30), 'condense-after-full': words(12), simple: words(20), 'condense-after-simple': words(9) });
		const result = await produceSummary(d, 10);
		assert.equal(result.mode, 'simple');
		assert.equal(result.condensed, true);
		assert.deepEqual(
			sent.map(p => p.kind),
			['full', 'condense', 'simple', 'condense'],
		);
		assert.equal(describeAttempts(result.attempts), 'full:summary-too-large, full/condense:summary-too-large, simple:summary-too-large, simple/condense:ok');
	});

	it('records a condense prompt that does not fit, an empty condense reply and a failed one as attempts', async () => {
		const tooLarge = await produceSummary(condenseDeps({ full: words(30), simple: words(5) }, { condenseTooLarge: true }).d, 10);
		assert.equal(describeAttempts(tooLarge.attempts), 'full:summary-too-large, full/condense:prompt-too-large, simple:ok');
		const empty = await produceSummary(condenseDeps({ full: words(30), 'condense-after-full': ' ', simple: words(5) }).d, 10);
		assert.equal(describeAttempts(empty.attempts), 'full:summary-too-large, full/condense:empty, simple:ok');
		const failed = await produceSummary(condenseDeps({ full: words(30), 'condense-after-full': new Error('429'), simple: words(5) }).d, 10);
		assert.equal(describeAttempts(failed.attempts), 'full:summary-too-large, full/condense:model-error, simple:ok');
	});

	it('does not condense after other failures', async () => {
		const { d, sent } = condenseDeps({ full: new Error('network'), simple: words(5) });
		const result = await produceSummary(d, 10);
		assert.equal(result.condensed, undefined);
		assert.deepEqual(
			sent.map(p => p.kind),
			['full', 'simple'],
		);
	});

	it('without a condense step, a too-long summary goes straight to Simple (as before)', async () => {
		const { d, sent } = condenseDeps({ full: words(30), simple: words(5) });
		const result = await produceSummary({ ...d, renderCondense: undefined }, 10);
		assert.equal(result.mode, 'simple');
		assert.deepEqual(
			sent.map(p => p.kind),
			['full', 'simple'],
		);
	});

	it('lets a cancellation during the condense pass through', async () => {
		const { d } = condenseDeps({ full: words(30), 'condense-after-full': new Cancelled('user') });
		await assert.rejects(produceSummary(d, 10), Cancelled);
	});
});

describe('produceSummary: a reply that is not a summary is a failed attempt', () => {
	const words = (n: number) => Array.from({ length: n }, (_, i) => `fact${i}`).join(' ');
	// The prompts are 100 tokens (deps), the cap 1000: an untagged reply needs 10 tokens (a tenth of min(100, 750)).
	const untagged = (text: string): SummaryReply => ({ kind: 'summary', text, tagged: false });
	const cases: [string, SummaryReply][] = [
		['an echo of the prompt', { kind: 'echo', echoed: 'the tag <previous-summary>' }],
		['a refusal sentence', untagged("I'm sorry, I can't help with that.")],
		['a reply of a few tokens', untagged('Summary written.')],
	];
	for (const [name, reply] of cases) {
		it(`does not attach ${name}: Full fails, Simple is used`, async () => {
			const d = deps({ full: { reply }, simple: { reply: 'the real summary' } });
			const result = await produceSummary(d, 1000);
			assert.equal(result.summary, 'the real summary');
			assert.equal(describeAttempts(result.attempts), 'full:not-a-summary, simple:ok');
			assert.ok(result.attempts[0].detail);
		});

		it(`ends with no summary when both modes give ${name}`, async () => {
			const result = await produceSummary(deps({ full: { reply }, simple: { reply } }), 1000);
			assert.equal(result.summary, undefined);
			assert.equal(describeAttempts(result.attempts), 'full:not-a-summary, simple:not-a-summary');
		});
	}

	it('accepts an untagged reply of a plausible length, and a short one inside the tags', async () => {
		const plain = await produceSummary(deps({ full: { reply: untagged(words(12)) } }), 1000);
		assert.equal(plain.summary, words(12));
		const short = await produceSummary(deps({ full: { reply: 'Read a.py.' } }), 1000);
		assert.equal(short.summary, 'Read a.py.');
	});

	it('does not condense a reply that is no summary, however long', async () => {
		const echo: SummaryReply = { kind: 'echo', echoed: 'the tag <conversation-transcript>' };
		const result = await produceSummary(deps({ full: { reply: echo }, simple: { reply: echo } }), 5);
		assert.ok(result.attempts.every(a => a.outcome === 'not-a-summary' && !a.pass));
	});
});

describe('describeAttemptsForUser: what the chat says of failed tries', () => {
	it('numbers the tries on their own, names a condense pass as shortening the try before, in words without codes', () => {
		const text = describeAttemptsForUser([
			{ mode: 'full', outcome: 'summary-too-large' },
			{ mode: 'full', pass: 'condense', outcome: 'summary-too-large' },
			{ mode: 'simple', outcome: 'not-a-summary' },
		]);
		assert.equal(text, 'try 1: the summary came out too long; shortening it: the summary came out too long; try 2: the answer was not a summary');
		assert.doesNotMatch(text, /full|simple|not-a-summary|too-large/);
	});
});
