// The text that stands for the tool definitions in the token budget: the JSON of each definition
// (name, description, input schema), one a line. The agent charges every request with its count
// (src/agent/agentLoop.ts budgetFor, toolCatalog.ts), and so does the replay benchmark for the
// product's own catalogue (bench/replay/toolCharge.ts). No vscode import: the definition is the
// shape of vscode.LanguageModelChatTool.

export interface ToolDefinition {
	readonly name: string;
	readonly description: string;
	readonly inputSchema?: object | undefined;
}

/** The JSON of each definition, one a line, with the keys in the order the agent sends them. */
export function toolDefinitionsText(tools: readonly ToolDefinition[]): string {
	return tools.map(t => JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })).join('\n');
}

/** Tokens the definitions cost on every request (0 without tools). */
export function toolDefinitionTokens(tools: readonly ToolDefinition[], countTokens: (text: string) => number): number {
	return tools.length ? countTokens(toolDefinitionsText(tools)) : 0;
}
