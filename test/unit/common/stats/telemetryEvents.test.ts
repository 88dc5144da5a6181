import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { fallbackEvent, summarizationEvent, type SummarizationFacts } from '../../../../src/common/stats/eventsFromData';
import { TELEMETRY_EVENTS, TelemetryDeclarationError, telemetryEvent, type TelemetryEvent } from '../../../../src/common/stats/telemetryEvents';
import { planHalfContext } from '../../../../src/common/planning/halfContextPlanner';
import { planLegacy } from '../../../../src/common/planning/legacyPlanner';
import { makeConversation } from '../../helpers/conversations';

const countTokens = (text: string) => Math.ceil(text.length / 4);

/** Every field declared, nothing else, properties from their lists, measurements whole numbers. */
function assertDeclared(event: TelemetryEvent): void {
	const fields = TELEMETRY_EVENTS[event.name].fields as Record<string, { kind: string; values?: readonly string[] }>;
	assert.deepEqual(Object.keys(event.data).sort(), Object.keys(fields).sort());
	for (const [key, value] of Object.entries(event.data)) {
		if (fields[key].kind === 'property') assert.ok(fields[key].values!.includes(value as string), `${key}=${value}`);
		else assert.ok(Number.isInteger(value), `${key}=${value}`);
	}
}

describe('telemetry events', () => {
	const conversation = makeConversation({ turns: [3, 4], active: 3 });
	const half = planHalfContext(conversation, { countTokens });
	const facts: SummarizationFacts = {
		trigger: 'overflow',
		outcome: 'summarized',
		plan: half,
		plannedRounds: half.stats.summarizedRoundCount,
		attempts: [
			{ mode: 'full', outcome: 'summary-too-large' },
			{ mode: 'simple', outcome: 'ok' },
		],
		summaryTokens: 120,
		durationMs: 1234.6,
		windowTokens: 16000,
		minRecentRounds: 2,
	};

	it('summarization: the split, the attempts, tokens before and after', () => {
		const event = summarizationEvent(facts);
		assertDeclared(event);
		const t = half.stats.tokens!;
		assert.deepEqual(
			{ ...event.data },
			{
				trigger: 'overflow',
				outcome: 'summarized',
				mode: 'half-context',
				requestedMode: 'half-context',
				fallbackReason: 'none',
				narrowed: 'false',
				continuation: String(half.isContinuation),
				splitInsideTurn: String(half.splitInsideTurnIndex !== undefined),
				fullAttempt: 'summary-too-large',
				simpleAttempt: 'ok',
				totalRounds: 10,
				summarizedRounds: 5,
				keptRounds: 5,
				plannedRounds: 5,
				minRecentRounds: 2,
				tokensBefore: t.summarized + t.kept,
				tokensAfter: t.kept + 120,
				summaryTokens: 120,
				condensePasses: 0,
				durationMs: 1235,
				windowTokens: 16000,
				summarizerModel: 'request',
			},
		);
		assert.equal(summarizationEvent({ ...facts, summarizerModel: 'setting' }).data.summarizerModel, 'setting');
	});

	it('summarization: a legacy fallback, a narrowed plan, a failure with no summary', () => {
		const small = planHalfContext(makeConversation({ turns: [], active: 3 }), { countTokens });
		const event = summarizationEvent({ ...facts, plan: small, plannedRounds: 9, outcome: 'failed', attempts: [{ mode: 'full', outcome: 'model-error' }] });
		assertDeclared(event);
		assert.equal(event.data.mode, 'legacy');
		assert.equal(event.data.requestedMode, 'half-context');
		assert.equal(event.data.fallbackReason, 'not-enough-rounds');
		assert.equal(event.data.narrowed, 'true');
		assert.equal(event.data.simpleAttempt, 'not-tried');
		assert.equal(event.data.tokensAfter, 0);
		assert.equal(event.data.summaryTokens, 0);
		assert.equal(summarizationEvent({ ...facts, plan: planLegacy(conversation) }).data.tokensBefore, 0, 'no counts without a token counter');
	});

	it("summarization: condense passes are counted, and the attempt fields keep each prompt's own reply", () => {
		const condensedFull = summarizationEvent({
			...facts,
			attempts: [
				{ mode: 'full', outcome: 'summary-too-large' },
				{ mode: 'full', pass: 'condense', outcome: 'ok' },
			],
		});
		assertDeclared(condensedFull);
		assert.equal(condensedFull.data.fullAttempt, 'summary-too-large');
		assert.equal(condensedFull.data.simpleAttempt, 'not-tried');
		assert.equal(condensedFull.data.condensePasses, 1);
		const both = summarizationEvent({
			...facts,
			outcome: 'failed',
			attempts: [
				{ mode: 'full', outcome: 'summary-too-large' },
				{ mode: 'full', pass: 'condense', outcome: 'model-error' },
				{ mode: 'simple', outcome: 'summary-too-large' },
				{ mode: 'simple', pass: 'condense', outcome: 'summary-too-large' },
			],
		});
		assert.equal(both.data.fullAttempt, 'summary-too-large');
		assert.equal(both.data.simpleAttempt, 'summary-too-large');
		assert.equal(both.data.condensePasses, 2);
		assert.equal(both.data.summaryTokens, 0);
	});

	it('fallback: a step, why, and what it freed', () => {
		const event = fallbackEvent({
			step: 'elide-tool-results',
			why: 'auto-summarize-off',
			items: 3,
			freedTokens: 900.4,
			promptTokens: 17000,
			windowTokens: 16000,
		});
		assertDeclared(event);
		assert.deepEqual(
			{ ...event.data },
			{ step: 'elide-tool-results', why: 'auto-summarize-off', items: 3, freedTokens: 900, promptTokens: 17000, windowTokens: 16000 },
		);
		assert.equal(fallbackEvent({ step: 'refuse', why: 'nothing-to-summarize', promptTokens: 1, windowTokens: 2 }).data.items, 0);
	});

	it('refuses a field that is not declared, a value outside its list, a missing field and a non-finite number', () => {
		const data = { ...summarizationEvent(facts).data } as Record<string, unknown>;
		const attempt = (changed: Record<string, unknown>) => () => telemetryEvent('summarization', changed as never);
		assert.throws(attempt({ ...data, path: '/home/me/project/secret.ts' }), TelemetryDeclarationError);
		assert.throws(attempt({ ...data, trigger: 'src/extension.ts' }), TelemetryDeclarationError);
		const { durationMs: _, ...missing } = data;
		assert.throws(attempt(missing), TelemetryDeclarationError);
		assert.throws(attempt({ ...data, tokensBefore: Number.NaN }), TelemetryDeclarationError);
		assert.throws(attempt({ ...data, tokensBefore: '12' }), TelemetryDeclarationError);
	});

	it('never carries text from the conversation, whatever the conversation holds', () => {
		fc.assert(
			fc.property(fc.string({ minLength: 3 }), fc.integer({ min: 4, max: 12 }), fc.integer({ min: 0, max: 3 }), (text, active, turns) => {
				const c = makeConversation({ turns: Array.from({ length: turns }, () => ({ rounds: 2, user: text })), active });
				const withText = {
					...c,
					activeRounds: c.activeRounds.map(r => ({ ...r, response: text, toolCalls: r.toolCalls.map(call => ({ ...call, result: text })) })),
				};
				const plan = planHalfContext(withText, { countTokens });
				const event = summarizationEvent({ ...facts, plan, plannedRounds: plan.stats.summarizedRoundCount });
				assertDeclared(event);
				for (const value of Object.values(event.data)) if (typeof value === 'string' && text.length > 5) assert.ok(!value.includes(text));
			}),
			{ numRuns: 100 },
		);
	});
});
