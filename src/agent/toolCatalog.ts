import * as vscode from 'vscode';
import { chooseTools, TOOL_DEFINITIONS_SHARE, type ToolCandidate } from '../common/tools/toolSelection';
import { chooseRunner, type RunnerChoice, TERMINAL_TOOLS } from '../common/tools/runnerChoice';
import { EQUIVALENT_TOOLS, READ_ONLY_TOOLS, type LonghaulToolName } from '../tools/toolNames';
import { readContainmentSettings } from '../tools/commandContainment';
import { sandboxAvailability } from '../tools/commandSandbox';
import { countTokens } from '../common/tokens/tokenizer';
import { toolDefinitionTokens } from '../common/tools/toolDefinitions';

/** Longhaul's own tools, the tools that replace them, and tools other extensions tag for Longhaul. */
function isPreferred(tool: vscode.LanguageModelToolInformation): boolean {
	return tool.name.startsWith('longhaul_') || REPLACEMENTS.has(tool.name) || tool.tags.some(tag => tag.startsWith('longhaul'));
}

const REPLACEMENTS: ReadonlySet<string> = new Set([...Object.values(EQUIVALENT_TOOLS).flat(), ...TERMINAL_TOOLS]);

/**
 * Who runs the agent's commands here and which registered tools are withheld for it (decision 45):
 * Longhaul's sandbox where one can start (or must: `required`), VS Code's terminal only where the
 * user chose `off`, or where no Longhaul sandbox starts and VS Code's own is on.
 */
export async function runnerHere(all: readonly vscode.LanguageModelToolInformation[], trusted: boolean): Promise<RunnerChoice> {
	const { sandbox, network } = readContainmentSettings();
	const sandboxCanStart = trusted && sandbox !== 'off' && (await sandboxAvailability(network)).ok;
	return chooseRunner({ registered: all.map(t => t.name), sandbox, sandboxCanStart, trusted, vscodeSandbox: vscodeSandboxOn() });
}

/** VS Code's own agent sandbox for its terminal tool: `chat.agent.sandbox.enabled` (1.139), earlier `chat.tools.terminal.sandbox.enabled`. */
function vscodeSandboxOn(): boolean {
	const chat = vscode.workspace.getConfiguration('chat');
	const setting = chat.get<unknown>(process.platform === 'win32' ? 'agent.sandbox.enabledWindows' : 'agent.sandbox.enabled');
	const earlier = chat.get<unknown>('tools.terminal.sandbox.enabled');
	return setting === 'on' || setting === true || earlier === true;
}

export interface ToolSelection {
	readonly tools: vscode.LanguageModelToolInformation[];
	/** Tools left out because their definitions would take more than their share of the window. */
	readonly leftOut: readonly string[];
}

/**
 * The tools offered to the model: what is registered with `vscode.lm`, except the tools the
 * runner choice withholds (`withheld`: src/common/tools/runnerChoice.ts) and Longhaul's own read
 * tools where another extension registers an equivalent; in an untrusted workspace only the
 * known read-only tools ({@link READ_ONLY_TOOLS}); then, within {@link TOOL_DEFINITIONS_SHARE} of the window, the tools
 * the user attached, Longhaul's, and the rest in registry order.
 */
export function selectTools(
	all: readonly vscode.LanguageModelToolInformation[],
	options: { trusted: boolean; maxInputTokens: number; attached?: ReadonlySet<string>; withheld?: ReadonlySet<string> },
): ToolSelection {
	const permitted = options.trusted ? all.filter(tool => !options.withheld?.has(tool.name)) : all.filter(tool => READ_ONLY_TOOLS.has(tool.name));
	const names = new Set(permitted.map(t => t.name));
	const allowed = permitted.filter(tool => {
		const equivalents = EQUIVALENT_TOOLS[tool.name as LonghaulToolName];
		return !(equivalents && equivalents.some(e => names.has(e)));
	});
	const candidates: ToolCandidate[] = allowed.map(tool => ({
		name: tool.name,
		tokens: toolDefinitionTokens(toChatTools([tool]), countTokens),
		rank: options.attached?.has(tool.name) ? 0 : isPreferred(tool) ? 1 : 2,
	}));
	const choice = chooseTools(candidates, Math.floor(options.maxInputTokens * TOOL_DEFINITIONS_SHARE));
	const offered = new Set(choice.offered);
	return { tools: allowed.filter(t => offered.has(t.name)), leftOut: choice.leftOut };
}

export function toChatTools(tools: readonly vscode.LanguageModelToolInformation[]): vscode.LanguageModelChatTool[] {
	return tools.map(t => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
}
