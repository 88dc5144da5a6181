// The figures of a chat's next prompt, computed once for everything that shows them: `/context`
// (contextReport.ts) and the status bar meter (contextMeter.ts) read the same numbers from this
// one function, so at the same moment they show the same share. The conversation is the one the
// next request starts from: the chat's records, with the rounds the last request left set aside
// shown as set aside (chatMemory.ts), not as verbatim rounds.
import type * as vscode from 'vscode';
import { blockRows, type BlockRow } from '../common/conversation/blockListing';
import type { SummaryBlock } from '../common/conversation/summaryBlocks';
import { roundText, type Conversation } from '../common/conversation/conversation';
import { flattenRounds } from '../common/conversation/flatten';
import { layoutPrompt, olderRequestsBudget } from '../common/conversation/promptLayout';
import type { PinnedInstructions } from '../common/instructions/pinnedInstructions';
import type { DoneLedger } from '../common/ledger/doneLedger';
import { setAsideCount } from '../common/fitting/setAside';
import { blockTokens } from '../common/summaries/condenseBlocks';
import { windowTokensUsed, type PromptBudget } from '../common/tokens/budget';
import { countTokens } from '../common/tokens/tokenizer';
import { usedShare } from '../common/stats/contextMeter';
import { pinnedFor, type InstructionFilesRead } from './instructionFiles';
import { nextLedgerText, nextPromptTokens } from './nextPrompt';
import { budgetFor } from './requestBudget';
import type { LonghaulSettings } from './settings';

export interface FiguresInput {
	readonly conversation: Conversation;
	readonly model: vscode.LanguageModelChat;
	readonly chatTools: readonly vscode.LanguageModelChatTool[];
	readonly settings: LonghaulSettings;
	/** The model's tokens per local token. */
	readonly ratio: number;
	readonly ledger?: DoneLedger;
	readonly instructions?: InstructionFilesRead;
}

/** A block of the next prompt; `setAside`: it stands in for rounds set aside while their summary is written. */
export interface FigureBlock extends BlockRow {
	readonly setAside: boolean;
}

export interface ContextFigures {
	readonly conversation: Conversation;
	readonly budget: PromptBudget;
	/** The next prompt's messages, in local tokens. */
	readonly messageTokens: number;
	/** What the next prompt takes of the window (messages, tool definitions, the provider's hold-back). */
	readonly usedTokens: number;
	/** The share of the window, in whole percent: the one figure the meter and /context show. */
	readonly share: number;
	/** The messages do not fit: the next request summarizes (or sets rounds aside) before it sends anything. */
	readonly overflows: boolean;
	/** Summary blocks (real and set-aside), in conversation order. */
	readonly blocks: readonly FigureBlock[];
	/** Tokens of the real summary blocks, and of the set-aside blocks. */
	readonly summaryTokens: number;
	readonly setAsideTokens: number;
	/** Rounds behind set-aside blocks. */
	readonly setAsideRounds: number;
	readonly verbatimRounds: number;
	readonly verbatimTokens: number;
	readonly requestTokens: number;
	readonly shortenedRequests: number;
	readonly ledgerText: string | undefined;
	readonly ledgerTokens: number;
	readonly pinned: PinnedInstructions | undefined;
	readonly pinnedTokens: number;
}

/**
 * The blocks as the user reads them: a set-aside block that continues an earlier summary of its
 * request (it holds that summary's text, then the index of the rounds set aside) is listed as that
 * summary, still a summary, and the rounds set aside after it.
 */
function figureBlocks(conversation: Conversation): FigureBlock[] {
	const flat = flattenRounds(conversation);
	const at = new Map(flat.map(f => [f.round.id, f]));
	return blockRows(conversation, block => blockTokens(block, countTokens)).flatMap((row): FigureBlock[] => {
		if (!at.get(row.block.roundId)?.round.summaryProvisional) return [{ ...row, setAside: false }];
		const covered = row.block.roundIds.map(id => at.get(id)!);
		let continues = covered.length - 1;
		while (continues >= 0 && (covered[continues].round.summary === undefined || covered[continues].round.summaryProvisional)) continues--;
		if (continues < 0) return [{ ...row, setAside: true }];
		const earlier = covered[continues];
		const summary: SummaryBlock = {
			turnIndex: row.block.turnIndex,
			roundId: earlier.round.id,
			anchor: { source: earlier.source, turnIndex: earlier.turnIndex, roundIndex: earlier.roundIndex },
			roundIds: row.block.roundIds.slice(0, continues + 1),
			text: earlier.round.summary!,
			condensed: earlier.round.summaryCondensed === true,
			spansTurns: earlier.round.summarySpansTurns === true,
			edited: earlier.round.summaryEdited === true,
			buildsOnEdit: earlier.round.summaryBuildsOnEdit === true,
		};
		const summaryTokens = blockTokens(summary, countTokens);
		const lastOfSummary = earlier.roundIndex + 1;
		return [
			{ ...row, block: summary, lastRound: lastOfSummary, roundCount: continues + 1, tokens: summaryTokens, setAside: false },
			{
				...row,
				firstRound: lastOfSummary + 1,
				roundCount: covered.length - continues - 1,
				fromEarlier: false,
				tokens: Math.max(0, row.tokens - summaryTokens),
				setAside: true,
			},
		];
	});
}

export async function contextFigures(input: FiguresInput): Promise<ContextFigures> {
	const { conversation, settings, chatTools } = input;
	const budget = budgetFor(input.model, chatTools, input.ratio);
	const pinned = input.instructions ? pinnedFor(input.instructions, budget.messages) : undefined;
	const next = { conversation, chatTools, budget, settings, ledger: input.ledger, pinnedInstructions: pinned?.text };
	const ledgerText = nextLedgerText(next);
	const messageTokens = await nextPromptTokens(next, ledgerText);
	const blocks = figureBlocks(conversation);
	const layout = { verbatimRounds: 0, verbatimTokens: 0, requestTokens: 0, shortenedRequests: 0 };
	for (const entry of layoutPrompt(conversation, { olderRequestsMaxTokens: olderRequestsBudget(budget.messages), countTokens })) {
		if (entry.kind === 'round') {
			layout.verbatimTokens += countTokens(roundText(entry.round));
			layout.verbatimRounds++;
		} else if (entry.kind === 'user') {
			layout.requestTokens += countTokens(entry.text);
			if (entry.shortened) layout.shortenedRequests++;
		}
	}
	const usedTokens = windowTokensUsed(messageTokens, budget);
	return {
		conversation,
		budget,
		messageTokens,
		usedTokens,
		share: usedShare({ usedTokens, windowTokens: budget.window }),
		overflows: messageTokens > budget.messages,
		blocks,
		summaryTokens: blocks.filter(b => !b.setAside).reduce((n, b) => n + b.tokens, 0),
		setAsideTokens: blocks.filter(b => b.setAside).reduce((n, b) => n + b.tokens, 0),
		setAsideRounds: setAsideCount(conversation),
		...layout,
		ledgerText,
		ledgerTokens: ledgerText ? countTokens(ledgerText) : 0,
		pinned,
		pinnedTokens: pinned?.text ? countTokens(pinned.text) : 0,
	};
}
