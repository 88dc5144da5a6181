// Whether a summarizer's reply repeats the summarizer prompt's own scaffolding instead of
// summarizing (docs/decisions.md, "A reply is a summary only if it reads as one"). Every structure
// tag inside text the prompt embeds is escaped (promptTags.ts), so a literal `<previous-summary>` or
// `<conversation-transcript>` in a reply can only come from copying the prompt's frame; a verbatim
// line of the instructions likewise. The summary's section headings are not counted: a summary may
// repeat them.
import { condenseBlockInstructions } from './condenseBlockPrompt';
import { condenseInstructions } from './condensePrompt';
import { CONDENSE_BLOCK_TAG, CONDENSE_TAG } from './promptTags';
import { SUMMARY_SECTIONS, summarizerInstructions, summarizerRequest } from './summarizerInstructions';

/** Tags that frame the material of a summarizer or condense prompt, opening or closing. */
const FRAME_TAG = new RegExp(`<\\s*/?\\s*(previous-summary|conversation-transcript|${CONDENSE_TAG}|${CONDENSE_BLOCK_TAG})\\s*>`, 'i');
/** The transcript's own elements as the transcript writes them: alone on their line, or a tool's with its name. */
const TRANSCRIPT_TAG = /^(<\/?(user|assistant|thinking)>|<(tool-call|tool-result) name="[^"]*">)$/im;
/** How much of an instruction line is compared: its start, before any number the prompt fills in. */
const LINE_PREFIX = 60;
const MIN_LINE = 40;

let instructionLines: string[] | undefined;

/** The starts of the instructions' lines long enough to be unmistakable (section headings excepted). */
function instructionPrefixes(): string[] {
	if (instructionLines) return instructionLines;
	const length = { targetTokens: 0, targetWords: 0 };
	const texts = [
		summarizerInstructions('full', length),
		summarizerInstructions('simple', length),
		summarizerRequest(undefined, length),
		condenseInstructions(length),
		condenseBlockInstructions(0),
	];
	const sections = new Set(SUMMARY_SECTIONS);
	instructionLines = [
		...new Set(
			texts
				.flatMap(text => text.split('\n'))
				.map(line => line.replace(/^(\d+\.|-)\s+/, ''))
				.filter(line => !sections.has(line))
				.map(line => line.split(/\d/)[0].trim().slice(0, LINE_PREFIX))
				.filter(line => line.length >= MIN_LINE),
		),
	];
	return instructionLines;
}

/** What of the prompt's scaffolding `text` repeats (for the log), or undefined when it repeats none. */
export function echoedScaffolding(text: string): string | undefined {
	const frame = FRAME_TAG.exec(text) ?? TRANSCRIPT_TAG.exec(text);
	if (frame) return `the tag ${frame[0]}`;
	const line = instructionPrefixes().find(prefix => text.includes(prefix));
	return line ? `the instruction "${line}…"` : undefined;
}
