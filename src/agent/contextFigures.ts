// The figures of a chat's next prompt, computed once for everything that shows them: `/context`
// (contextReport.ts) and the status bar meter (contextMeter.ts) read the same numbers from this
// one function, so at the same moment they show the same share. The conversation is the one the
// next request starts from: the chat's records, with the rounds the last request left set aside
// shown as set aside (chatMemory.ts), not as verbatim rounds.
import type * as vscode from 'vscode';
import { blockRows, type BlockRow } from '../common/conversation/blockListing';
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

export async function contextFigures(input: FiguresInput): Promise<ContextFigures> {
	const { conversation, settings, chatTools } = input;
	const budget = budgetFor(input.model, chatTools, input.ratio);
	const pinned = input.instructions ? pinnedFor(input.instructions, budget.messages) : undefined;
	const next = { conversation, chatTools, budget, settings, ledger: input.ledger, pinnedInstructions: pinned?.text };
	const ledgerText = nextLedgerText(next);
	const messageTokens = await nextPromptTokens(next, ledgerText);
	const provisional = new Set(
		flattenRounds(conversation)
			.filter(f => f.round.summaryProvisional)
			.map(f => f.round.id),
	);
	const blocks = blockRows(conversation, block => blockTokens(block, countTokens)).map(row => ({ ...row, setAside: provisional.has(row.block.roundId) }));
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
