import * as vscode from 'vscode';

/** The text the model sees for a tool result. Non-text parts are described rather than dropped silently. */
export function toolResultText(result: vscode.LanguageModelToolResult): string {
	return result.content
		.map(part => {
			if (part instanceof vscode.LanguageModelTextPart) {
				return part.value;
			}
			if (part instanceof vscode.LanguageModelPromptTsxPart) {
				return JSON.stringify(part.value);
			}
			return `[${(part as object)?.constructor?.name ?? 'unknown'} part omitted]`;
		})
		.join('');
}

/** A tool failure, phrased for the model so it can recover. */
export function toolErrorText(name: string, error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	return `Error: the tool ${name} failed: ${message}`;
}
