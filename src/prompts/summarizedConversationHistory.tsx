// The conversation part of the agent prompt, in the order `layoutPrompt` gives: past user
// messages word for word, the request in progress at its slot, the newest summary at its anchor
// (followed by the done ledger, when there is one), and every later round verbatim.
import { PromptElement, UserMessage, type BasePromptElementProps, type PromptPiece } from '@vscode/prompt-tsx';
import type { PromptEntry } from '../common/conversation/promptLayout';
import type { TextTokenizer } from '../common/tokens/tokenizer';
import { CurrentRequestMessage, type ReferenceAttachment } from './currentRequestMessage';
import { DoneLedgerMessage } from './doneLedgerMessage';
import { PRIORITY } from './priorities';
import { RoundMessages } from './roundMessages';
import { SummaryMessageElement } from './summaryMessage';

export interface SummarizedConversationHistoryProps extends BasePromptElementProps {
	readonly entries: readonly PromptEntry[];
	readonly request: string;
	readonly references: readonly ReferenceAttachment[];
	readonly doneLedger?: string;
	readonly maxToolResultTokens: number;
	readonly tokenizer: TextTokenizer;
}

export class SummarizedConversationHistory extends PromptElement<SummarizedConversationHistoryProps> {
	render() {
		const { entries, doneLedger, maxToolResultTokens, tokenizer } = this.props;
		const ledger = doneLedger?.trim() ? <DoneLedgerMessage priority={PRIORITY.doneLedger} ledger={doneLedger} /> : undefined;
		const pieces: PromptPiece[] = [];
		// Without a summary, the ledger goes where a summary would start: ahead of the history.
		if (ledger && !entries.some(e => e.kind === 'summary')) {
			pieces.push(ledger);
		}
		entries.forEach((entry, index) => {
			// Newer history outranks older history; the request and the summary outrank both.
			const priority = PRIORITY.historyNewest - (entries.length - 1 - index);
			switch (entry.kind) {
				case 'user':
					pieces.push(<UserMessage priority={priority}>{entry.text}</UserMessage>);
					break;
				case 'request':
					pieces.push(<CurrentRequestMessage priority={PRIORITY.currentRequest} prompt={this.props.request} references={this.props.references} />);
					break;
				case 'summary':
					pieces.push(<SummaryMessageElement priority={PRIORITY.summary} summary={entry.text} />);
					if (ledger) {
						pieces.push(ledger);
					}
					break;
				case 'round':
					pieces.push(<RoundMessages priority={priority} round={entry.round} maxToolResultTokens={maxToolResultTokens} tokenizer={tokenizer} />);
					break;
			}
		});
		return <>{pieces}</>;
	}
}
