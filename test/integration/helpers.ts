// Helpers for integration tests that run inside the real extension host with the scripted model.
//
//   const scripted = await scriptedModel();
//   scripted.setHandler(req => ({ text: 'hi' }));
//   const handled = await sendChat('@longhaul hello');
//   assert.match(handled.markdown, /hi/);
//
// Call resetSession() in beforeEach: it restores the fixture's defaults and starts a new chat.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import Mocha = require('mocha');
import type { HandledRequest, LonghaulApi } from '../../src/agent/api';
import { FIXTURE_ID, MODEL_ID, VENDOR, type ScriptedHandler, type ScriptedModelApi, type ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { DATA_FILE, SMALL_WINDOW, dataFileContent } from './sessionScript';
import { loadReplayScript, type ReplayScript } from '../fixtures/scripted-model/src/replayScript';

export const LONGHAUL_ID = 'longhaul-dev.longhaul';
export const PARTICIPANT_ID = 'longhaul.agent';
export const SCRIPTED_MODEL_SELECTOR = { vendor: VENDOR, id: MODEL_ID } as const;

/** The Longhaul extension, activated. */
export async function longhaul(): Promise<{ extension: vscode.Extension<LonghaulApi>; api: LonghaulApi }> {
	const extension = vscode.extensions.getExtension<LonghaulApi>(LONGHAUL_ID);
	assert.ok(extension, `${LONGHAUL_ID} is not installed in the test host`);
	const api = await extension.activate();
	return { extension, api };
}

/** The scripted-model fixture's control API. */
export async function scriptedModel(): Promise<ScriptedModelApi> {
	const extension = vscode.extensions.getExtension<ScriptedModelApi>(FIXTURE_ID);
	assert.ok(extension, `${FIXTURE_ID} is not loaded: the harness must pass test/fixtures/scripted-model as an extensionDevelopmentPath`);
	return extension.activate();
}

/** Shorthand for scriptedModel().setHandler(handler). */
export async function setHandler(handler: ScriptedHandler): Promise<ScriptedModelApi> {
	const api = await scriptedModel();
	api.setHandler(handler);
	return api;
}

/**
 * Fixture defaults (handler, window, empty log, the kind token count), a fresh chat session with no
 * history, and nothing learned about the model's token count (each test starts at ratio 1).
 */
export async function resetSession(): Promise<void> {
	await (await scriptedModel()).reset();
	await (await longhaul()).api.forgetTokenRatios();
	await newChat();
}

/** Starts a new, empty chat session in the Chat view. */
export async function newChat(): Promise<void> {
	await vscode.commands.executeCommand('workbench.action.chat.newChat');
}

export interface SendChatOptions {
	/** How long to wait for Longhaul to finish handling the request (default 30 s). */
	readonly timeoutMs?: number;
	/** The model the Chat view uses (default: the scripted model). */
	readonly modelSelector?: { vendor?: string; id?: string; family?: string };
}

/**
 * Sends `query` (e.g. '@longhaul hello' or '@longhaul /compact') through the Chat view, exactly as
 * typed, and resolves with what Longhaul reports once it has finished handling it. Turns in the
 * same chat session see each other as history; call newChat() for a clean one.
 */
export async function sendChat(query: string, options: SendChatOptions = {}): Promise<HandledRequest> {
	const { api } = await longhaul();
	await scriptedModel();
	const timeoutMs = options.timeoutMs ?? 30_000;
	const started = Date.now();
	let handled: HandledRequest | undefined;
	const listener = api.onDidHandleRequest(h => {
		handled ??= h;
	});
	try {
		// blockOnResponse: the command resolves with the ChatResult once the response is complete
		// (or waits for a confirmation), so a participant that throws fails here with its message
		// instead of a timeout.
		const result = await withTimeout(
			Promise.resolve(
				vscode.commands.executeCommand<ChatCommandResult | undefined>('workbench.action.chat.open', {
					query,
					modelSelector: options.modelSelector ?? SCRIPTED_MODEL_SELECTOR,
					blockOnResponse: true,
				}),
			),
			timeoutMs,
			`the chat response to ${JSON.stringify(query)} did not complete within ${timeoutMs} ms`,
		);
		while (!handled && Date.now() - started < timeoutMs) {
			if (result?.errorDetails) {
				// The participant's own error path still reports; give it a moment, then fail with the error.
				await new Promise(r => setTimeout(r, 500));
				if (!handled) break;
			}
			await new Promise(r => setTimeout(r, 50));
		}
		if (!handled) {
			const detail = result?.errorDetails?.message ? `the chat failed: ${result.errorDetails.message}` : `chat result ${JSON.stringify(result)}`;
			throw new Error(`Longhaul did not report handling ${JSON.stringify(query)} (${detail})`);
		}
		return handled;
	} finally {
		listener.dispose();
	}
}

/**
 * {@link sendChat}, pressing "Allow" on every tool confirmation the chat shows until the request
 * ends, as a user who allows everything would.
 */
export async function sendChatAllowingTools(query: string, options: SendChatOptions = {}): Promise<HandledRequest> {
	let done = false;
	const pending = sendChat(query, options).finally(() => (done = true));
	const accepting = (async () => {
		while (!done) {
			await vscode.commands.executeCommand('workbench.action.chat.acceptTool').then(undefined, () => undefined);
			await new Promise(resolve => setTimeout(resolve, 200));
		}
	})();
	const handled = await pending;
	await accepting;
	return handled;
}

/** What workbench.action.chat.open returns with blockOnResponse: the ChatResult, more or less. */
interface ChatCommandResult {
	readonly errorDetails?: { readonly message: string };
	readonly metadata?: unknown;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(message)), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Sets a Longhaul setting globally for the duration of `body`, then restores the previous value. */
export async function withSetting<T>(key: string, value: unknown, body: () => Promise<T>): Promise<T> {
	const config = vscode.workspace.getConfiguration('longhaul');
	const previous = config.inspect(key)?.globalValue;
	await config.update(key, value, vscode.ConfigurationTarget.Global);
	try {
		return await body();
	} finally {
		await vscode.workspace.getConfiguration('longhaul').update(key, previous, vscode.ConfigurationTarget.Global);
	}
}

/**
 * A recorded corpus session as a replay script, with its file: from $LONGHAUL_CORPUS, else
 * ../shared/corpus next to the repository. The test is skipped, with a message, when it is absent.
 */
export function corpusSession(test: Mocha.Context, name: string): { readonly file: string; readonly script: ReplayScript } {
	// out/test/integration -> repository root -> ../shared/corpus
	const file = path.join(process.env.LONGHAUL_CORPUS ?? path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'corpus'), `${name}.json`);
	if (!fs.existsSync(file)) {
		say(`      skipped: ${file} not found (set LONGHAUL_CORPUS to the corpus folder)`);
		test.skip();
	}
	return { file, script: loadReplayScript(file) };
}

/**
 * Sends every turn of a recorded session to @longhaul, in order, in `mode` with background
 * summaries at `threshold` % (0: off): what each request returned, and the wall time.
 */
export async function playTurns(
	turns: readonly { readonly user: string }[],
	mode: 'half-context' | 'legacy',
	threshold: number,
	timeoutMs = 12 * 60_000,
): Promise<{ handled: HandledRequest[]; wallMs: number }> {
	const started = Date.now();
	const handled: HandledRequest[] = [];
	await withSetting('backgroundSummarizationThreshold', threshold, () =>
		withSetting('halfContextSummarization', mode === 'half-context', async () => {
			for (const turn of turns) handled.push(await sendChat(`@longhaul ${turn.user}`, { timeoutMs }));
		}),
	);
	return { handled, wallMs: Date.now() - started };
}

/** All user-message text of a request the model received, joined with newlines. */
export function userText(request: ScriptedRequest): string {
	return request.messages
		.filter(m => m.role !== 'assistant')
		.flatMap(m => m.parts.flatMap(p => (p.kind === 'text' ? [p.value] : [])))
		.join('\n');
}

/** The last request the scripted model received (fails if there was none). */
export function lastRequest(api: ScriptedModelApi): ScriptedRequest {
	const request = api.requests[api.requests.length - 1];
	assert.ok(request, 'the scripted model received no request');
	return request;
}

/**
 * Sets Longhaul settings globally for a whole describe block and restores them after it. Use it
 * inside describe(); for example the suites that count summarizer requests turn background
 * summarization off, since a summary prepared early changes when requests arrive.
 */
export function suiteSettings(values: Readonly<Record<string, unknown>>): void {
	const previous = new Map<string, unknown>();
	before(async () => {
		const config = vscode.workspace.getConfiguration('longhaul');
		for (const [key, value] of Object.entries(values)) {
			previous.set(key, config.inspect(key)?.globalValue);
			await config.update(key, value, vscode.ConfigurationTarget.Global);
		}
	});
	after(async () => {
		const config = vscode.workspace.getConfiguration('longhaul');
		for (const [key, value] of previous) await config.update(key, value, vscode.ConfigurationTarget.Global);
	});
}

/** Prints a line in the test report (plain console lines from a test do not reach the harness's output). */
export function say(line: string): void {
	(Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void }).consoleLog(line);
}

/**
 * For a describe() whose tests run scripted sessions over the data file at the small window
 * (sessionScript.ts): writes the file into the workspace before the suite and deletes it after;
 * a fresh chat and the small window before each test, the fixture's defaults after it.
 */
export function smallWindowSessions(): void {
	let dataFile: vscode.Uri | undefined;
	before(async () => {
		const folder = vscode.workspace.workspaceFolders?.[0];
		assert.ok(folder, 'the integration host has no workspace folder');
		dataFile = vscode.Uri.joinPath(folder.uri, DATA_FILE);
		await vscode.workspace.fs.writeFile(dataFile, Buffer.from(dataFileContent(), 'utf8'));
	});
	after(async () => {
		if (dataFile) await vscode.workspace.fs.delete(dataFile).then(undefined, () => undefined);
	});
	beforeEach(async () => {
		await resetSession();
		await (await scriptedModel()).setMaxInputTokens(SMALL_WINDOW);
	});
	afterEach(async () => (await scriptedModel()).reset());
}
