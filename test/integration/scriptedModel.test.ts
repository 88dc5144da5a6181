// The fixture itself, used straight through vscode.lm: later tests rely on each of these behaviours.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { lastRequest, resetSession, scriptedModel, SCRIPTED_MODEL_SELECTOR } from './helpers';

async function model(): Promise<vscode.LanguageModelChat> {
	await scriptedModel();
	const [m] = await vscode.lm.selectChatModels(SCRIPTED_MODEL_SELECTOR);
	assert.ok(m, 'the scripted model is not available');
	return m;
}

async function collect(response: vscode.LanguageModelChatResponse): Promise<{ text: string; calls: vscode.LanguageModelToolCallPart[] }> {
	let text = '';
	const calls: vscode.LanguageModelToolCallPart[] = [];
	for await (const part of response.stream) {
		if (part instanceof vscode.LanguageModelTextPart) text += part.value;
		else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
	}
	return { text, calls };
}

const tool: vscode.LanguageModelChatTool = {
	name: 'test_lookup',
	description: 'Looks something up.',
	inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
};

describe('scripted-model fixture', () => {
	beforeEach(resetSession);

	it('reports scripted tool calls and logs tool calls and results it receives', async () => {
		const api = await scriptedModel();
		api.setHandler(req =>
			req.messages.some(m => m.parts.some(p => p.kind === 'toolResult'))
				? { text: 'done' }
				: { text: 'looking', toolCalls: [{ callId: 'c1', name: 'test_lookup', input: { q: 'x' } }] },
		);
		const m = await model();
		const token = new vscode.CancellationTokenSource().token;

		const first = await collect(await m.sendRequest([vscode.LanguageModelChatMessage.User('find x')], { tools: [tool] }, token));
		assert.strictEqual(first.text, 'looking');
		assert.deepStrictEqual(
			first.calls.map(c => [c.callId, c.name, c.input]),
			[['c1', 'test_lookup', { q: 'x' }]],
		);
		assert.deepStrictEqual(lastRequest(api).tools, ['test_lookup']);

		const second = await collect(
			await m.sendRequest(
				[
					vscode.LanguageModelChatMessage.User('find x'),
					vscode.LanguageModelChatMessage.Assistant([
						new vscode.LanguageModelTextPart('looking'),
						new vscode.LanguageModelToolCallPart('c1', 'test_lookup', { q: 'x' }),
					]),
					vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart('c1', [new vscode.LanguageModelTextPart('x is 42')])]),
				],
				{ tools: [tool] },
				token,
			),
		);
		assert.strictEqual(second.text, 'done');
		assert.deepStrictEqual(lastRequest(api).messages, [
			{ role: 'user', parts: [{ kind: 'text', value: 'find x' }] },
			{
				role: 'assistant',
				parts: [
					{ kind: 'text', value: 'looking' },
					{ kind: 'toolCall', callId: 'c1', name: 'test_lookup', input: { q: 'x' } },
				],
			},
			{ role: 'user', parts: [{ kind: 'toolResult', callId: 'c1', text: 'x is 42' }] },
		]);
		assert.strictEqual(api.requests.length, 2);
	});

	it('fails a request when the script says so', async () => {
		const api = await scriptedModel();
		api.setHandler(() => ({ throw: { message: 'scripted failure', code: 'Blocked' } }));
		const m = await model();
		await assert.rejects(
			async () => collect(await m.sendRequest([vscode.LanguageModelChatMessage.User('hi')], {}, new vscode.CancellationTokenSource().token)),
			(error: Error) => /scripted failure/.test(error.message),
		);
	});

	it('stops a delayed reply when the request is cancelled', async () => {
		const api = await scriptedModel();
		api.setHandler(() => ({ text: 'too late', delayMs: 20_000 }));
		const m = await model();
		const source = new vscode.CancellationTokenSource();
		const started = Date.now();
		const pending = m
			.sendRequest([vscode.LanguageModelChatMessage.User('slow')], {}, source.token)
			.then(collect, (error: Error) => ({ text: '', calls: [], error }));
		setTimeout(() => source.cancel(), 300);
		const result = await pending;
		assert.ok(Date.now() - started < 10_000, 'cancellation should end the reply long before the scripted delay');
		assert.strictEqual(result.text, '');
	});

	it('changes the window when told, and vscode.lm reports it', async () => {
		const api = await scriptedModel();
		await api.setMaxInputTokens(8000);
		assert.strictEqual((await model()).maxInputTokens, 8000);
		await api.setMaxInputTokens(16000);
		assert.strictEqual((await model()).maxInputTokens, 16000);
		await api.reset();
		assert.strictEqual((await model()).maxInputTokens, 128000);
	});
});
