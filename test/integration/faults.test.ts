// Issue 6, fault suite: the summarizer, the model and the tools fail in the real extension host;
// each test checks that the chat says what happened, that the request or the next one goes on,
// and that no user request disappears from the prompt. Scripts: faultScript.ts.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ScriptedReply, ScriptedRequest } from '../fixtures/scripted-model/src/api';
import type { HandledRequest } from '../../src/agent/api';
import { resetSession, scriptedModel, sendChat, setHandler, suiteSettings, withSetting } from './helpers';
import {
	DATA_DIR,
	agentScript,
	allText,
	assertAllRequestsPresent,
	createDataFiles,
	estimatedTokens,
	hugeSummary,
	removeDataFiles,
	toolResults,
	waitFor,
	workspaceRoot,
} from './faultScript';

/** A window where ~16 tool results of 1.5k characters overflow once (VS Code's own tool definitions take ~7.5k tokens of it). */
const WINDOW = 16_000;
const P1 = '@longhaul fault turn one: read the data files';
const P2 = '@longhaul fault turn two: keep reading the data files';
const P3 = '@longhaul fault turn three: what did you find?';
const text = (query: string) => query.replace(/^@longhaul /, '');

/** Turn 1 (8 tool calls, fits); returns its handled request. */
async function firstTurn(): Promise<HandledRequest> {
	const script = agentScript({ id: 't1', toolCalls: 8 });
	await setHandler(script.handler);
	const handled = await sendChat(P1);
	assert.strictEqual(handled.errorMessage, undefined, 'turn one should succeed');
	assert.strictEqual(script.summarizerRequests.length, 0, 'turn one should fit without summarizing');
	return handled;
}

/** The follow-up: it succeeds and its prompt holds every earlier user request. */
async function assertConversationContinues(earlier: readonly string[]): Promise<void> {
	const script = agentScript({ id: 't3', toolCalls: 1, finalText: 'Follow-up answered.' });
	await setHandler(script.handler);
	const handled = await sendChat(P3);
	assert.strictEqual(handled.errorMessage, undefined, `the follow-up failed: ${handled.errorMessage}`);
	assert.match(handled.markdown, /Follow-up answered\./);
	for (const request of script.agentRequests) {
		assertAllRequestsPresent(request, [...earlier.map(text), text(P3)], 'follow-up');
	}
}

/** Turn 2 overflows the window while the summarizer misbehaves as `summarizer` says. */
async function summarizerFault(
	summarizer: (request: ScriptedRequest, n: number) => ScriptedReply,
): Promise<{ handled: HandledRequest; summarizerRequests: number; agentRequests: readonly ScriptedRequest[] }> {
	await (await scriptedModel()).setMaxInputTokens(WINDOW);
	await firstTurn();
	const script = agentScript({ id: 't2', toolCalls: 16, summarizer });
	await setHandler(script.handler);
	const handled = await sendChat(P2);
	return { handled, summarizerRequests: script.summarizerRequests.length, agentRequests: script.agentRequests };
}

/** What every summarizer fault must end in: Full → Simple failed, old tool results removed, the request finished. */
function assertFellBackToTruncation(result: Awaited<ReturnType<typeof summarizerFault>>, outcome: RegExp): void {
	const { handled } = result;
	assert.strictEqual(handled.errorMessage, undefined, `the request should complete, got error: ${handled.errorMessage}`);
	assert.ok(result.summarizerRequests >= 2, `expected a Full and a Simple attempt, got ${result.summarizerRequests} summarizer requests`);
	assert.match(handled.markdown, /could not be summarized/, 'the chat should say the summary failed');
	assert.match(
		handled.markdown,
		outcome,
		`the chat should name how the attempts failed: ${handled.markdown.match(/could not be summarized[^)]*\)/g)?.join(' | ')}`,
	);
	assert.match(handled.markdown, /Removed \d+ old tool results?/, 'the chat should say old tool results were removed');
	assert.match(handled.markdown, /Done \(t2\)\./, 'the request should run to its end');
	assert.strictEqual(result.agentRequests.length, 17, 'every scripted step should have run');
	for (const request of result.agentRequests) {
		assertAllRequestsPresent(request, [text(P1), text(P2)], 'turn two');
	}
}

describe('Faults: the summarizer fails', () => {
	// The forecast starts a background summary early against this instant test model; these tests
	// count the summarizer requests of the overflow itself, so nothing is prepared in the background.
	suiteSettings({ backgroundSummarizationThreshold: 0 });
	before(createDataFiles);
	after(removeDataFiles);
	beforeEach(resetSession);

	it('control: a working summarizer summarizes once and the conversation goes on', async function () {
		this.timeout(40_000);
		const result = await summarizerFault(() => ({ text: '<summary>The agent read the data files.</summary>' }));
		assert.strictEqual(result.handled.errorMessage, undefined);
		assert.ok(result.summarizerRequests >= 1, 'the window should have overflowed');
		assert.match(result.handled.markdown, /Summarized \d+ older rounds?/);
		assert.doesNotMatch(result.handled.markdown, /could not be summarized/);
		await assertConversationContinues([P1, P2]);
	});

	it('summarizer throws a plain error: Full → Simple → removal of old tool results', async function () {
		this.timeout(40_000);
		const result = await summarizerFault(() => ({ throw: { message: 'summarizer exploded' } }));
		assertFellBackToTruncation(result, /try 1: the model call failed; try 2: the model call failed/);
		await assertConversationContinues([P1, P2]);
	});

	// Not a summary that failed on its own merits: no other prompt would pass, so the request ends
	// (every shape of this kind, with the copilot profile: copilotProvider.test.ts).
	it('summarizer throws LanguageModelError NoPermissions: the request ends with a clear message, no Simple attempt, nothing truncated', async function () {
		this.timeout(40_000);
		// Summaries at the overflow only, so the one summarizer request is the overflow's.
		const result = await withSetting('backgroundSummarizationThreshold', 0, () =>
			summarizerFault(() => ({ throw: { message: 'not allowed', code: 'NoPermissions' } })),
		);
		assert.match(result.handled.errorMessage ?? '', /may not use this model \("not allowed"\).*Nothing was lost/);
		assert.strictEqual(result.summarizerRequests, 1, 'no Simple attempt after NoPermissions');
		assert.doesNotMatch(result.handled.markdown, /could not be summarized|Removed \d+ old tool results?/);
		await assertConversationContinues([P1, P2]);
	});

	it('summarizer returns empty text: same fallback', async function () {
		this.timeout(40_000);
		const result = await summarizerFault(() => ({ text: '' }));
		assertFellBackToTruncation(result, /try 1: the model answered nothing; try 2: the model answered nothing/);
		await assertConversationContinues([P1, P2]);
	});

	it('summarizer returns a summary larger than the summary budget, condensed or not: same fallback', async function () {
		this.timeout(40_000);
		// Summary budget: 20% of the message budget (< 2k tokens here); 40k characters is ~8k tokens.
		// Each too-long summary gets one condense pass, which answers just as long.
		const result = await summarizerFault(() => hugeSummary(40_000));
		assertFellBackToTruncation(
			result,
			/try 1: the summary came out too long; shortening it: the summary came out too long; try 2: the summary came out too long; shortening it: the summary came out too long/,
		);
		await assertConversationContinues([P1, P2]);
	});

	it('summarizer never answers until the user cancels: the request stops, the next one works', async function () {
		this.timeout(40_000);
		await (await scriptedModel()).setMaxInputTokens(WINDOW);
		await firstTurn();
		const script = agentScript({ id: 't2', toolCalls: 16, summarizer: () => ({ delayMs: 120_000, text: 'too late' }) });
		await setHandler(script.handler);
		const pending = sendChat(P2);
		await waitFor(() => script.summarizerRequests.length > 0, 20_000, 'the summarizer was never asked');
		const asked = Date.now();
		await vscode.commands.executeCommand('workbench.action.chat.cancel');
		const handled = await pending;
		assert.ok(Date.now() - asked < 10_000, 'the cancel should end the request promptly');
		assert.strictEqual(handled.errorMessage, undefined, `a cancel is not an error: ${handled.errorMessage}`);
		assert.match(JSON.stringify(handled.metadata), /cancel/i, 'the turn should be recorded as cancelled');
		assert.strictEqual(script.summarizerRequests.length, 1, 'nothing is sent to the summarizer after the cancel');
		await assertConversationContinues([P1, P2]);
	});

	// Regression test: the cancelled summarizer call ends with no text instead of throwing; it used
	// to be recorded as 'empty' and retried in Simple mode with the cancelled token.
	it('nothing is sent to the model after the user cancels during summarization', async function () {
		this.timeout(40_000);
		await (await scriptedModel()).setMaxInputTokens(WINDOW);
		await firstTurn();
		const script = agentScript({ id: 't2', toolCalls: 16, summarizer: () => ({ delayMs: 120_000, text: 'too late' }) });
		await setHandler(script.handler);
		const pending = sendChat(P2);
		await waitFor(() => script.summarizerRequests.length > 0, 20_000, 'the summarizer was never asked');
		await vscode.commands.executeCommand('workbench.action.chat.cancel');
		await pending;
		assert.strictEqual(script.summarizerRequests.length, 1, 'nothing should be sent after the cancel');
	});
});

describe("Faults: the agent's own model request fails", () => {
	before(createDataFiles);
	after(removeDataFiles);
	beforeEach(resetSession);

	for (const code of [undefined, 'Blocked']) {
		it(`mid-request ${code ? `LanguageModelError ${code}` : 'plain error'}: a clear error, the rounds done so far are kept, the next request works`, async function () {
			this.timeout(30_000);
			await firstTurn();
			const inner = agentScript({ id: 't2', toolCalls: 2 });
			await setHandler(request => (inner.agentRequests.length === 2 ? { throw: { message: 'upstream went away', code } } : inner.handler(request)));
			const handled = await sendChat(P2);
			assert.ok(handled.errorMessage, 'the request should end with an error message');
			assert.match(
				handled.errorMessage!,
				code ? /blocked requests from this extension for now \("upstream went away"\)\. Nothing was lost/ : /upstream went away.*conversation is kept/,
			);
			const follow = agentScript({ id: 't3', toolCalls: 0, finalText: 'Follow-up answered.' });
			await setHandler(follow.handler);
			const next = await sendChat(P3);
			assert.strictEqual(next.errorMessage, undefined, `the follow-up failed: ${next.errorMessage}`);
			const prompt = follow.agentRequests[0];
			assertAllRequestsPresent(prompt, [text(P1), text(P2), text(P3)], 'follow-up');
			const kept = toolResults(prompt).map(r => r.callId);
			assert.ok(kept.includes('t2-0') && kept.includes('t2-1'), `the tool rounds done before the failure should be kept, got ${kept.join(', ')}`);
		});
	}
});

describe('Faults: bad tool calls from the model', () => {
	before(createDataFiles);
	after(removeDataFiles);
	beforeEach(resetSession);

	it('a call to a tool that does not exist and a call without required arguments get error results and the loop goes on', async function () {
		this.timeout(30_000);
		const calls = [
			{ name: 'no_such_tool', input: { x: 1 } },
			{ name: 'longhaul_readFile', input: {} },
			{ name: 'longhaul_readFile', input: { path: 42 } },
		];
		const script = agentScript({ id: 'bad', toolCalls: calls.length, call: i => calls[i] });
		await setHandler(script.handler);
		const handled = await sendChat('@longhaul call some broken tools');
		assert.strictEqual(handled.errorMessage, undefined, `got error: ${handled.errorMessage}`);
		assert.match(handled.markdown, /Done \(bad\)\./);
		assert.strictEqual(script.agentRequests.length, 4);
		const result = (i: number) => toolResults(script.agentRequests[i + 1]).find(r => r.callId === `bad-${i}`)?.text ?? '';
		assert.match(result(0), /there is no tool named no_such_tool/);
		assert.match(result(0), /longhaul_readFile/, 'the error should list the available tools');
		assert.match(result(1), /^Error: .*(path|empty)/i);
		assert.match(result(2), /^Error: .*(path|empty|string)/i);
		await assertConversationContinues(['@longhaul call some broken tools']);
	});
});

describe('Faults: tools that fail or flood', () => {
	before(createDataFiles);
	after(removeDataFiles);
	beforeEach(resetSession);

	it('a tool that throws (missing file) gives an error result and the loop goes on', async function () {
		this.timeout(30_000);
		const script = agentScript({ id: 'missing', toolCalls: 1, call: () => ({ name: 'longhaul_readFile', input: { path: `${DATA_DIR}/does-not-exist.txt` } }) });
		await setHandler(script.handler);
		const handled = await sendChat('@longhaul read a missing file');
		assert.strictEqual(handled.errorMessage, undefined, `got error: ${handled.errorMessage}`);
		assert.match(handled.markdown, /Done \(missing\)\./);
		const result = toolResults(script.agentRequests[1]).find(r => r.callId === 'missing-0')?.text ?? '';
		assert.match(result, /^Error: the tool longhaul_readFile failed: .*(ENOENT|no such file)/);
		await assertConversationContinues(['@longhaul read a missing file']);
	});

	it('a 1 MB tool result is truncated with a marker and the prompt still fits the window', async function () {
		this.timeout(30_000);
		const big: string[] = [];
		for (let i = 0; big.length * 60 < 1_048_576; i++) big.push(`row ${i}: ${'abcdefghij'.repeat(5)}`);
		fs.writeFileSync(path.join(workspaceRoot(), DATA_DIR, 'huge.txt'), big.join('\n'));
		const scripted = await scriptedModel();
		await scripted.setMaxInputTokens(WINDOW);
		const script = agentScript({ id: 'huge', toolCalls: 1, call: () => ({ name: 'longhaul_readFile', input: { path: `${DATA_DIR}/huge.txt` } }) });
		await setHandler(script.handler);
		const handled = await sendChat('@longhaul read the huge file');
		assert.strictEqual(handled.errorMessage, undefined, `got error: ${handled.errorMessage}`);
		const request = script.agentRequests[1];
		const result = toolResults(request).find(r => r.callId === 'huge-0')?.text ?? '';
		assert.match(result, /truncated/, 'the result should carry a truncation marker');
		assert.match(result, /row 0: /, 'the head of the file should be kept');
		assert.ok(result.length < 100_000, `the result reached the prompt with ${result.length} characters`);
		const toolTokens = Math.ceil(
			vscode.lm.tools
				.filter(t => request.tools.includes(t.name))
				.map(t => JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema }))
				.join('\n').length / 4,
		);
		const total = estimatedTokens(request) + toolTokens;
		assert.ok(total <= WINDOW, `the prompt (~${total} tokens with tool definitions) should fit the ${WINDOW}-token window`);
		await assertConversationContinues(['@longhaul read the huge file']);
	});
});

describe('Faults: a request larger than the window', () => {
	// The forecast starts a background summary early against this instant test model; these tests
	// count the summarizer requests of the overflow itself, so nothing is prepared in the background.
	suiteSettings({ backgroundSummarizationThreshold: 0 });
	before(createDataFiles);
	after(removeDataFiles);
	beforeEach(resetSession);

	it('summarizes at most twice, then ends with a clear message about the window; never loops', async function () {
		this.timeout(45_000);
		await (await scriptedModel()).setMaxInputTokens(WINDOW);
		await firstTurn();
		const script = agentScript({ id: 'huge-request', toolCalls: 0 });
		await setHandler(script.handler);
		const huge = '@longhaul ' + 'please consider this very long requirement sentence number again. '.repeat(1200);
		const handled = await sendChat(huge, { timeoutMs: 40_000 });
		assert.ok(script.summarizerRequests.length <= 2, `expected at most 2 summarization requests, got ${script.summarizerRequests.length}`);
		assert.strictEqual(script.agentRequests.length, 0, 'a prompt that does not fit must not be sent');
		assert.ok(handled.errorMessage, 'the request should end with an error message');
		assert.match(handled.errorMessage!, /window/);
		assert.match(handled.errorMessage!, /\d+ tokens/, 'the message should say how large the request is');
	});

	// Regression test: the refused request used to be replayed verbatim from chatContext.history,
	// so every later request in the chat failed the same way.
	it('after a request larger than the window was refused, the next request in the chat succeeds', async function () {
		this.timeout(45_000);
		await (await scriptedModel()).setMaxInputTokens(WINDOW);
		await firstTurn();
		await setHandler(agentScript({ id: 'huge-request', toolCalls: 0 }).handler);
		const refused = await sendChat('@longhaul ' + 'please consider this very long requirement sentence number again. '.repeat(1200), { timeoutMs: 40_000 });
		assert.ok(refused.errorMessage, 'the huge request itself is refused');
		await assertConversationContinues([P1]);
		// The refused request is not dropped: the follow-up still shows its head and says it was not answered.
		const scripted = await scriptedModel();
		const followUp = allText(scripted.requests[scripted.requests.length - 1]);
		assert.match(followUp, /please consider this very long requirement sentence number again\./);
		assert.match(followUp, /too large for the model's context window and was not answered/);
	});
});
