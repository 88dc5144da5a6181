// The size of the next prompt of a chat as it stands between requests (no request text yet): what
// /context reports, what /restore checks a restore against, what the status bar meter shows.
import type * as vscode from 'vscode';
import type { Conversation } from '../common/conversation/conversation';
import { olderRequestsBudget } from '../common/conversation/promptLayout';
import type { DoneLedger } from '../common/ledger/doneLedger';
import { toolResultBudget, type PromptBudget } from '../common/tokens/budget';
import { doneLedgerForPrompt } from './doneLedgerPrompt';
import { measureAgent } from './promptRendering';
import type { LonghaulSettings } from './settings';

export interface NextPromptInput {
	readonly conversation: Conversation;
	readonly chatTools: readonly vscode.LanguageModelChatTool[];
	readonly budget: PromptBudget;
	readonly settings: Pick<LonghaulSettings, 'doneLedger'>;
	readonly ledger?: DoneLedger;
	readonly pinnedInstructions?: string;
}

/** The done-ledger text the next prompt would show. */
export function nextLedgerText(input: NextPromptInput): string | undefined {
	return input.ledger ? doneLedgerForPrompt(input.settings.doneLedger, input.conversation, input.ledger, undefined, input.budget.messages)?.text : undefined;
}

/** The next prompt's messages in local tokens (tool definitions not included: they are `budget.toolTokens`). */
export async function nextPromptTokens(input: NextPromptInput, ledgerText = nextLedgerText(input)): Promise<number> {
	const measured = await measureAgent({
		conversation: input.conversation,
		request: '',
		references: [],
		toolNames: input.chatTools.map(t => t.name),
		maxToolResultTokens: toolResultBudget(input.budget),
		olderRequestsMaxTokens: olderRequestsBudget(input.budget.messages),
		doneLedger: ledgerText,
		pinnedInstructions: input.pinnedInstructions,
	});
	return measured.tokenCount;
}
