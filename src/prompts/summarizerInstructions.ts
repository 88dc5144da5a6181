// What the summarizer is asked to write: an <analysis> pass, then a <summary> with fixed
// sections (Longhaul's own structure and words, docs/prompts.md). The same instructions serve both modes;
// Simple mode only shows the model less (shortened tool output, no thinking).
import type { SummaryPromptMode } from './summarizerTranscript';
import { escapeTags } from './promptTags';

/** The length the summary must stay under (src/common/summaries/summaryLength.ts). */
export interface StatedLength {
	readonly targetTokens: number;
	readonly targetWords: number;
}

/** What to give up first when the length is tight, most expendable first. */
const SHORTEN_FIRST = [
	'the raw output of older tool calls: keep only what was learned from it',
	'the step-by-step story of early phases: one line per phase',
	'finished tasks: one line each, with the files they touched',
];
const KEEP_TO_THE_END = [
	"the user's requests in their own words",
	'file paths, names and commands',
	'the current state of the work and any code being edited',
	'the last operations and the next steps',
];

/**
 * The length rule. Its wording ("must stay under N tokens") is what the test model and the
 * benchmark's stand-in read (bench/replay/standInSummary.ts statedTarget).
 */
export function lengthRule(length: StatedLength, what = 'The summary (the text inside <summary>; the analysis does not count)'): string {
	return [
		`Length: ${what} must stay under ${length.targetTokens} tokens, about ${length.targetWords} words. A longer summary cannot be used.`,
		`When that is tight, shorten first ${SHORTEN_FIRST.join('; then ')}. Keep to the end ${KEEP_TO_THE_END.join(', ')}.`,
	].join('\n');
}

const ANALYSIS_STEPS = [
	'Chronological review: go through the conversation in order and name its phases (first request, exploration, changes, debugging, where it stands now).',
	'Intent mapping: list every request the user made, explicit or implied, with their exact words where they matter.',
	'Technical inventory: languages, frameworks, libraries, tools, versions and the decisions taken about them.',
	'Code archaeology: every file, function and symbol that was read, created or changed, and what happened to it.',
	'Progress assessment: what is finished, what is partly done, what has not been started.',
	'Context validation: check that everything needed to continue without the original messages is captured.',
	'Recent commands analysis: the last tool calls and their results, and what the agent was doing when the conversation was cut.',
];

/** The summary's sections: a summary may repeat their headings, so they are no echo of the prompt (promptEcho.ts). */
export const SUMMARY_SECTIONS = [
	"Conversation overview: the user's goals and requests (quote them), and how the session unfolded.",
	'Technical foundation: technologies, versions, configuration, constraints and architectural decisions.',
	'Codebase status: per file, its role, its current state and the changes made, with the key code where it matters.',
	'Problem resolution: problems met, their causes, how they were solved, and what is still unresolved.',
	'Progress tracking: tasks done, tasks in progress with how far they got, tasks not started, results verified by builds or tests.',
	'Active work state: exactly what was being worked on in the last messages, including code being edited.',
	'Recent operations: the last tool calls with their arguments, the essential part of their results, and why they were made.',
	'Continuation plan: the next steps in order, the next immediate action, and open questions for the user.',
];

export function summarizerInstructions(mode: SummaryPromptMode, length?: StatedLength): string {
	const numbered = (items: readonly string[]) => items.map((item, i) => `${i + 1}. ${item}`).join('\n');
	return [
		"You write the memory of a long coding-agent session. The conversation below no longer fits in the model's context window: your summary will replace it, and the agent will continue the work from your summary plus the few messages kept after it. Anything you leave out is lost to the agent.",
		`First think in <analysis> tags, working through:\n${numbered(ANALYSIS_STEPS)}`,
		`Then write the summary in <summary> tags with these sections, in this order:\n${numbered(SUMMARY_SECTIONS)}`,
		[
			'Rules:',
			'- Be exact: file paths, function and variable names, commands, error messages and numbers as they appeared.',
			"- Keep the user's requests in their own words.",
			'- When a <previous-summary> is given, it is the memory of everything before this transcript and will be discarded: carry every fact from it that is still relevant into your summary, updated by what happened since. Drop only what later messages made obsolete.',
			'- Give the most room to the most recent work: the agent resumes there.',
			'- Do not call tools and do not continue the task; only write the analysis and the summary.',
			...(mode === 'simple' ? ["- Tool output in the transcript was shortened and the agent's private reasoning left out; summarize what is shown."] : []),
		].join('\n'),
		...(length ? [lengthRule(length)] : []),
	].join('\n\n');
}

/** The closing request, after the material to summarize. */
export function summarizerRequest(focus: string | undefined, length?: StatedLength): string {
	const lines = [
		`Write the <analysis> and then the <summary> of the conversation above, following the instructions${length ? `; the summary must stay under ${length.targetTokens} tokens (about ${length.targetWords} words)` : ''}.`,
	];
	if (focus?.trim()) {
		lines.push(`The user asked the summary to focus on the following; cover it in full detail:\n<focus>\n${escapeTags(focus.trim())}\n</focus>`);
	}
	return lines.join('\n\n');
}
