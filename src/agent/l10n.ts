// Every sentence Longhaul writes in the chat goes through here: vscode.l10n.t with the English
// template as its key (l10n/bundle.l10n.json), for messages built in src/common and for literals.
import * as vscode from 'vscode';
import { formatMessage, type Message } from '../common/text/message';

/** A message from src/common in the user's language (nested counted nouns included). */
export function localize(m: Message): string {
	return formatMessage(m, template => vscode.l10n.t(template));
}

/** Several sentences, one after the other. */
export function localizeAll(messages: readonly Message[]): string {
	return messages.map(localize).join(' ');
}
