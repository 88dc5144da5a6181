// The agent's side of prompt rendering: fills the prompts' props from the agent's state and
// turns prompt-tsx's Raw messages into vscode.LanguageModelChatMessage.
import { Raw } from '@vscode/prompt-tsx';
import * as vscode from 'vscode';
import { sharedTokenizer } from '../common/tokens/tokenizer';
import { isStateCarrier } from '../common/provider/providerState';
import { statePartsFor } from './providerStateParts';
import {
	measureAgentPrompt,
	renderCondensePrompt,
	renderCondenseBlockPrompt,
	renderSummarizerPrompt,
	type AgentPromptProps,
	type StatedLength,
	type SummarizerEntry,
} from '../prompts';

/** The agent prompt's props, less what this module fills in itself. */
export type AgentRenderInput = Omit<AgentPromptProps, 'workspace'>;

export interface ChatPrompt {
	readonly messages: vscode.LanguageModelChatMessage[];
	readonly tokenCount: number;
}

function workspaceDescription(): string {
	const folders = vscode.workspace.workspaceFolders ?? [];
	return folders.length ? `Workspace folders: ${folders.map(f => f.uri.fsPath).join(', ')}` : 'No workspace folder is open.';
}

/** The agent prompt's props: the input and the workspace folders. */
export function agentPromptProps(input: AgentRenderInput): AgentPromptProps {
	return { ...input, workspace: workspaceDescription() };
}

/** The whole agent prompt's size, whatever the budget. */
export async function measureAgent(input: AgentRenderInput): Promise<{ tokenCount: number }> {
	return { tokenCount: (await measureAgentPrompt(agentPromptProps(input), sharedTokenizer())).tokenCount };
}

export interface SummarizerRenderInput {
	readonly mode: 'full' | 'simple';
	readonly entries: readonly SummarizerEntry[];
	readonly previousSummary?: string;
	readonly focus?: string;
	/** The length the summary must stay under. */
	readonly length?: StatedLength;
}

/** The prompt that asks the model to shorten an older summary block to `targetTokens`. */
export async function renderCondenseBlock(block: string, targetTokens: number, budget: number): Promise<ChatPrompt> {
	const rendered = await renderCondenseBlockPrompt({ block, targetTokens }, { tokenizer: sharedTokenizer(), budget });
	return { messages: toVsCodeMessages(rendered.messages), tokenCount: rendered.tokenCount };
}

export async function renderSummarizer(input: SummarizerRenderInput, budget: number): Promise<ChatPrompt> {
	const rendered = await renderSummarizerPrompt(
		{ mode: input.mode, rounds: [...input.entries], previousSummary: input.previousSummary, focus: input.focus, length: input.length },
		{ tokenizer: sharedTokenizer(), budget },
	);
	return { messages: toVsCodeMessages(rendered.messages), tokenCount: rendered.tokenCount };
}

/** The condense prompt for a summary that came back too long. */
export async function renderCondense(input: { summary: string; length: StatedLength }, budget: number): Promise<ChatPrompt> {
	const rendered = await renderCondensePrompt(input, { tokenizer: sharedTokenizer(), budget });
	return { messages: toVsCodeMessages(rendered.messages), tokenCount: rendered.tokenCount };
}

function textOf(content: readonly Raw.ChatCompletionContentPart[]): string {
	return content.map(part => (part.type === Raw.ChatCompletionContentPartKind.Text ? part.text : '')).join('');
}

function parseArguments(json: string): object {
	try {
		const value = JSON.parse(json);
		return typeof value === 'object' && value !== null ? value : { value };
	} catch {
		return {};
	}
}

/** The provider state a rendered round carries (roundMessages.tsx), as data parts. */
function stateParts(content: readonly Raw.ChatCompletionContentPart[]): vscode.LanguageModelDataPart[] {
	return content.flatMap(part => (part.type === Raw.ChatCompletionContentPartKind.Opaque && isStateCarrier(part.value) ? statePartsFor(part.value.state) : []));
}

/**
 * Raw → VS Code. The public API has only User and Assistant roles, so system text goes as a
 * User message (prompt-tsx's own converter drops it). Consecutive tool results are merged into
 * one User message, since providers expect all results of an assistant turn right after it.
 * A round's provider state follows its text and tool calls; callModel decides whether it is sent.
 * What a provider would refuse is never sent (docs/decisions.md 39): a reply's text that is only
 * whitespace is no text part, and a round that says nothing (no text, no calls) is no message,
 * its provider state included.
 */
export function toVsCodeMessages(messages: readonly Raw.ChatMessage[]): vscode.LanguageModelChatMessage[] {
	const out: vscode.LanguageModelChatMessage[] = [];
	let pendingResults: vscode.LanguageModelToolResultPart[] = [];
	const flushResults = () => {
		if (pendingResults.length) {
			out.push(vscode.LanguageModelChatMessage.User(pendingResults));
			pendingResults = [];
		}
	};
	for (const message of messages) {
		if (message.role === Raw.ChatRole.Tool) {
			pendingResults.push(new vscode.LanguageModelToolResultPart(message.toolCallId ?? '', [new vscode.LanguageModelTextPart(textOf(message.content))]));
			continue;
		}
		flushResults();
		const text = textOf(message.content);
		if (message.role === Raw.ChatRole.Assistant) {
			const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart | vscode.LanguageModelDataPart)[] = [];
			if (text.trim()) parts.push(new vscode.LanguageModelTextPart(text));
			for (const call of message.toolCalls ?? []) {
				parts.push(new vscode.LanguageModelToolCallPart(call.id, call.function.name, parseArguments(call.function.arguments)));
			}
			if (!parts.length) continue;
			parts.push(...stateParts(message.content));
			out.push(vscode.LanguageModelChatMessage.Assistant(parts));
		} else {
			out.push(vscode.LanguageModelChatMessage.User(text));
		}
	}
	flushResults();
	return out;
}
