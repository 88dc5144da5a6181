import * as vscode from 'vscode';
import type { HandledRequest, LonghaulApi } from './agent/api';
import { createParticipant } from './agent/participant';
import { registerSummaryDocuments } from './agent/summaryDocuments';
import { registerTools } from './tools/registerTools';

export function activate(context: vscode.ExtensionContext): LonghaulApi {
	const handled = new vscode.EventEmitter<HandledRequest>();
	context.subscriptions.push(
		handled,
		createParticipant(context, h => handled.fire(h)),
		registerSummaryDocuments(),
		...registerTools(),
	);
	return { onDidHandleRequest: handled.event };
}

export function deactivate(): void {
	// Nothing to release beyond the subscriptions.
}
