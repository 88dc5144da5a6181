// Seed 004 in the replay: are the summary blocks where they belong in every prompt sent, and does
// any of them vanish? Checked on the rendered messages, not on the layout, so a renderer that
// moved or dropped a block would be caught.
//
// orderViolations: prompts in which some block of the conversation (summaryBlocks.ts) is not
// rendered, is not right after its own turn's user message (the request message for the request
// in progress), comes before a block of an earlier turn, or in which a <conversation-summary>
// message stands that is no block of the conversation.
// summariesLost: blocks that were in a prompt and are gone from the next one, where their turn has
// no block any more, or one whose text changed without being condensed or absorbed (a newer block
// of the same turn, anchored further on, written from it as plan.previousSummary).
// Only real summaries count: a provisional block of the bridge (setAside.ts) is an index of rounds
// set aside, not a summary, and its real summary replaces it at the same anchor. So blocks are
// compared with the bridge's blocks stripped, and a provisional block must show the real block of
// its turn it continues (else that summary is hidden: a violation).
import { Raw } from '@vscode/prompt-tsx';
import type { Conversation } from '../../src/common/conversation/conversation';
import { summaryBlocks, type SummaryBlock } from '../../src/common/conversation/summaryBlocks';
import { flattenRounds } from '../../src/common/conversation/flatten';
import { stripProvisional } from '../../src/common/fitting/setAside';
import { currentRequestText } from '../../src/prompts/currentRequestMessage';
import { summaryMessageText } from '../../src/prompts/summaryMessage';
import { shortenedRequestNote } from '../../src/common/conversation/promptLayout';

export interface BlockOrderMetrics {
	/** Summary blocks in the last prompt; null for strategies without blocks. */
	readonly summaryBlocks: number | null;
	/** Prompts with a block out of place (must be 0); null for strategies without blocks. */
	readonly orderViolations: number | null;
	/** Blocks that vanished from a later prompt without being condensed or absorbed (must be 0). */
	readonly summariesLost: number | null;
	/** The most blocks any prompt held. */
	readonly summaryBlocksMax: number | null;
	/** Blocks condensed to keep all of them within the summary budget. */
	readonly condensedBlocks: number | null;
}

export interface BlockOrderProbe {
	/** One prompt as sent: the conversation it was rendered from, the request's text, its messages. */
	recordRequest(conversation: Conversation, request: string, messages: readonly Raw.ChatMessage[]): void;
	/** A block was condensed (counted from the pipeline's events). */
	noteCondensed(count: number): void;
	metrics(): BlockOrderMetrics;
	/** What went wrong, for the first few problems (printed with --json on stderr). */
	readonly problems: readonly string[];
}

function textOf(message: Raw.ChatMessage): string {
	return message.content.map(part => (part.type === Raw.ChatCompletionContentPartKind.Text ? part.text : '')).join('');
}

/** The message is the request `user`: word for word, or its first lines followed by the shortened-request note (promptLayout.ts). */
function isRequest(message: string, user: string): boolean {
	if (message === user) return true;
	const note = message.lastIndexOf('\n' + shortenedRequestNote(0).slice(0, 40));
	return note > 0 && user.startsWith(message.slice(0, note));
}

export function blockOrderProbe(enabled: boolean): BlockOrderProbe {
	let previous: ReadonlyMap<number, SummaryBlock> = new Map();
	let lastCount = 0;
	let max = 0;
	let violations = 0;
	let lost = 0;
	let condensed = 0;
	const problems: string[] = [];
	const problem = (text: string) => {
		if (problems.length < 20) problems.push(text);
	};
	let requestIndex = 0;

	return {
		recordRequest(conversation, request, messages) {
			requestIndex++;
			if (!enabled) return;
			const blocks = summaryBlocks(conversation);
			const texts = messages.map(textOf);
			const turnCount = conversation.turns.length;
			let violated = false;
			let last = -1;
			for (const block of blocks) {
				// Searched after the previous block: condensed blocks of different turns may read alike.
				const at = texts.indexOf(summaryMessageText(block.text, block.condensed), last + 1);
				const userText = block.turnIndex === turnCount ? currentRequestText(request, []) : conversation.turns[block.turnIndex].user;
				const before = at > 0 ? messages[at - 1] : undefined;
				if (at < 0 || at <= last || before?.role !== Raw.ChatRole.User || !isRequest(texts[at - 1], userText)) {
					violated = true;
					problem(
						`request ${requestIndex}: the block of turn ${block.turnIndex} is ${at < 0 ? 'missing' : 'not right after its user message'}` +
							(process.env.LONGHAUL_BENCH_DEBUG
								? ` (at ${at}, last ${last}, before: ${JSON.stringify(texts[at - 1]?.slice(0, 80))}, expected ${JSON.stringify(userText.slice(0, 80))})`
								: ''),
					);
				}
				last = Math.max(last, at);
			}
			const rendered = texts.filter(t => t.startsWith('<conversation-summary>')).length;
			if (rendered !== blocks.length) {
				violated = true;
				problem(`request ${requestIndex}: ${rendered} summary messages for ${blocks.length} blocks`);
			}
			// A provisional block stands in the place of its turn's real block: it must start with it.
			const shown = new Map(blocks.map(b => [b.turnIndex, b]));
			const real = summaryBlocks(stripProvisional(conversation));
			for (const block of real) {
				const instead = shown.get(block.turnIndex);
				if (instead && instead.roundId !== block.roundId && !instead.text.startsWith(block.text)) {
					violated = true;
					problem(`request ${requestIndex}: the block of turn ${block.turnIndex} is hidden behind a provisional block`);
				}
			}
			if (violated) violations++;

			const now = new Map(real.map(b => [b.turnIndex, b]));
			const position = new Map(flattenRounds(conversation).map((f, i) => [f.round.id, i]));
			for (const [turn, old] of previous) {
				const block = now.get(turn);
				if (!block) {
					lost++;
					problem(`request ${requestIndex}: the block of turn ${turn} vanished`);
				} else if (block.text !== old.text && !block.condensed && !((position.get(block.roundId) ?? -1) > (position.get(old.roundId) ?? Infinity))) {
					lost++;
					problem(`request ${requestIndex}: the block of turn ${turn} changed without being condensed or absorbed`);
				}
			}
			previous = now;
			lastCount = blocks.length;
			max = Math.max(max, blocks.length);
		},
		noteCondensed(count) {
			condensed += count;
		},
		metrics() {
			return enabled
				? { summaryBlocks: lastCount, orderViolations: violations, summariesLost: lost, summaryBlocksMax: max, condensedBlocks: condensed }
				: { summaryBlocks: null, orderViolations: null, summariesLost: null, summaryBlocksMax: null, condensedBlocks: null };
		},
		problems,
	};
}
