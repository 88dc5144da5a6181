import * as vscode from 'vscode';
import type { HandledRequest, LonghaulApi } from './agent/api';
import { createParticipant } from './agent/participant';
import { TokenCalibration } from './agent/tokenCalibration';
import { registerTools } from './tools/registerTools';

export function activate(context: vscode.ExtensionContext): LonghaulApi {
	const handled = new vscode.EventEmitter<HandledRequest>();
	// The model's tokens per local token, per model, kept across sessions (globalState).
	const calibration = new TokenCalibration(context.globalState);
	context.subscriptions.push(
		handled,
		createParticipant(context, calibration, h => handled.fire(h)),
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
