// Scripts shared by the fault and security suites (faults.test.ts, security.test.ts).
//
// agentScript() is a scripted agent for ONE sendChat: its first `toolCalls` replies each ask for
// one tool call (by default longhaul_readFile of a ~1.5k-character file, so a small window fills
// up and summarization triggers), then it answers with text. Requests that carry the summarizer's
// instructions are answered by `summarizer` instead, and counted separately.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ScriptedReply, ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { userText } from './helpers';

/** The opening words of src/prompts/summarizerInstructions.ts: only summarizer requests contain them. */
export const SUMMARIZER_MARKER = 'You write the memory of a long coding-agent session';
/** The opening words of src/prompts/condensePrompt.tsx: a too-long summary to shorten. */
export const CONDENSE_MARKER = 'You shorten the written memory of a coding-agent session';

/** Every text of a request, whatever the role (system instructions may arrive as either). */
export function allText(request: ScriptedRequest): string {
	return request.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'text' ? [p.value] : p.kind === 'toolResult' ? [p.text] : []))).join('\n');
}

/** A summarization request, or the condense request that follows a too-long summary (both go to the script's `summarizer`). */
export function isSummarizerRequest(request: ScriptedRequest): boolean {
	return request.messages.some(m => m.parts.some(p => p.kind === 'text' && (p.value.includes(SUMMARIZER_MARKER) || p.value.includes(CONDENSE_MARKER))));
}

/**
 * The newest request that is not a summarizer's. A summary prepared in the background can be sent
 * after a turn's last agent request, so the newest request of all is not always the agent's.
 */
export function lastAgentRequest(requests: readonly ScriptedRequest[]): ScriptedRequest {
	for (let i = requests.length - 1; i >= 0; i--) if (!isSummarizerRequest(requests[i])) return requests[i];
	throw new Error('the scripted model received no agent request');
}

/** Tool results of a request, in order. */
export function toolResults(request: ScriptedRequest): { callId: string; text: string }[] {
	return request.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'toolResult' ? [{ callId: p.callId, text: p.text }] : [])));
}

/** A rough size of a request: ceil(chars / 4) over the text of every part. */
export function estimatedTokens(request: ScriptedRequest): number {
	const chars = request.messages.reduce(
		(sum, m) =>
			sum +
			m.parts.reduce(
				(s, p) =>
					s +
					(p.kind === 'text'
						? p.value.length
						: p.kind === 'toolResult'
							? p.text.length
							: p.kind === 'toolCall'
								? JSON.stringify(p.input).length + p.name.length
								: p.kind === 'data'
									? 0
									: p.value.length),
				0,
			),
		0,
	);
	return Math.ceil(chars / 4);
}

export const GOOD_SUMMARY =
	'<summary>The user asked to inspect the data files; the agent read several of them. Nothing was changed. Continue reading the remaining files.</summary>';

export interface ScriptedCall {
	readonly name: string;
	readonly input: object;
}

export interface AgentScriptOptions {
	/** How many agent replies ask for a tool call before the final answer. */
	readonly toolCalls: number;
	/** The call of step `i` (default: read data file i). */
	readonly call?: (i: number) => ScriptedCall;
	/** The reply to summarizer request number `n` (0-based); default GOOD_SUMMARY. */
	readonly summarizer?: (request: ScriptedRequest, n: number) => ScriptedReply;
	readonly finalText?: string;
	/** Unique prefix for call ids (call ids must not repeat within a conversation). */
	readonly id: string;
}

export interface AgentScript {
	readonly handler: (request: ScriptedRequest) => ScriptedReply;
	readonly agentRequests: ScriptedRequest[];
	readonly summarizerRequests: ScriptedRequest[];
}

export function agentScript(options: AgentScriptOptions): AgentScript {
	const agentRequests: ScriptedRequest[] = [];
	const summarizerRequests: ScriptedRequest[] = [];
	const call = options.call ?? ((i: number) => ({ name: 'longhaul_readFile', input: { path: dataFile(i) } }));
	const handler = (request: ScriptedRequest): ScriptedReply => {
		if (isSummarizerRequest(request)) {
			summarizerRequests.push(request);
			return options.summarizer ? options.summarizer(request, summarizerRequests.length - 1) : { text: GOOD_SUMMARY };
		}
		const step = agentRequests.length;
		agentRequests.push(request);
		if (step < options.toolCalls) {
			const c = call(step);
			return { text: `Step ${step}.`, toolCalls: [{ callId: `${options.id}-${step}`, name: c.name, input: c.input }] };
		}
		return { text: options.finalText ?? `Done (${options.id}).` };
	};
	return { handler, agentRequests, summarizerRequests };
}

export const DATA_DIR = 'fault-data';
const DATA_FILES = 6;

/** Workspace-relative path of data file `i` (there are a few; they repeat). */
export function dataFile(i: number): string {
	return `${DATA_DIR}/chunk-${i % DATA_FILES}.txt`;
}

export function workspaceRoot(): string {
	const folder = vscode.workspace.workspaceFolders?.[0];
	assert.ok(folder, 'the test host has no workspace folder');
	return folder.uri.fsPath;
}

/** Creates the data files (~1.5k characters each, prose-like so they tokenize like real files). */
export function createDataFiles(): void {
	const dir = path.join(workspaceRoot(), DATA_DIR);
	fs.mkdirSync(dir, { recursive: true });
	for (let f = 0; f < DATA_FILES; f++) {
		const lines: string[] = [];
		for (let l = 0; lines.join('\n').length < 1500; l++) {
			lines.push(`File ${f} line ${l}: the quick brown fox ${f * 31 + l} jumps over the lazy dog while the parser reads token ${l * 7}.`);
		}
		fs.writeFileSync(path.join(dir, `chunk-${f}.txt`), lines.join('\n'));
	}
}

/** Removes the data folder (and anything the tests put in it), so other suites see the workspace as it was. */
export function removeDataFiles(): void {
	fs.rmSync(path.join(workspaceRoot(), DATA_DIR), { recursive: true, force: true });
}

/** Asserts that every earlier user request is in the request's user messages, verbatim. */
export function assertAllRequestsPresent(request: ScriptedRequest, prompts: readonly string[], context: string): void {
	const text = userText(request);
	for (const prompt of prompts) {
		assert.ok(text.includes(prompt), `${context}: the user request ${JSON.stringify(prompt)} is missing from the prompt to the model`);
	}
}

/** Replies with `size` characters of summary text inside <summary> tags. */
export function hugeSummary(size: number): ScriptedReply {
	const sentence = 'The agent read another data file and found more lines about the quick brown fox. ';
	return { text: `<summary>${sentence.repeat(Math.ceil(size / sentence.length))}</summary>` };
}

export function delay(ms: number): Promise<void> {
	return new Promise(r => setTimeout(r, ms));
}

/** Waits until `condition` holds (polling), or fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs: number, message: string): Promise<void> {
	const started = Date.now();
	while (!condition()) {
		if (Date.now() - started > timeoutMs) throw new Error(message);
		await delay(50);
	}
}
