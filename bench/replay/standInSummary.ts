// The summarizer's stand-in. The benchmark has no model, so every "summary" is written by one
// deterministic rule, the same for every strategy: the same absorbed input costs the same summary.
//
// Rule: the previous summary (absorbed whole), then for each absorbed entry one line:
//   `user: <first line of the user message>`
//   `- <first line of the round's response>` and, per tool call, `  <name>: <first line of its arguments>`
// Each line is cut to LINE_MAX_CHARS characters. The text is then capped at `maxTokens` tokens
// (the product's summaryBudget: 20% of the message budget, i.e. a fixed share of the window): when
// it is longer, its first 30% and last 70% of the kept tokens stay around a marker, so the newest
// work keeps the most room (as the summarizer instructions ask) and the oldest facts are not all lost.
import type { SummarizerEntry } from '../../src/common/summaries/summarizerInput';
import type { TextTokenizer } from '../../src/common/tokens/tokenizer';

export const LINE_MAX_CHARS = 160;
const HEAD_SHARE = 0.3;
const MARKER_TOKENS = 24;

function firstLine(text: string): string {
	const line =
		text
			.split('\n')
			.find(l => l.trim() !== '')
			?.trim() ?? '';
	return line.length > LINE_MAX_CHARS ? line.slice(0, LINE_MAX_CHARS - 1) + '…' : line;
}

/** The stand-in summary of `entries` absorbing `previousSummary`, at most `maxTokens` tokens. */
export function standInSummary(entries: readonly SummarizerEntry[], previousSummary: string | undefined, maxTokens: number, tokenizer: TextTokenizer): string {
	const lines: string[] = [];
	if (previousSummary?.trim()) {
		lines.push(previousSummary.trim());
	}
	for (const entry of entries) {
		if (entry.kind === 'user') {
			lines.push(`user: ${firstLine(entry.text)}`);
			continue;
		}
		lines.push(`- ${firstLine(entry.round.response) || '(no text)'}`);
		for (const call of entry.round.toolCalls) {
			lines.push(`  ${call.name}: ${firstLine(call.arguments)}`);
		}
	}
	return capTokens(lines.join('\n'), maxTokens, tokenizer);
}

export function capTokens(text: string, maxTokens: number, tokenizer: TextTokenizer): string {
	const tokens = tokenizer.encode(text);
	if (tokens.length <= maxTokens) {
		return text;
	}
	const keep = Math.max(0, maxTokens - MARKER_TOKENS);
	const head = Math.floor(keep * HEAD_SHARE);
	const tail = keep - head;
	const headText = tokenizer.decode(tokens.slice(0, head)).replace(/\uFFFD+$/, '');
	const tailText = tokenizer.decode(tokens.slice(tokens.length - tail)).replace(/^\uFFFD+/, '');
	return `${headText}\n[... ${tokens.length - head - tail} tokens of older summary cut ...]\n${tailText}`;
}
