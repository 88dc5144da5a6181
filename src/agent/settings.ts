import * as vscode from 'vscode';
import type { SummarizationMode } from '../common/planning/plan';

/** Longhaul's settings, read fresh on every request so a change takes effect without a reload. */
export interface LonghaulSettings {
	readonly summarizationMode: SummarizationMode;
	readonly maxToolCallsPerRequest: number;
	/** Render the done ledger after the summaries. */
	readonly doneLedger: boolean;
	/** Mask old tool results before asking the model for a summary. */
	readonly maskOldToolResults: boolean;
	/** Share of the message budget (0..1) past which the summary is prepared in the background; 0 is off. */
	readonly backgroundSummarizationThreshold: number;
}

export function readSettings(): LonghaulSettings {
	const config = vscode.workspace.getConfiguration('longhaul');
	const percent = config.get<number>('backgroundSummarizationThreshold', 80);
	return {
		summarizationMode: config.get<boolean>('halfContextSummarization', false) ? 'half-context' : 'legacy',
		maxToolCallsPerRequest: Math.max(1, Math.floor(config.get<number>('maxToolCallsPerRequest', 200))),
		doneLedger: config.get<boolean>('doneLedger', true),
		maskOldToolResults: config.get<boolean>('maskOldToolResults', false),
		backgroundSummarizationThreshold: Number.isFinite(percent) ? Math.min(100, Math.max(0, percent)) / 100 : 0.8,
	};
}
