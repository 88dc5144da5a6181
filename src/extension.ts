import * as vscode from 'vscode';
import type { HandledRequest, LonghaulApi } from './agent/api';
import { createParticipant } from './agent/participant';
import { log } from './agent/log';
import { registerSummaryDocuments } from './agent/summaryDocuments';
import { createTelemetry } from './agent/telemetry';
import { TokenCalibration } from './agent/tokenCalibration';
import { registerTools } from './tools/registerTools';

export function activate(context: vscode.ExtensionContext): LonghaulApi {
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
