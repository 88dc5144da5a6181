import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { classifyProviderFailure, failureMessage, retryAfterFromText, type ProviderFailureKind } from '../../../../src/common/provider/providerErrors';

/** An error as it reaches Longhaul across VS Code's boundary: a name, maybe a code, a message. */
function error(message: string, fields: { name?: string; code?: string; cause?: unknown } = {}): Error {
	const e = new Error(message, fields.cause ? { cause: fields.cause } : undefined) as Error & { code?: string };
	if (fields.name) e.name = fields.name;
	if (fields.code) e.code = fields.code;
	return e;
}

describe('provider failures other than "prompt too long"', () => {
	it("reads each shape GitHub Copilot's wrapper and VS Code produce", () => {
		const cases: [Error, ProviderFailureKind][] = [
			[
				error('The extension has been temporarily blocked due to making too many requests. Please try again later.', {
					name: 'LanguageModelError',
					code: 'Blocked',
				}),
				'blocked',
			],
			[error("You've reached your monthly chat messages quota.", { name: 'ChatQuotaExceeded' }), 'quota'],
			[error('Sorry, you have been rate-limited. Please wait 34 seconds before trying again.', { name: 'ChatRateLimited' }), 'rate-limited'],
			[error('Access denied', { name: 'LanguageModelError', code: 'NoPermissions' }), 'no-permission'],
			[error('Model not found', { name: 'LanguageModelError', code: 'NotFound' }), 'not-found'],
		];
		for (const [e, kind] of cases) assert.equal(classifyProviderFailure(e)?.kind, kind, e.message);
	});

	it('a "blocked for too many requests" is blocked, not a rate limit; words alone are enough', () => {
		assert.equal(classifyProviderFailure(error('The extension has been temporarily blocked due to making too many requests.'))?.kind, 'blocked');
		assert.equal(classifyProviderFailure(error('Request Failed: 429 Too Many Requests'))?.kind, 'rate-limited');
		assert.equal(classifyProviderFailure(error('insufficient quota for this month'))?.kind, 'quota');
		assert.equal(classifyProviderFailure({ status: 429, message: 'slow down' })?.kind, 'rate-limited');
	});

	it('finds the failure in a cause, and the wait the provider asks for', () => {
		const failure = classifyProviderFailure(
			error('request failed', { cause: error('Please wait 12 seconds before trying again.', { name: 'ChatRateLimited' }) }),
		);
		assert.equal(failure?.kind, 'rate-limited');
		assert.equal(failure?.retryAfterMs, 12_000);
		assert.equal(classifyProviderFailure(Object.assign(error('rate limited'), { retryAfter: 3 }))?.retryAfterMs, 3_000);
		assert.equal(classifyProviderFailure(error('quota exceeded, retry after 20 seconds', { name: 'ChatQuotaExceeded' }))?.retryAfterMs, undefined);
	});

	it('leaves "prompt too long" and ordinary errors alone', () => {
		for (const e of [
			error('Message exceeds token limit.'),
			error('Request Failed: 400 {"error":{"message":"prompt token count of 138898 exceeds the limit of 64000","code":"model_max_prompt_tokens_exceeded"}}'),
			error('Request Failed: 500 upstream exploded'),
			error('boom', { name: 'LanguageModelError', code: 'Unknown' }),
		]) {
			assert.equal(classifyProviderFailure(e), undefined, e.message);
		}
		assert.equal(classifyProviderFailure(undefined), undefined);
		assert.equal(classifyProviderFailure('just a string'), undefined);
	});

	it('never throws, whatever it is given', () => {
		fc.assert(fc.property(fc.anything(), value => classifyProviderFailure(value) === undefined || typeof classifyProviderFailure(value)?.kind === 'string'));
	});

	it('reads the waits providers write', () => {
		assert.equal(retryAfterFromText('Please retry after 20 seconds'), 20_000);
		assert.equal(retryAfterFromText('try again in 2 minutes'), 120_000);
		assert.equal(retryAfterFromText('Retry-After: 5'), 5_000);
		assert.equal(retryAfterFromText('wait 500ms'), 500);
		assert.equal(retryAfterFromText('rate limited'), undefined);
	});

	it('tells the user what happened, that nothing was lost, and what to do', () => {
		const hints: Record<ProviderFailureKind, RegExp> = {
			'rate-limited': /still rate-limited after 5 tries over 30 s.*in a little while/,
			quota: /quota is used up.*pick another model/,
			blocked: /blocked requests from this extension.*try again later/,
			'no-permission': /may not use this model.*allow Longhaul/,
			'not-found': /no longer available.*pick another model/,
		};
		for (const [kind, hint] of Object.entries(hints) as [ProviderFailureKind, RegExp][]) {
			const text = failureMessage({ kind, text: 'provider words' }, { tries: 5, ms: 30_000 });
			assert.match(text, hint);
			assert.match(text, /Nothing was lost/);
			assert.match(text, /"provider words"/);
		}
	});
});
