// Everything one chat request's handler works with, gathered once by participant.ts: the request
// and its stream, the conversation rebuilt from the chat history (in `state`), the settings read
// for this request, the tools offered, and the services that live as long as the extension.
import type * as vscode from 'vscode';
import type { InstructionFilesRead } from '../instructionFiles';
import type { RequestState } from '../requestState';
import type { ResolvedSummarizer } from '../summarizerModel';
import type { CarriedJobs, ProviderSlots, SummarySpeeds } from '../backgroundSummary';
import type { SummaryDocuments } from '../summaryDocuments';
import type { ChatMemory } from '../chatMemory';
import type { SummarizingLines } from '../summarizingProgress';
import type { LonghaulSettings } from '../settings';
import type { LonghaulTelemetry } from '../telemetry';
import type { TokenCalibration } from '../tokenCalibration';

export interface RequestContext {
	readonly request: vscode.ChatRequest;
	readonly stream: vscode.ChatResponseStream;
	readonly token: vscode.CancellationToken;
	readonly state: RequestState;
	readonly settings: LonghaulSettings;
	/** The tools offered to the model in this request, and those left out to keep their definitions small. */
	readonly tools: readonly vscode.LanguageModelToolInformation[];
	readonly toolsLeftOut: readonly string[];
	/** The model's tokens per local token at the start of the request. */
	readonly ratio: number;
	readonly telemetry: LonghaulTelemetry;
	readonly calibration: TokenCalibration;
	/** The model that writes summaries in this request (`longhaul.summarizerModel`). */
	readonly summarizer: ResolvedSummarizer;
	/** The workspace's instruction files, read at the start of this request (instructionFiles.ts). */
	readonly instructions: InstructionFilesRead;
	/** The learned speed of each model's summaries, and the background job handed from request to request (both live as long as the extension). */
	readonly speeds: SummarySpeeds;
	/** Whether each model's provider runs one request at a time, as learned (backgroundSummary.ts). */
	readonly slots: ProviderSlots;
	readonly carried: CarriedJobs;
	/** The summaries this window can open as documents (summaryDocuments.ts). */
	readonly documents: SummaryDocuments;
	/** What the chat's last request left set aside, and the notices it was given once (chatMemory.ts). */
	readonly chats: ChatMemory;
	/** The progress lines of this request that say a summary is being written (the context meter spins from them). */
	readonly summarizing: SummarizingLines;
	/** Invokes a tool for the agent (vscode.lm.invokeTool, recorded as a part of the response). */
	readonly invokeTool: typeof vscode.lm.invokeTool;
}

/** A slash command's handler. */
export type CommandHandler = (context: RequestContext) => Promise<vscode.ChatResult>;
