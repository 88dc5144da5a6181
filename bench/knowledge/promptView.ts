// What one prompt as sent shows, read once per request for the knowledge probe: its text, the
// summaries in it (and the text around them), the done-ledger in it (read by ledgerReader.ts),
// and the tool results of the rounds it shows verbatim, as shown (a masked or elided result is a
// placeholder there, so the call does not count as shown with its result).
import type { Raw } from '@vscode/prompt-tsx';
import type { Round } from '../../src/common/conversation/conversation';
import { readLedger, type ReadLedger } from '../replay/ledgerReader';

export interface PromptView {
	/** The messages' text, one message per line block, with a line break at both ends. */
	readonly text: string;
	/** The same with every run of whitespace as one space (requests are compared this way). */
	readonly flat: string;
	/** The text with the summaries shown taken out: what is there word for word. */
	readonly outsideSummaries: string;
	/** The summaries' texts that are in the prompt. */
	readonly summaries: readonly string[];
	readonly ledger: ReadLedger;
	/** Round id → its calls' results as the prompt shows them. */
	readonly shownResults: ReadonlyMap<string, readonly (string | undefined)[]>;
}

export const flatten = (text: string) => text.replace(/\s+/g, ' ');

/** The text of all messages, one message per line block. */
export function messagesText(messages: readonly Raw.ChatMessage[]): string {
	return messages.map(m => m.content.map(part => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('')).join('\n');
}

/** `summaries`: the texts of the summaries the strategy laid out; those not found in the prompt are left out. */
export function promptView(messages: readonly Raw.ChatMessage[], shown: readonly Round[], summaries: readonly string[]): PromptView {
	const text = '\n' + messagesText(messages) + '\n';
	const inPrompt = summaries.filter(s => s.trim() !== '' && text.includes(s));
	let outside = text;
	for (const s of inPrompt) outside = outside.split(s).join('\n');
	return {
		text,
		flat: flatten(text),
		outsideSummaries: outside,
		summaries: inPrompt,
		ledger: readLedger(text),
		shownResults: new Map(shown.map(round => [round.id, round.toolCalls.map(c => c.result)])),
	};
}
