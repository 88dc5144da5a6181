import * as vscode from 'vscode';
import type { HandledRequest, LonghaulApi } from './agent/api';
import { createParticipant } from './agent/participant';
import { log } from './agent/log';
import { registerSummaryDocuments } from './agent/summaryDocuments';
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
	context.subscriptions.push(
		handled,
		telemetry,
		createParticipant(context, telemetry, calibration, h => handled.fire(h)),
		registerSummaryDocuments(),
		...registerTools(),
	);
	return {
		onDidHandleRequest: handled.event,
		tokenRatio: model => calibration.ratio(model),
		forgetTokenRatios: () => calibration.forget(),
	};
}

export function deactivate(): void {
	// Nothing to release beyond the subscriptions.
}
