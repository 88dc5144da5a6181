// A reusable scripted agent for long-session tests: answers every agent request with one call to
// Longhaul's read-only tools (longhaul_readFile / longhaul_listDirectory) until it has made
// `toolCalls` calls in the current chat request, then answers with a final text. Summarization
// requests (the summarizer prompt: instructions plus a <conversation-transcript>) are answered with
// a deterministic `<summary>SUMMARY-n: …</summary>`, n counting from 1 per script.
//
// Plain data only (no `vscode` import), so the scripted-model fixture can bundle it for e2e runs.
//
//   const script = createSessionScript({ toolCalls: 60 });
//   await setHandler(script.handler);
//   await sendChat('@longhaul go');
//   script.summarizerRequests / script.agentRequests / script.summaries
import type { ScriptedHandler, ScriptedReply, ScriptedRequest } from '../fixtures/scripted-model/src/api';

/**
 * The window for long-session tests. The brief asked for 8,000 tokens, but in the VS Code 1.139 test host
 * `vscode.lm.tools` holds 32 tools whose definitions alone take about 8,100 tokens (see /context),
 * so an 8,000-token window leaves nothing for messages and every request fails with
 * PromptTooLargeError. 16,000 leaves about 7,100 tokens for the messages: the small window intended.
 */
export const SMALL_WINDOW = 16000;

/** A file the tests write into the workspace copy so each read returns about 1.5k characters. */
export const DATA_FILE = 'long-session-data.txt';
export const DATA_FILE_LINES = 200;
/** Lines per longhaul_readFile call (about 1.6k characters of result with line numbers). */
export const LINES_PER_READ = 25;

/** The content of {@link DATA_FILE}: numbered, distinct lines. */
export function dataFileContent(): string {
	const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
	const lines: string[] = [];
	for (let i = 1; i <= DATA_FILE_LINES; i++) {
		lines.push(`record ${String(i).padStart(4, '0')}: ${words.map((w, j) => `${w}${(i * 7 + j) % 100}`).join(' ')}`);
	}
	return lines.join('\n') + '\n';
}

export interface SessionScriptOptions {
	/** Tool calls per chat request before the final answer (or a function of the chat request's number, from 1). */
	readonly toolCalls: number | ((chatRequest: number) => number);
	/** The final answer's text (default: `Finished after N tool calls.`). */
	readonly finalText?: string;
	/** File to read (relative to the workspace); without it only small workspace files are read. */
	readonly dataFile?: string;
	/** Delay before answering a summarization request (e.g. for cancellation tests). */
	readonly summaryDelayMs?: number | ((summaryNumber: number) => number | undefined);
	/** Extra assistant text with each tool call (makes rounds bigger when results are small). */
	readonly roundTextChars?: number;
}

export interface SessionScript {
	readonly handler: ScriptedHandler;
	/** Every summarization request, oldest first. */
	readonly summarizerRequests: ScriptedRequest[];
	/** Every agent request, oldest first. */
	readonly agentRequests: ScriptedRequest[];
	/** Every summary text answered (without the tags), oldest first: summaries[n-1] is SUMMARY-n. */
	readonly summaries: string[];
	/** Everything, in arrival order. */
	readonly log: { kind: 'agent' | 'summarizer'; request: ScriptedRequest; summaryNumber?: number }[];
}

/** The text of every text part of a request, joined with newlines (all roles). */
export function allText(request: ScriptedRequest): string {
	return request.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'text' ? [p.value] : []))).join('\n');
}

/** True for Longhaul's summarization request (src/prompts/summarizerPrompt.tsx). */
export function isSummarizationRequest(request: ScriptedRequest): boolean {
	const text = allText(request);
	return text.includes('<conversation-transcript>') && text.includes('<summary>') && text.includes('You write the memory of a long coding-agent session');
}

/** True for Longhaul's condense request: a too-long summary to shorten (src/prompts/condensePrompt.tsx). */
export function isCondenseRequest(request: ScriptedRequest): boolean {
	const text = allText(request);
	return text.includes('<summary-to-condense>') && text.includes('You shorten the written memory of a coding-agent session');
}

/** The marker every scripted summary starts with. */
export function summaryMarker(n: number): string {
	return `SUMMARY-${n}:`;
}

/** Numbers of the scripted summaries whose marker appears in `text`. */
export function summaryNumbersIn(text: string): number[] {
	return [...text.matchAll(/SUMMARY-(\d+):/g)].map(m => Number(m[1]));
}

/** True when the request is the first agent request of a chat request (nothing after the user's message). */
function startsChatRequest(request: ScriptedRequest): boolean {
	const last = request.messages[request.messages.length - 1];
	return !!last && last.role === 'user' && !last.parts.some(p => p.kind === 'toolResult');
}

export function createSessionScript(options: SessionScriptOptions): SessionScript {
	const summarizerRequests: ScriptedRequest[] = [];
	const agentRequests: ScriptedRequest[] = [];
	const summaries: string[] = [];
	const log: SessionScript['log'] = [];
	let chatRequest = 0;
	let callsThisRequest = 0;

	const nextCall = (): { name: string; input: object } => {
		const i = callsThisRequest;
		if (options.dataFile) {
			if (i % 10 === 9) return { name: 'longhaul_listDirectory', input: { path: '.' } };
			const start = ((i * LINES_PER_READ) % DATA_FILE_LINES) + 1;
			return { name: 'longhaul_readFile', input: { path: options.dataFile, startLine: start, endLine: start + LINES_PER_READ - 1 } };
		}
		const small = [
			{ name: 'longhaul_readFile', input: { path: 'README.md' } },
			{ name: 'longhaul_readFile', input: { path: 'src/greeting.js' } },
			{ name: 'longhaul_listDirectory', input: { path: '.' } },
			{ name: 'longhaul_readFile', input: { path: 'notes.txt' } },
		];
		return small[i % small.length];
	};

	const handler: ScriptedHandler = (request): ScriptedReply => {
		if (isSummarizationRequest(request)) {
			summarizerRequests.push(request);
			const n = summaries.length + 1;
			const previous = summaryNumbersIn(allText(request));
			const text = `${summaryMarker(n)} scripted summary number ${n} of the long session; it absorbed ${previous.length ? 'an earlier summary' : 'no earlier summary'} and ${summarizerRequests.length} summarizer request(s) were made so far.`;
			summaries.push(text);
			log.push({ kind: 'summarizer', request, summaryNumber: n });
			const delayMs = typeof options.summaryDelayMs === 'function' ? options.summaryDelayMs(n) : options.summaryDelayMs;
			return { text: `<analysis>Scripted analysis ${n}.</analysis>\n<summary>${text}</summary>`, ...(delayMs ? { delayMs } : {}) };
		}
		agentRequests.push(request);
		log.push({ kind: 'agent', request });
		if (startsChatRequest(request)) {
			chatRequest++;
			callsThisRequest = 0;
		}
		const limit = typeof options.toolCalls === 'function' ? options.toolCalls(chatRequest) : options.toolCalls;
		if (callsThisRequest >= limit) {
			return { text: options.finalText ?? `Finished after ${callsThisRequest} tool calls.` };
		}
		const call = nextCall();
		callsThisRequest++;
		const pad = options.roundTextChars
			? ` ${'Looking further into the workspace. '.repeat(Math.ceil(options.roundTextChars / 36)).slice(0, options.roundTextChars)}`
			: '';
		return {
			text: `Step ${callsThisRequest}.${pad}`,
			toolCalls: [{ callId: `call-${chatRequest}-${callsThisRequest}`, ...call }],
		};
	};

	return { handler, summarizerRequests, agentRequests, summaries, log };
}

/** Tool-result parts in a request. */
export function toolResultCount(request: ScriptedRequest): number {
	return request.messages.reduce((n, m) => n + m.parts.filter(p => p.kind === 'toolResult').length, 0);
}

/**
 * Problems with tool-call pairing in one prompt: every call must be answered by a result with the
 * same id in the message right after it, and every result must answer a call of the message before.
 */
export function pairingProblems(request: ScriptedRequest): string[] {
	const problems: string[] = [];
	request.messages.forEach((message, i) => {
		const calls = message.parts.flatMap(p => (p.kind === 'toolCall' ? [p.callId] : []));
		const next = request.messages[i + 1];
		const answered = new Set(next?.parts.flatMap(p => (p.kind === 'toolResult' ? [p.callId] : [])) ?? []);
		for (const id of calls) {
			if (!answered.has(id)) problems.push(`message ${i}: tool call ${id} has no result in the next message`);
		}
		const results = message.parts.flatMap(p => (p.kind === 'toolResult' ? [p.callId] : []));
		const previous = request.messages[i - 1];
		const asked = new Set(previous?.parts.flatMap(p => (p.kind === 'toolCall' ? [p.callId] : [])) ?? []);
		for (const id of results) {
			if (!asked.has(id)) problems.push(`message ${i}: tool result ${id} answers no call of the previous message`);
		}
	});
	return problems;
}

/** Call ids of every tool call in a request. */
export function toolCallIds(request: ScriptedRequest): string[] {
	return request.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'toolCall' ? [p.callId] : [])));
}
