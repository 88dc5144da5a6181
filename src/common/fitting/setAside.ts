// The bridge's stand-in for a summary still being written (decision 43): at an overflow with a
// background summary under way, the oldest rounds that must go are set aside behind a provisional
// block: one line per round, its number and what each of its tool calls did and how it ended
// (from the calls' facts, never from the model's prose), and how to bring any of them back. The
// block is never stored nor planned on (stripProvisional); it stays until the next overflow, and
// the real summary replaces it once its rounds are among those that must go.
import type { Conversation, Round } from '../conversation/conversation';
import { withElidedRestored } from '../conversation/toolResultPlaceholders';
import { flattenRounds } from '../conversation/flatten';
import { toolCallFacts, type ToolFact } from '../ledger/toolCallFacts';
import type { SummarizationPlan } from '../planning/plan';
import { applySummaryBlocks, blockSegments, updateRounds } from '../summaries/applySummary';
import { RECALL_TOOL_NAME } from '../recall/recallInput';

/** At most this many index lines per provisional block: the newest are kept, the rest counted. */
export const SET_ASIDE_MAX_LINES = 24;
/** An index line is cut to this many characters: it names the call, the round brings back the rest. */
const LINE_MAX_CHARS = 120;

function clip(line: string): string {
	return line.length <= LINE_MAX_CHARS ? line : `${line.slice(0, LINE_MAX_CHARS - 1)}…`;
}

function factLine(fact: ToolFact): string {
	switch (fact.kind) {
		case 'read':
			return `read ${fact.path}`;
		case 'search':
			return fact.digest;
		case 'edit':
			return `${fact.created ? 'created' : 'edited'} ${fact.path}${fact.failed ? ' (failed)' : ''}`;
		case 'command':
			return `ran \`${fact.command}\` → ${fact.outcome}`;
		case 'plan':
			return `updated the plan (${fact.tool})`;
		case 'other':
			return `${fact.tool} ${fact.digest}`.trim();
	}
}

/** One line per tool call of `rounds`: what it did and how it ended. */
export function setAsideLines(rounds: readonly Round[]): string[] {
	return rounds.flatMap(round => round.toolCalls.flatMap(call => toolCallFacts(withElidedRestored(call)).map(fact => clip(factLine(fact)))));
}

/** A round set aside, with its number as recall counts rounds (summarizedRounds.ts: its position among all rounds, from 1). */
interface NumberedRound {
	readonly number: number;
	readonly round: Round;
}

/**
 * The provisional text of one segment: the block it continues, then the index of its rounds, one
 * line per round with its number, so the agent can read any of them back whole by that number
 * (`{"round": N}`) instead of guessing a search.
 */
function provisionalText(rounds: readonly NumberedRound[], absorbs: string | undefined): string {
	const calls = rounds.flatMap(r => setAsideLines([r.round]).map(line => ({ number: r.number, line })));
	const shown = calls.slice(-SET_ASIDE_MAX_LINES);
	const hidden = calls.length - shown.length;
	const lines: string[] = [];
	for (const [i, call] of shown.entries()) {
		if (i > 0 && shown[i - 1].number === call.number) lines[lines.length - 1] += `; ${call.line}`;
		else lines.push(`- round #${call.number}: ${call.line}`);
	}
	return [
		...(absorbs ? [absorbs, ''] : []),
		`${rounds.length} older round${rounds.length === 1 ? ' is' : 's are'} set aside while their summary is written. What they did${hidden ? ` (the last ${shown.length} of ${calls.length} calls)` : ''}:`,
		...lines,
		`Any of them comes back word for word with ${RECALL_TOOL_NAME} ({"round": N} for round #N, or a search by path, tool or text); do not redo the work.`,
	].join('\n');
}

/** `conversation` with the plan's rounds behind provisional blocks (one per turn, as a summary would be). */
export function setAside(conversation: Conversation, plan: Pick<SummarizationPlan, 'summarizeRoundIds' | 'previousSummary'>): Conversation {
	const byId = new Map(flattenRounds(conversation).map((at, i): [string, NumberedRound] => [at.round.id, { number: i + 1, round: at.round }]));
	const segments = blockSegments(conversation, plan);
	const texts = segments.map(s =>
		provisionalText(
			s.roundIds.map(id => byId.get(id)!),
			s.absorbs?.text,
		),
	);
	const attached = applySummaryBlocks(conversation, plan, texts);
	return updateRounds(attached, new Map(segments.map(s => [s.anchorRoundId, (round: Round) => ({ ...round, summaryProvisional: true })])));
}

/** `conversation` without provisional blocks (their rounds unsummarized again); the input when it has none. */
export function stripProvisional(conversation: Conversation): Conversation {
	const ids = flattenRounds(conversation)
		.filter(at => at.round.summaryProvisional)
		.map(at => at.round.id);
	if (!ids.length) return conversation;
	const unsummarized = (round: Round): Round => {
		const { summary: _summary, summaryProvisional: _provisional, summarySpansTurns: _spans, summaryBuildsOnEdit: _builds, ...rest } = round;
		return rest;
	};
	return updateRounds(conversation, new Map(ids.map(id => [id, unsummarized])));
}

/** How many rounds the provisional blocks stand for: from the newest real summary to the newest provisional anchor (0 without one). */
export function setAsideCount(conversation: Conversation): number {
	const flat = flattenRounds(conversation);
	let at = -1;
	for (let i = flat.length - 1; i >= 0 && at < 0; i--) if (flat[i].round.summaryProvisional) at = i;
	if (at < 0) return 0;
	let from = at - 1;
	while (from >= 0 && (flat[from].round.summary === undefined || flat[from].round.summaryProvisional)) from--;
	return at - from;
}

/**
 * The rounds the provisional blocks stand for, oldest first: what a request leaves set aside when it
 * ends (the block itself is never stored, decision 43). Empty without one.
 */
export function setAsideRoundIds(conversation: Conversation): string[] {
	const count = setAsideCount(conversation);
	if (!count) return [];
	const flat = flattenRounds(conversation);
	let at = flat.length - 1;
	while (!flat[at].round.summaryProvisional) at--;
	return flat.slice(at - count + 1, at + 1).map(f => f.round.id);
}

/**
 * `conversation` (rebuilt from the chat's records, without provisional blocks) with `roundIds` set
 * aside again as the request left them, for what the user reads of the next prompt (/context, the
 * meter); the input when any of them is gone or summarized since (a /restore, a /compact).
 */
export function withSetAside(conversation: Conversation, roundIds: readonly string[]): Conversation {
	if (!roundIds.length) return conversation;
	const flat = flattenRounds(conversation);
	const first = flat.findIndex(f => f.round.id === roundIds[0]);
	if (first < 0) return conversation;
	const covered = flat.slice(first, first + roundIds.length);
	if (covered.length !== roundIds.length || covered.some((f, i) => f.round.id !== roundIds[i] || f.round.summary !== undefined)) return conversation;
	// The newest real summary before them: a provisional block in its turn continues it, as the summary under way will.
	let previous = first - 1;
	while (previous >= 0 && flat[previous].round.summary === undefined) previous--;
	const previousSummary = previous >= 0 ? { roundId: flat[previous].round.id, text: flat[previous].round.summary! } : undefined;
	return setAside(conversation, { summarizeRoundIds: [...roundIds], ...(previousSummary ? { previousSummary } : {}) });
}
