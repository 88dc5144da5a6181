// Reading the summary out of the summarizer's reply.

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

/**
 * The contents of the reply's `<summary>` block. The block is looked for after the analysis
 * (which may mention the tag) and runs to the last closing tag, so a summary that quotes the
 * tag stays whole; a reply cut off before its closing tag keeps what was written.
 * Without the tags, the reply itself (minus a complete `<analysis>` block) is the summary.
 * `undefined` when nothing but whitespace remains.
 */
export function extractSummary(modelOutput: string): string | undefined {
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
		return text === '' ? undefined : text;
	}
	const withoutAnalysis = modelOutput.replace(/<analysis\s*>[\s\S]*?<\/analysis\s*>/gi, '').trim();
	const text = withoutAnalysis || modelOutput.trim();
	return text === '' ? undefined : text;
}

/** A reply that stopped before its summary was complete: the summarizer flow treats it as a failed attempt. */
export interface CutOffReply {
	readonly cutOff: true;
	/** What was written (for logs), undefined when nothing was. */
	readonly partial?: string;
}

/**
 * The reply as the summarizer flow reads it (src/common/summaries/summarizationFlow.ts): its
 * summary (extractSummary), or a {@link CutOffReply} when the reply stopped inside its `<summary>`
 * block (no closing tag after the analysis) or inside an analysis it never closed. Such a reply
 * lost its end, where the newest work is, so it is not used as a summary: the flow tries the
 * next mode and, when every mode fails, the caller truncates with a notice.
 */
export function summaryOfReply(modelOutput: string): string | CutOffReply | undefined {
	const afterAnalysis = lastIndexAfter(modelOutput, ANALYSIS_END);
	const rest = modelOutput.slice(Math.max(0, afterAnalysis));
	const open = OPEN.exec(rest);
	const closed = open !== null && [...rest.slice(open.index).matchAll(CLOSE)].length > 0;
	const analysisOpen = afterAnalysis < 0 && /<analysis\s*>/i.test(modelOutput) && open === null;
	if ((open && !closed) || analysisOpen) return { cutOff: true, partial: extractSummary(modelOutput) };
	return extractSummary(modelOutput);
}
