// Provider state (src/common/provider/providerState.ts) on the vscode side: the data parts a
// rendered round carries, and the check at send time that drops the ones its model would
// misread (another model's, or one whose prompt before it has changed since).
import * as vscode from 'vscode';
import { PromptFingerprint, type FingerprintMessage, type FingerprintPart } from '../common/provider/promptFingerprint';
import { keptStateParts, stateBytes, stateToSend, type ProviderState } from '../common/provider/providerState';

/** A data part made by {@link statePartsFor}, with the state it stands for. */
class StatePart extends vscode.LanguageModelDataPart {
	constructor(
		data: Uint8Array,
		mimeType: string,
		readonly state: ProviderState,
	) {
		super(data, mimeType);
	}
}

/** A round's state as data parts for its assistant message, in the order they came. */
export function statePartsFor(state: ProviderState): vscode.LanguageModelDataPart[] {
	return state.parts.map(part => new StatePart(stateBytes(part), part.mimeType, state));
}

function textOfResult(part: vscode.LanguageModelToolResultPart): string {
	return part.content.map(inner => (inner instanceof vscode.LanguageModelTextPart ? inner.value : '')).join('');
}

/** A message as the fingerprint sees it: every part but data parts. */
export function fingerprintMessage(message: vscode.LanguageModelChatMessage): FingerprintMessage {
	const parts: FingerprintPart[] = [];
	for (const part of message.content) {
		if (part instanceof vscode.LanguageModelTextPart) {
			parts.push({ kind: 'text', text: part.value });
		} else if (part instanceof vscode.LanguageModelToolCallPart) {
			parts.push({ kind: 'call', callId: part.callId, name: part.name, input: JSON.stringify(part.input ?? {}) });
		} else if (part instanceof vscode.LanguageModelToolResultPart) {
			parts.push({ kind: 'result', callId: part.callId, text: textOfResult(part) });
		}
	}
	const role =
		message.role === vscode.LanguageModelChatMessageRole.Assistant
			? 'assistant'
			: message.role === vscode.LanguageModelChatMessageRole.User
				? 'user'
				: 'system';
	return { role, parts };
}

export interface PreparedMessages {
	readonly messages: vscode.LanguageModelChatMessage[];
	/** The fingerprint of everything sent, to which the reply is added. */
	readonly fingerprint: PromptFingerprint;
	/** Data parts of earlier replies sent back, and left out. */
	readonly stateSent: number;
	readonly stateDropped: number;
}

/**
 * The messages to send to `model` (a `vendor/id` key): Longhaul's own state parts stay only where
 * they belong to this model and the prompt up to their reply is what the model answered then.
 * Messages without such parts are passed on as they are.
 */
export function withSendableState(model: string, messages: readonly vscode.LanguageModelChatMessage[]): PreparedMessages {
	const fingerprint = new PromptFingerprint();
	let stateSent = 0;
	let stateDropped = 0;
	const out = messages.map(message => {
		fingerprint.add(fingerprintMessage(message));
		const ours = message.content.filter((part): part is StatePart => part instanceof StatePart);
		if (!ours.length) return message;
		const keep = stateToSend(ours[0].state, model, fingerprint.value()) !== undefined;
		if (keep) {
			stateSent += ours.length;
			return message;
		}
		stateDropped += ours.length;
		const content = message.content.filter(part => !(part instanceof StatePart && ours.includes(part)));
		return message.role === vscode.LanguageModelChatMessageRole.User
			? vscode.LanguageModelChatMessage.User(
					content as (vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart | vscode.LanguageModelDataPart)[],
					message.name,
				)
			: vscode.LanguageModelChatMessage.Assistant(
					content as (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart | vscode.LanguageModelDataPart)[],
					message.name,
				);
	});
	return { messages: out, fingerprint, stateSent, stateDropped };
}

/**
 * The state of a reply to keep with its round: its data parts of provider MIME types, and the
 * fingerprint of the prompt followed by the reply as the next prompt will render it.
 */
export function replyState(
	model: string,
	sent: PromptFingerprint,
	reply: { readonly text: string; readonly toolCalls: readonly { callId: string; name: string; input: object }[] },
	dataParts: readonly vscode.LanguageModelDataPart[],
): { state?: ProviderState; tooLarge: number } {
	const kept = keptStateParts(dataParts);
	if (!kept.parts.length) return { tooLarge: kept.tooLarge };
	// As toVsCodeMessages renders the reply: blank text is no part (docs/decisions.md 39).
	const parts: FingerprintPart[] = reply.text.trim() ? [{ kind: 'text', text: reply.text }] : [];
	for (const call of reply.toolCalls) parts.push({ kind: 'call', callId: call.callId, name: call.name, input: JSON.stringify(call.input ?? {}) });
	const prefix = sent.add({ role: 'assistant', parts }).value();
	return { state: { model, prefix, parts: kept.parts }, tooLarge: kept.tooLarge };
}
