import * as assert from 'node:assert/strict';
import { recognizePromptTooLong } from '../../../../src/common/tokens/promptTooLong';

/** An error shaped like vscode.LanguageModelError (name, message, code), without the vscode module. */
function lmError(message: string, code = 'Unknown', cause?: unknown): Error {
	const error = new Error(message, cause === undefined ? undefined : { cause }) as Error & { code: string };
	error.name = 'LanguageModelError';
	error.code = code;
	return error;
}

describe('recognizePromptTooLong: the shapes providers use', () => {
	const cases: [string, unknown, { shape: string; promptTokens?: number; limit?: number }][] = [
		[
			'Copilot (CAPI), newer',
			new Error(
				'Request Failed: 400 {"error":{"message":"prompt token count of 138898 exceeds the limit of 64000","code":"model_max_prompt_tokens_exceeded"}}',
			),
			{ shape: 'copilot', promptTokens: 138898, limit: 64000 },
		],
		[
			'Copilot (CAPI), older, empty code',
			new Error('{"error":{"message":"prompt token count of 65446 exceeds the limit of 64000","param":"","code":"","type":""}}'),
			{ shape: 'copilot', promptTokens: 65446, limit: 64000 },
		],
		[
			'Copilot cloud agent',
			new Error('CAPIError: 400 prompt token count of 184399 exceeds the limit of 128000'),
			{ shape: 'copilot', promptTokens: 184399, limit: 128000 },
		],
		[
			'Anthropic through Copilot',
			lmError('Request Failed: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 103067 tokens > 102385 maximum"}}'),
			{ shape: 'anthropic', promptTokens: 103067, limit: 102385 },
		],
		[
			'OpenAI-compatible, with numbers',
			new Error(
				"This model's maximum context length is 16385 tokens. However, you requested about 17537 tokens (15537 in the messages, 2000 in the completion). Please reduce the length of the messages or completion.",
			),
			{ shape: 'openai', promptTokens: 17537, limit: 16385 },
		],
		['OpenAI error code alone', Object.assign(new Error('Bad request'), { code: 'context_length_exceeded' }), { shape: 'openai' }],
		[
			'Gemini',
			new Error('The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).'),
			{ shape: 'gemini', promptTokens: 1234567, limit: 1048576 },
		],
		['Copilot model from another participant (no numbers)', lmError('Message exceeds token limit.'), { shape: 'generic' }],
		['Copilot code without numbers', lmError('Request Failed: 400 {"error":{"code":"model_max_prompt_tokens_exceeded"}}'), { shape: 'copilot' }],
		['a generic HTTP 413', new Error('Request Failed: 413 Request Entity Too Large'), { shape: 'http-413' }],
		['a 413 status on the error object', Object.assign(new Error('upstream refused'), { status: 413 }), { shape: 'http-413' }],
		[
			'numbers with thousands separators',
			new Error('prompt is too long: 210,194 tokens > 200,000 maximum'),
			{ shape: 'anthropic', promptTokens: 210194, limit: 200000 },
		],
		[
			'the provider text in the cause of a wrapping error',
			lmError('The model could not answer', 'Unknown', new Error('prompt token count of 20001 exceeds the limit of 16000')),
			{ shape: 'copilot', promptTokens: 20001, limit: 16000 },
		],
		['a plain string', 'prompt is too long: 5 tokens > 4 maximum', { shape: 'anthropic', promptTokens: 5, limit: 4 }],
	];
	for (const [name, error, expected] of cases) {
		it(name, () => {
			const found = recognizePromptTooLong(error);
			assert.ok(found, 'should be recognized');
			assert.equal(found.shape, expected.shape);
			assert.equal(found.promptTokens, expected.promptTokens);
			assert.equal(found.limit, expected.limit);
		});
	}

	for (const [name, error] of [
		['a network error', new Error('getaddrinfo ENOTFOUND api.example.com')],
		['a quota error', lmError('Request Failed: 429 {"error":{"message":"Rate limit reached for tokens per min (TPM)"}}')],
		['a permission error', lmError('No permissions', 'NoPermissions')],
		['a 500 that mentions 413 in a body number', new Error('Request Failed: 500 internal error at offset 4130')],
		['a tool named like the error', new Error('tool prompt_length failed')],
		['undefined', undefined],
		['a number', 413],
	] as const) {
		it(`leaves ${name} alone`, () => {
			assert.equal(recognizePromptTooLong(error), undefined);
		});
	}

	it('keeps the text short for the log', () => {
		const found = recognizePromptTooLong(new Error(`prompt is too long: 9 tokens > 8 maximum ${'x'.repeat(1000)}`));
		assert.ok(found && found.text.length <= 301);
	});
});
