import * as vscode from 'vscode';
import { EQUIVALENT_TOOLS, WRITING_TOOLS, type LonghaulToolName } from '../tools/toolNames';

/** Providers reject requests with more tools than this (OpenAI's limit is the tightest). */
const MAX_TOOLS = 128;

/** Tools other extensions mark as writing or running things; hidden in untrusted workspaces. */
const WRITING_TAGS = ['vscode_editing', 'terminal', 'write'];

function isWriting(tool: vscode.LanguageModelToolInformation): boolean {
	return WRITING_TOOLS.has(tool.name) || tool.tags.some(tag => WRITING_TAGS.includes(tag));
}

/**
 * The tools offered to the model: everything registered with `vscode.lm`, except Longhaul's own
 * tools where another extension registers an equivalent, and except writing tools when the
 * workspace is not trusted.
 */
export function selectTools(all: readonly vscode.LanguageModelToolInformation[], trusted: boolean): vscode.LanguageModelToolInformation[] {
	const names = new Set(all.map(t => t.name));
	const selected = all.filter(tool => {
		const equivalents = EQUIVALENT_TOOLS[tool.name as LonghaulToolName];
		if (equivalents && equivalents.some(e => names.has(e))) {
			return false;
		}
		return trusted || !isWriting(tool);
	});
	// Our own tools first, so a long list never cuts them.
	selected.sort((a, b) => Number(b.name.startsWith('longhaul_')) - Number(a.name.startsWith('longhaul_')));
	return selected.slice(0, MAX_TOOLS);
}

export function toChatTools(tools: readonly vscode.LanguageModelToolInformation[]): vscode.LanguageModelChatTool[] {
	return tools.map(t => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
}

/** The text that stands for the tool definitions in the token budget. */
export function toolDefinitionsText(tools: readonly vscode.LanguageModelChatTool[]): string {
	return tools.map(t => JSON.stringify(t)).join('\n');
}
