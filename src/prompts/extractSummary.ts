// Reading the summary out of the summarizer's reply.
import type { SummaryReply } from '../common/summaries/summaryAcceptance';
import { echoedScaffolding } from './promptEcho';

const OPEN = /<summary\s*>/i;
const CLOSE = /<\/summary\s*>/gi;
const ANALYSIS_END = /<\/analysis\s*>/gi;

function lastIndexAfter(text: string, pattern: RegExp): number {
	let end = -1;
	for (const match of text.matchAll(pattern)) {
		end = match.index! + match[0].length;
	}
	return end;
}

/** The reply's summary text, and whether it stood inside `<summary>` tags (see extractSummary). */
function readSummary(modelOutput: string): { text: string; tagged: boolean } | undefined {
	const afterAnalysis = Math.max(0, lastIndexAfter(modelOutput, ANALYSIS_END));
	const rest = modelOutput.slice(afterAnalysis);
	const open = OPEN.exec(rest);
	if (open) {
		const body = rest.slice(open.index + open[0].length);
		let close = -1;
		for (const match of body.matchAll(CLOSE)) {
			close = match.index!;
		}
		const text = (close >= 0 ? body.slice(0, close) : body).trim();
		return text === '' ? undefined : { text, tagged: true };
	}
	const withoutAnalysis = modelOutput.replace(/<analysis\s*>[\s\S]*?<\/analysis\s*>/gi, '').trim();
	const text = withoutAnalysis || modelOutput.trim();
	return text === '' ? undefined : { text, tagged: false };
}

/**
 * The contents of the reply's `<summary>` block. The block is looked for after the analysis
 * (which may mention the tag) and runs to the last closing tag, so a summary that quotes the
 * tag stays whole; a reply cut off before its closing tag keeps what was written.
 * Without the tags, the reply itself (minus a complete `<analysis>` block) is the summary.
 * `undefined` when nothing but whitespace remains, or when the text repeats the prompt's
 * scaffolding (promptEcho.ts): such a reply replaces nothing.
 */
export function extractSummary(modelOutput: string): string | undefined {
	const read = readSummary(modelOutput);
	return read && !echoedScaffolding(read.text) ? read.text : undefined;
}

/**
 * The reply as the summarizer flow reads it (src/common/summaries/summarizationFlow.ts): its
 * summary and whether it was tagged; an echo when the text repeats the prompt's scaffolding
 * (promptEcho.ts); or cut off when the reply stopped inside its `<summary>` block (no closing tag
 * after the analysis) or inside an analysis it never closed. A cut-off reply lost its end, where
 * the newest work is, so it is not used as a summary: the flow tries the next mode and, when every
 * mode fails, the caller truncates with a notice. The flow judges the rest (summaryAcceptance.ts).
 */
export function summaryOfReply(modelOutput: string): SummaryReply {
	const afterAnalysis = lastIndexAfter(modelOutput, ANALYSIS_END);
	const rest = modelOutput.slice(Math.max(0, afterAnalysis));
	const open = OPEN.exec(rest);
	const closed = open !== null && [...rest.slice(open.index).matchAll(CLOSE)].length > 0;
	const analysisOpen = afterAnalysis < 0 && /<analysis\s*>/i.test(modelOutput) && open === null;
	if ((open && !closed) || analysisOpen) {
		const partial = readSummary(modelOutput)?.text;
		return { kind: 'cut-off', ...(partial !== undefined ? { partial } : {}) };
	}
	const read = readSummary(modelOutput);
	if (!read) return undefined;
	const echoed = echoedScaffolding(read.text);
	return echoed ? { kind: 'echo', echoed } : { kind: 'summary', ...read };
}
