import * as vscode from 'vscode';
import type { SummarizationMode } from '../common/plan';

/** Longhaul's settings, read fresh on every request so a change takes effect without a reload. */
export interface LonghaulSettings {
	readonly summarizationMode: SummarizationMode;
	readonly maxToolCallsPerRequest: number;
}

export function readSettings(): LonghaulSettings {
	const config = vscode.workspace.getConfiguration('longhaul');
	return {
		summarizationMode: config.get<boolean>('halfContextSummarization', false) ? 'half-context' : 'legacy',
		maxToolCallsPerRequest: Math.max(1, Math.floor(config.get<number>('maxToolCallsPerRequest', 200))),
	};
}
