// Longhaul's entry point. `activate` builds what lives as long as the window (the telemetry sender,
// the learned token ratios, the summary edits waiting for the next request) and registers the
// @longhaul participant, the summary documents and the tools.
//
// One request: VS Code calls the participant's handler (agent/participant.ts), which rebuilds the
// conversation from the chat history, runs a slash command (agent/commands/) or the agent loop
// (agent/agentRequest.ts → agent/agentLoop.ts, which fits each prompt to the window with
// common/fitting/fitPrompt.ts), and stores the turn's record in the response's metadata.
import * as vscode from 'vscode';
import type { HandledRequest, LonghaulApi } from './agent/api';
import { createParticipant } from './agent/participant';
import { log } from './agent/log';
import { SummaryDocuments } from './agent/summaryDocuments';
import { SummaryEditStore } from './agent/summaryEdits';
import { ContextMeter } from './agent/contextMeter';
import { ChatMemory } from './agent/chatMemory';
import { CarriedJobs, ProviderSlots, SummarySpeeds } from './agent/backgroundSummary';
import { createTelemetry } from './agent/telemetry';
import { TokenCalibration } from './agent/tokenCalibration';
import { registerTools } from './tools/registerTools';
import { bashParserFailure, loadBashParser } from './common/shell/bashParser';

export function activate(context: vscode.ExtensionContext): LonghaulApi {
	// The bash parser the done-ledger reads command lines with (WebAssembly); without it every command counts as run.
	void loadBashParser().then(ready => {
		if (!ready) log().warn(`the bash parser did not load, every shell command is recorded as run: ${bashParserFailure()}`);
	});
	const handled = new vscode.EventEmitter<HandledRequest>();
	// Statistics through VS Code's telemetry API, written to the Longhaul log only (docs/telemetry.md).
	const telemetry = createTelemetry(vscode.env.createTelemetryLogger, line => log().info(line));
	// The model's tokens per local token, per model, kept across sessions (globalState).
	const calibration = new TokenCalibration(context.globalState);
	// Summary edits saved in the editor wait for the next request of their chat (workspaceState).
	const edits = new SummaryEditStore(context.workspaceState);
	// The status bar's context meter, for the chat of the newest @longhaul request.
	const meter = new ContextMeter();
	// Background summaries: each model's learned speed, and the job a request hands to the next one.
	const speeds = new SummarySpeeds();
	const slots = new ProviderSlots();
	const carried = new CarriedJobs();
	// The summaries this window can open as documents (longhaul-summary:), with their commands.
	const documents = new SummaryDocuments(edits, context.workspaceState);
	// What each chat's last request left set aside, and the notices each chat was given once.
	const chats = new ChatMemory();
	context.subscriptions.push(
		handled,
		telemetry,
		meter,
		carried,
		documents,
		createParticipant(context, { telemetry, calibration, edits, meter, speeds, slots, carried, documents, chats }, h => handled.fire(h)),
		...registerTools(),
	);
	return {
		onDidHandleRequest: handled.event,
		tokenRatio: model => calibration.ratio(model),
		forgetTokenRatios: () => calibration.forget(),
		get contextMeter() {
			return meter.shown;
		},
	};
}

export function deactivate(): void {
	// Nothing to release beyond the subscriptions.
}
