// The token budget of a request: the model's window, less the tool definitions it is sent with,
// scaled by the model's token ratio (calibration.ts). The one place the agent computes it.
import type * as vscode from 'vscode';
import { computeBudget, type PromptBudget } from '../common/tokens/budget';
import { countTokens } from '../common/tokens/tokenizer';
import { toolDefinitionTokens } from '../common/tools/toolDefinitions';

/** The budget of a request with these tools at any token ratio (the tool definitions counted once). */
export function requestBudget(model: vscode.LanguageModelChat, tools: readonly vscode.LanguageModelChatTool[]): (ratio?: number) => PromptBudget {
	const toolTokens = toolDefinitionTokens(tools, countTokens);
	return ratio => computeBudget(model.maxInputTokens, toolTokens, ratio);
}

/** The budget of a request with these tools, scaled by the model's token ratio (calibration.ts). */
export function budgetFor(model: vscode.LanguageModelChat, tools: readonly vscode.LanguageModelChatTool[], ratio = 1): PromptBudget {
	return requestBudget(model, tools)(ratio);
}
