import * as vscode from 'vscode';
import { createParticipant } from './agent/participant';

export function activate(context: vscode.ExtensionContext): void {
	context.subscriptions.push(createParticipant(context));
}

export function deactivate(): void {
	// Nothing to release beyond the subscriptions.
}
