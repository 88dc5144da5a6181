// The information-limited stand-in summarizer, the benchmark's default (`--summary-information N`).
// A real summary states some of what happened in its own words; how much is the unknown this
// stand-in makes a setting, so the knowledge measures can be read as curves over it instead of
// resting on copied text. It writes a summary of the length the prompt asks (standInLength, the
// same rule as the copying stand-in), holding a share N % of the facts of what it absorbs and
// nothing else: the rest is filler that says nothing.
//
// Facts of the absorbed entries, each stated in the stand-in's own words (no line of a tool
// result copied, no JSON):
//   request  the user's request, on one line
//   action   per call, from the benchmark's own reading of it (factOracle.ts callFacts): a file
//            looked at, a file changed, a command run with how it ended
//   finding  per line of a tool result or of the agent's text that could be a sampled detail
//            (details.ts candidateLine): the line's key terms (keyTerms), "… mentioned: a, b, c"
// A fact is in the summary when a seeded hash of its text falls under N % (the same fact is chosen
// at every N above its draw, so the curves are monotone in what is offered). The previous summary's
// facts stay (they were chosen when it was written). When the chosen facts are longer than the
// length asked, requests and actions come first and findings are added in hash order until the
// length is reached; when shorter, filler lines pad it.
import type { SummarizerEntry } from '../../src/common/summaries/summarizerInput';
import type { TextTokenizer } from '../../src/common/tokens/tokenizer';
import type { ToolCall } from '../../src/common/conversation/conversation';
import { callFacts, shellLine } from '../knowledge/factOracle';
import { candidateLine, keyTerms } from '../knowledge/details';
import { cutToLength } from './standInSummary';

/** The information levels the full run draws its curves at; 30 is the default. */
export const SUMMARY_INFORMATION_LEVELS = [0, 30, 60, 100] as const;
export const DEFAULT_SUMMARY_INFORMATION = 30;
/** The hash's seed: changing it draws another set of facts at the same share. */
export const FACT_SEED = 'longhaul-bench-facts-1';
/** A line of the summary that carries no information (the pad a model writes to reach a length). */
export const FILLER_LINE = 'Work continued along the lines above; nothing more is recorded here.';
const ACTIONS_HEADING = 'What was done:';
const FINDINGS_HEADING = 'What was seen:';
const COMMAND_MAX_CHARS = 300;
const REQUEST_MAX_CHARS = 400;

/** FNV-1a, 32 bits, of the seed and the text. */
function draw(text: string): number {
	const seeded = `${FACT_SEED}\u0000${text}`;
	let h = 0x811c9dc5;
	for (let i = 0; i < seeded.length; i++) {
		h ^= seeded.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}

/** The fact is among the share `information` (0–100) the stand-in states. */
export function factChosen(fact: string, information: number): boolean {
	return (draw(fact) % 10_000) / 100 < information;
}

const oneLine = (text: string) =>
	text
		.replace(/\s*\n\s*/g, ' ; ')
		.replace(/\s+/g, ' ')
		.trim();
const capped = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1) + '…' : text);

function outcome(status: string): string {
	if (status.startsWith('exit ')) return `it ended with exit code ${status.slice(5)}`;
	if (status === 'timed out') return 'it timed out';
	if (status === 'exception') return 'it failed to run';
	if (status === 'interrupted') return 'it got no answer';
	return 'its outcome was not reported';
}

/** One call's actions, in words. */
function callActions(call: ToolCall): string[] {
	const facts = callFacts(call);
	const out = [...facts.reads.map(p => `Looked at the file ${p}.`), ...facts.changes.map(p => `Changed the file ${p}.`)];
	if (facts.command) out.push(`Ran \`${capped(oneLine(facts.command.text), COMMAND_MAX_CHARS)}\`; ${outcome(facts.command.status.text)}.`);
	if (!out.length) out.push(`Used the tool ${call.name}.`);
	return out;
}

/** What a call is called in a finding: its command's first words, or its tool. */
function callLabel(call: ToolCall): string {
	const line = shellLine(call);
	return line ? `\`${capped(oneLine(line), 60)}\`` : call.name;
}

function findingsOf(text: string, where: string): string[] {
	const out: string[] = [];
	for (const line of text.split('\n')) {
		if (!candidateLine(line)) continue;
		const terms = keyTerms(line);
		if (terms.length) out.push(`${where} mentioned: ${terms.join(', ')}.`);
	}
	return [...new Set(out)];
}

interface Facts {
	readonly actions: string[];
	readonly findings: string[];
}

/** The facts a previous summary written by this stand-in holds (its filler left out). */
function previousFacts(previous: string | undefined): Facts {
	const actions: string[] = [];
	const findings: string[] = [];
	let into = actions;
	for (const raw of (previous ?? '').split('\n')) {
		const line = raw.trim();
		if (line === ACTIONS_HEADING) into = actions;
		else if (line === FINDINGS_HEADING) into = findings;
		else if (line.startsWith('- ')) into.push(line.slice(2));
	}
	return { actions, findings };
}

/** Every fact of the entries, chosen or not. */
function entryFacts(entries: readonly SummarizerEntry[]): Facts {
	const actions: string[] = [];
	const findings: string[] = [];
	for (const entry of entries) {
		if (entry.kind === 'user') {
			actions.push(`The user asked: ${capped(oneLine(entry.text), REQUEST_MAX_CHARS)}`);
			continue;
		}
		findings.push(...findingsOf(entry.round.response, 'The agent'));
		for (const call of entry.round.toolCalls) {
			actions.push(...callActions(call));
			if (call.result !== undefined) findings.push(...findingsOf(call.result, `The output of ${callLabel(call)}`));
		}
	}
	return { actions, findings };
}

const render = (actions: readonly string[], findings: readonly string[]) =>
	[
		...(actions.length ? [ACTIONS_HEADING, ...actions.map(a => `- ${a}`)] : []),
		...(findings.length ? [FINDINGS_HEADING, ...findings.map(f => `- ${f}`)] : []),
	].join('\n');

/**
 * The information-limited summary of `entries` absorbing `previousSummary`: `length` tokens, a
 * share `information` (0–100) of the facts, filler for the rest.
 */
export function informationSummary(
	entries: readonly SummarizerEntry[],
	previousSummary: string | undefined,
	length: number,
	information: number,
	tokenizer: TextTokenizer,
): string {
	const old = previousFacts(previousSummary);
	const all = entryFacts(entries);
	const actions = [...old.actions, ...all.actions.filter(f => factChosen(f, information))];
	let text = render(actions, []);
	if (tokenizer.countTokens(text) >= length) return cutToLength(text, length, tokenizer);
	// Findings in draw order until the length is reached, then shown in the order they happened.
	const offered = [...old.findings, ...all.findings.filter(f => factChosen(f, information))];
	const byDraw = offered.map((f, i) => ({ f, i })).sort((a, b) => draw(a.f) - draw(b.f));
	const taken = new Set<number>();
	let tokens = tokenizer.countTokens(text);
	for (const { f, i } of byDraw) {
		const cost = tokenizer.countTokens(f) + 3;
		if (tokens + cost > length) continue;
		taken.add(i);
		tokens += cost;
	}
	text = render(
		actions,
		offered.filter((_, i) => taken.has(i)),
	);
	const lines = text === '' ? [] : [text];
	tokens = tokenizer.countTokens(text);
	const fillerTokens = tokenizer.countTokens(FILLER_LINE) + 1;
	while (tokens + fillerTokens <= length) {
		lines.push(FILLER_LINE);
		tokens += fillerTokens;
	}
	return lines.join('\n') || FILLER_LINE;
}
