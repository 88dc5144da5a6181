// What one @longhaul request gives the agent loop: the chat request, its tools and settings, where
// to write, and the services the loop calls (tools, calibration, telemetry), injected so tests and
// the loop share one path.
import type * as vscode from 'vscode';
import type { ReferenceAttachment } from '../prompts';
import type { LonghaulSettings } from './settings';
import type { LonghaulTelemetry } from './telemetry';
import type { TokenCalibration } from './tokenCalibration';
import type { SummarizerModel } from './compaction';

export interface AgentRun {
	readonly request: vscode.ChatRequest;
	readonly references: readonly ReferenceAttachment[];
	readonly tools: readonly vscode.LanguageModelToolInformation[];
	readonly settings: LonghaulSettings;
	readonly stream: vscode.ChatResponseStream;
	readonly token: vscode.CancellationToken;
	/** Invokes a tool; injected so tests and the loop share one path. */
	readonly invokeTool: typeof vscode.lm.invokeTool;
	/** The model's tokens per local token, learned per model; the budget is scaled by it. */
	readonly calibration: TokenCalibration;
	readonly telemetry: LonghaulTelemetry;
	/** The workspace's instruction files, pinned in every prompt's instructions. */
	readonly pinnedInstructions?: string;
	/** Another model that writes the summaries (`longhaul.summarizerModel`). */
	readonly summarizerModel?: SummarizerModel;
}
