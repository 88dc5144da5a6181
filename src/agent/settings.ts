import * as vscode from 'vscode';
import type { SummarizationMode } from '../common/plan';

/** Longhaul's settings, read fresh on every request so a toggle takes effect without a reload. */
export interface LonghaulSettings {
	readonly summarizationMode: SummarizationMode;
}

export function readSettings(): LonghaulSettings {
	const config = vscode.workspace.getConfiguration('longhaul');
	return {
		summarizationMode: config.get<boolean>('halfContextSummarization', false) ? 'half-context' : 'legacy',
	};
}
