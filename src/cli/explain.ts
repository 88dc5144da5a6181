// The human-readable form of a plan (`longhaul-plan --explain`).
import type { Conversation } from '../common/conversation/conversation';
import { flattenRounds } from '../common/conversation/flatten';
import type { SummarizationPlan } from '../common/planning/plan';
import type { BlockSegment } from '../common/summaries/applySummary';

const REASONS = {
	'not-enough-rounds': 'fewer than 4 unsummarized rounds',
	'interrupted-turn': 'every possible anchor was the round where an interrupted turn stopped',
} as const;

/** `a, b, c` or `a, b … y, z (26 rounds)` for long lists. */
function idList(ids: readonly string[]): string {
	if (ids.length === 0) return 'none';
	if (ids.length <= 6) return ids.join(', ');
	return `${ids.slice(0, 3).join(', ')} … ${ids.slice(-2).join(', ')}`;
}

function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function explainPlan(plan: SummarizationPlan, segments: readonly BlockSegment[], conversation: Conversation, inputName: string): string {
	const all = flattenRounds(conversation).length;
	const { totalRoundCount: n, summarizedRoundCount: s, keptRoundCount: k } = plan.stats;
	const where =
		plan.anchor.source === 'history'
			? `turn ${plan.anchor.turnIndex}, round ${plan.anchor.roundIndex}`
			: `request in progress, round ${plan.anchor.roundIndex}`;
	const lines = [
		`Plan for ${inputName}`,
		`  conversation: ${plural(conversation.turns.length, 'past turn')}, ${plural(conversation.activeRounds.length, 'active round')}, ${plural(all, 'round')} in all, ${n} not yet summarized`,
		`  planner:      ${plan.mode}${plan.fallbackReason ? ` (asked for ${plan.requestedMode}; fell back: ${REASONS[plan.fallbackReason]})` : ''}`,
		`  summarize:    ${plural(s, 'round')}: ${idList(plan.summarizeRoundIds)}`,
		`  keep:         ${plural(k, 'round')} verbatim: ${idList(plan.keepRoundIds)}`,
		`  anchor:       ${plan.anchorRoundId} (${where}); the new summary is attached to it`,
		`  absorbs:      ${plan.previousSummary ? `the block on ${plan.previousSummary.roundId} (its turn's earlier summary)` : 'no earlier block'}`,
	];
	const turnName = (t: number) => (t === conversation.turns.length ? 'the request in progress' : `turn ${t}`);
	for (const s of segments) {
		lines.push(
			`  block:        ${turnName(s.turnIndex)}: ${plural(s.roundIds.length, 'round')} (${idList(s.roundIds)}), after its user message${s.absorbs ? `, absorbing the block on ${s.absorbs.roundId}` : ''}`,
		);
	}
	const tokenAware = plan.stats.tokenAware;
	if (tokenAware && plan.stats.tokens) {
		lines.push(
			tokenAware.moved
				? `  tokens:       the round rule's ${tokenAware.roundRuleKeptCount} newest rounds held more than ${tokenAware.limitTokens} tokens (half the message budget); kept ${k} (${plan.stats.tokens.kept} tokens)`
				: `  tokens:       the ${k} kept rounds hold ${plan.stats.tokens.kept} tokens, within ${tokenAware.limitTokens} (half the message budget)`,
		);
	}
	if (plan.splitInsideTurnIndex !== undefined) {
		lines.push(`  split:        inside turn ${plan.splitInsideTurnIndex}; its user message stays verbatim ahead of its kept rounds`);
	}
	if (plan.isContinuation) {
		lines.push('  continuation: yes, the summary ends in a past turn; the request in progress follows it verbatim');
	}
	if (plan.interruptedRoundIds.length) {
		lines.push(`  interrupted:  ${idList(plan.interruptedRoundIds)} (calls without a result are closed as interrupted)`);
	}
	return lines.join('\n') + '\n';
}
