// The conversation part of the agent prompt, in the order `layoutPrompt` gives: past user
// messages word for word, the request in progress at its slot, each turn's summary block right
// after its user message (the done ledger follows the newest block, when there is one), and every
// later round verbatim.
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
		// After the newest block: the verbatim rounds follow it. Without a block, ahead of the history.
		const ledgerAfter = entries.map(e => e.kind).lastIndexOf('summary');
		if (ledger && ledgerAfter < 0) {
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
					pieces.push(<SummaryMessageElement priority={PRIORITY.summary} summary={entry.text} condensed={entry.condensed} />);
					if (ledger && index === ledgerAfter) {
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
