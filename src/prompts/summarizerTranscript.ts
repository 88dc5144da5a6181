// The part of the conversation the summarizer absorbs, written out as a tagged transcript:
// user messages, assistant text (and thinking in Full mode), tool calls with their arguments
// and results. Text, not chat messages, so the summarizer request carries no tool calls. Every
// text in it has its structure tags escaped (promptTags.ts): a tool result cannot close its
// element and start a forged <user> message.
import { INTERRUPTED_RESULT, type Round } from '../common/conversation/conversation';
import type { SummarizerEntry } from '../common/summaries/summarizerInput';
import type { SummaryPromptMode } from '../common/summaries/summarizationFlow';
import { attributeValue, escapeTags } from './promptTags';
import { EMPTY_TOOL_RESULT, cutToolResultChars } from './toolResultText';

export type { SummarizerEntry } from '../common/summaries/summarizerInput';
export type { SummaryPromptMode } from '../common/summaries/summarizationFlow';

export const DEFAULT_SIMPLE_TOOL_RESULT_CHARS = 400;

export interface TranscriptOptions {
	readonly mode: SummaryPromptMode;
	/** Simple mode: characters kept of each tool result (head and tail). */
	readonly simpleToolResultChars?: number;
}

function roundText(round: Round, options: TranscriptOptions): string {
	const simple = options.mode === 'simple';
	const maxChars = options.simpleToolResultChars ?? DEFAULT_SIMPLE_TOOL_RESULT_CHARS;
	const parts: string[] = [];
	if (!simple && round.thinking?.trim()) {
		parts.push(`<thinking>\n${escapeTags(round.thinking)}\n</thinking>`);
	}
	if (round.response.trim()) {
		parts.push(escapeTags(round.response));
	}
	for (const call of round.toolCalls) {
		let result = call.result === undefined ? INTERRUPTED_RESULT : call.result.trim() === '' ? EMPTY_TOOL_RESULT : call.result;
		if (simple) {
			result = cutToolResultChars(result, maxChars);
		}
		parts.push(`<tool-call name="${attributeValue(call.name)}">\n${escapeTags(call.arguments)}\n</tool-call>`);
		parts.push(`<tool-result name="${attributeValue(call.name)}">\n${escapeTags(result)}\n</tool-result>`);
	}
	return `<assistant>\n${parts.join('\n')}\n</assistant>`;
}

export function summarizerTranscript(entries: readonly SummarizerEntry[], options: TranscriptOptions): string {
	const blocks = entries.map(entry => (entry.kind === 'user' ? `<user>\n${escapeTags(entry.text)}\n</user>` : roundText(entry.round, options)));
	return `<conversation-transcript>\n${blocks.join('\n')}\n</conversation-transcript>`;
}
