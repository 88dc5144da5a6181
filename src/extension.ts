import * as vscode from 'vscode';
import type { HandledRequest, LonghaulApi } from './agent/api';
import { createParticipant } from './agent/participant';
import { log } from './agent/log';
import { registerSummaryDocuments } from './agent/summaryDocuments';
import { createTelemetry } from './agent/telemetry';
import { registerTools } from './tools/registerTools';

export function activate(context: vscode.ExtensionContext): LonghaulApi {
	const handled = new vscode.EventEmitter<HandledRequest>();
	// Statistics through VS Code's telemetry API, written to the Longhaul log only (docs/telemetry.md).
	const telemetry = createTelemetry(vscode.env.createTelemetryLogger, line => log().info(line));
	context.subscriptions.push(
		handled,
		telemetry,
		createParticipant(context, telemetry, h => handled.fire(h)),
		registerSummaryDocuments(),
		...registerTools(),
	);
	return { onDidHandleRequest: handled.event };
}

export function deactivate(): void {
	// Nothing to release beyond the subscriptions.
}
