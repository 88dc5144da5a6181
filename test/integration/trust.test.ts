// Issue 6, security part two, in the real extension host:
//   - longhaul_runCommand runs only after the user confirms it in the chat, and a declined
//     confirmation means the command never runs. The tool is invoked inside a real chat request by
//     the fixture's @scripted-other participant (with that request's toolInvocationToken), so VS Code
//     shows Longhaul's confirmation in the chat; the test presses Allow
//     (workbench.action.chat.acceptTool) or Skip (workbench.action.chat.skipTool) as a person would.
//   - prompt contents and tool results never reach the 'Longhaul' log at the default level; the
//     summarization statistics do.
// The untrusted-workspace checks are in untrusted.test.ts (they need a separate harness run).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { SCRIPTED_MODEL_SELECTOR, resetSession, scriptedModel, sendChat, setHandler } from './helpers';
import { DATA_DIR, agentScript, createDataFiles, delay, removeDataFiles, waitFor, workspaceRoot } from './faultScript';
import { recordFaultResult } from './faultResults';
import { longhaulLogFiles, readLonghaulLog } from './longhaulLog';

/** The fixture participant's result log (test/fixtures/scripted-model/src/otherParticipant.ts). */
const RESULTS_COMMAND = 'longhaulTest.otherParticipantResults';

interface OtherResult {
	readonly prompt: string;
	readonly toolResult?: string;
	readonly toolError?: string;
	readonly toolErrorName?: string;
}

async function otherResults(): Promise<OtherResult[]> {
	return (await vscode.commands.executeCommand<OtherResult[]>(RESULTS_COMMAND)) ?? [];
}

/**
 * Asks @scripted-other to invoke `tool` inside a chat request. Checks that nothing has happened
 * while the confirmation waits (`notYet`), then answers it with `command` and returns the result.
 */
async function invokeInChat(
	tool: string,
	input: object,
	command: 'workbench.action.chat.acceptTool' | 'workbench.action.chat.skipTool',
	notYet: () => void,
): Promise<OtherResult> {
	const prompt = `invoke ${tool} ${JSON.stringify(input)}`;
	const before = (await otherResults()).length;
	// With blockOnResponse the command returns once the confirmation is showing.
	const opened = await vscode.commands.executeCommand<{ errorDetails?: { message: string } } | undefined>('workbench.action.chat.open', {
		query: `@scripted-other ${prompt}`,
		modelSelector: SCRIPTED_MODEL_SELECTOR,
		blockOnResponse: true,
	});
	await delay(1_500);
	const early = (await otherResults()).slice(before);
	assert.deepStrictEqual(early, [], `the tool answered before anyone confirmed it: ${JSON.stringify(early)} (chat: ${JSON.stringify(opened)})`);
	notYet();
	let result: OtherResult | undefined;
	const deadline = Date.now() + 20_000;
	while (!result) {
		assert.ok(Date.now() < deadline, `no result from ${tool} within 20 s of answering the confirmation`);
		await vscode.commands.executeCommand(command).then(undefined, () => undefined);
		await delay(200);
		result = (await otherResults()).slice(before).find(r => r.prompt.trim() === prompt);
	}
	return result;
}

describe('Security: commands run only after confirmation', () => {
	const markers: string[] = [];
	const marker = (name: string) => {
		const file = path.join(workspaceRoot(), name);
		fs.rmSync(file, { force: true });
		markers.push(file);
		return file;
	};
	// "Allow" through the confirmation carousel can approve the tool beyond one call; start each test
	// with VS Code's tool approvals reset, so every call has to be confirmed again.
	beforeEach(async () => {
		await resetSession();
		await vscode.commands.executeCommand('workbench.action.chat.resetTrustedTools');
	});
	after(async () => {
		await vscode.commands.executeCommand('workbench.action.chat.resetTrustedTools');
		for (const file of markers) fs.rmSync(file, { force: true });
	});

	it('a longhaul_runCommand whose confirmation is declined (Skip) never runs', async function () {
		this.timeout(60_000);
		const file = marker('trust-declined.txt');
		const result = await invokeInChat('longhaul_runCommand', { command: 'echo declined > trust-declined.txt' }, 'workbench.action.chat.skipTool', () => {
			assert.ok(!fs.existsSync(file), 'the command ran before the user answered');
		});
		await delay(1_000);
		assert.ok(!fs.existsSync(file), 'a declined command must not run');
		assert.doesNotMatch(result.toolResult ?? '', /exit code/, 'the declined command must not report an exit code');
		// VS Code answers a skipped call itself ("The user chose to skip the tool call…") or throws a cancellation.
		assert.ok(
			/skip/i.test(result.toolResult ?? '') || /cancel/i.test(`${result.toolErrorName} ${result.toolError}`),
			`unexpected result of a declined call: ${JSON.stringify(result)}`,
		);
		recordFaultResult({
			id: 'S-decline',
			fault: 'longhaul_runCommand inside a chat request, Skip pressed',
			test: 'trust.test.ts › a longhaul_runCommand whose confirmation is declined (Skip) never runs',
			survived: true,
			requestsLost: 0,
			writesOutside: 0,
			detail: `the command did not run; the caller got: ${JSON.stringify((result.toolResult ?? result.toolError ?? '').slice(0, 80))}`,
		});
	});

	it('longhaul_runCommand waits for the confirmation in the chat and runs once allowed', async function () {
		this.timeout(60_000);
		const file = marker('trust-accepted.txt');
		const result = await invokeInChat('longhaul_runCommand', { command: 'echo accepted > trust-accepted.txt' }, 'workbench.action.chat.acceptTool', () => {
			assert.ok(!fs.existsSync(file), 'the command ran before the user confirmed it');
		});
		assert.strictEqual(result.toolError, undefined, `the allowed command failed: ${result.toolError}`);
		assert.match(result.toolResult ?? '', /exit code 0/);
		assert.strictEqual(fs.readFileSync(file, 'utf8').trim(), 'accepted', 'the allowed command should have run');
		recordFaultResult({
			id: 'S-confirm',
			fault: 'longhaul_runCommand inside a chat request, Allow pressed',
			test: 'trust.test.ts › longhaul_runCommand waits for the confirmation in the chat and runs once allowed',
			survived: true,
			requestsLost: 0,
			writesOutside: 0,
			detail: 'nothing ran during 1.5 s of pending confirmation; after Allow: exit code 0, the file was written',
		});
	});
});

describe('Security: the Longhaul log at the default level', () => {
	const SECRET_PROMPT = 'PROMPT-SECRET-7781';
	const SECRET_FILE = 'FILE-SECRET-5523';
	const SECRET_REPLY = 'REPLY-SECRET-9034';
	const SECRET_SUMMARY = 'SUMMARY-SECRET-4410';
	before(() => {
		createDataFiles();
		for (let i = 0; i < 4; i++) {
			fs.writeFileSync(path.join(workspaceRoot(), DATA_DIR, `secret-${i}.txt`), `${SECRET_FILE} ${i}\n` + `Line of private file content ${i}. `.repeat(50));
		}
	});
	after(removeDataFiles);
	beforeEach(resetSession);

	it('holds statistics of a session that summarized, but no prompt text, tool result, reply or summary', async function () {
		this.timeout(60_000);
		assert.strictEqual(vscode.env.logLevel, vscode.LogLevel.Info, 'the host should run at the default log level (Info)');
		await (await scriptedModel()).setMaxInputTokens(16_000);
		const script = agentScript({
			id: 'log',
			toolCalls: 24,
			call: i => ({ name: 'longhaul_readFile', input: { path: `${DATA_DIR}/secret-${i % 4}.txt` } }),
			summarizer: () => ({ text: `<summary>${SECRET_SUMMARY}: the agent read the private files.</summary>` }),
			finalText: `${SECRET_REPLY} done.`,
		});
		await setHandler(request => {
			const reply = script.handler(request);
			return reply.text && !reply.text.startsWith('<summary>') ? { ...reply, text: `${SECRET_REPLY} ${reply.text}` } : reply;
		});
		const handled = await sendChat(`@longhaul ${SECRET_PROMPT} read the private files`, { timeoutMs: 45_000 });
		assert.strictEqual(handled.errorMessage, undefined, `the session failed: ${handled.errorMessage}`);
		assert.ok(script.summarizerRequests.length >= 1, 'the session should have summarized (so the log has statistics)');
		assert.match(handled.markdown, new RegExp(SECRET_REPLY), 'the reply reached the chat');

		let logs = '';
		await waitFor(
			() => /summarization \{/.test((logs = readLonghaulLog())),
			10_000,
			`no summarization statistics in the Longhaul log (files: ${JSON.stringify(longhaulLogFiles())})`,
		);
		const stats = logs.split('\n').filter(l => /summarization \{/.test(l));
		assert.match(stats[stats.length - 1], /"summarized":\d+.*"kept":\d+.*"durationMs":\d+/, 'the statistics line has the counts');
		for (const secret of [SECRET_PROMPT, SECRET_FILE, SECRET_REPLY, SECRET_SUMMARY, 'private file content']) {
			assert.ok(!logs.includes(secret), `the Longhaul log must not contain ${secret}`);
		}
		console.log(
			`      Longhaul log: ${logs.split('\n').filter(l => l.trim()).length} lines in ${longhaulLogFiles().length} file(s), ${stats.length} summarization statistics lines, no prompt content`,
		);
		recordFaultResult({
			id: 'S-log',
			fault: 'the Longhaul log at the default level (Info) after a session with summarization',
			test: 'trust.test.ts › holds statistics of a session that summarized, but no prompt text…',
			survived: true,
			requestsLost: 0,
			writesOutside: 0,
			detail: `${stats.length} statistics line(s) logged; none of the prompt, tool-result, reply or summary markers appear`,
		});
	});
});
