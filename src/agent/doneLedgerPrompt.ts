// The done-ledger text the agent's prompt shows (longhaul.doneLedger), shared by the agent loop
// and /context so that both show the same thing.
import type { Conversation } from '../common/conversation/conversation';
import type { DoneLedger } from '../common/ledger/doneLedger';
import { doneLedgerCaps, ledgerForPrompt, type LedgerForPrompt } from '../common/ledger/doneLedgerRender';
import { countTokens } from '../common/tokens/tokenizer';

/**
 * The ledger for the next prompt: none while the setting is off or nothing is summarized yet
 * (every round is still verbatim then); otherwise rendered within its caps at each new summary and
 * kept word for word until the next one, so the prompt prefix stays cacheable.
 */
export function doneLedgerForPrompt(
	enabled: boolean,
	conversation: Conversation,
	ledger: DoneLedger,
	previous: LedgerForPrompt | undefined,
	messageBudget: number,
	compact = false,
): LedgerForPrompt | undefined {
	if (!enabled) return undefined;
	return ledgerForPrompt(conversation, ledger, previous, { ...doneLedgerCaps(messageBudget, compact), countTokens });
}
