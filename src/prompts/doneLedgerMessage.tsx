// The optional done ledger: a list of finished work the agent must not redo. It is the one part
// of the agent prompt that may be left out when the prompt does not fit (see render.ts).
import { PromptElement, UserMessage, type BasePromptElementProps } from '@vscode/prompt-tsx';
import { escapeTags } from './promptTags';

export interface DoneLedgerProps extends BasePromptElementProps {
	readonly ledger: string;
}

export function doneLedgerText(ledger: string): string {
	// Commands and paths in the ledger are the model's own text: their tags are escaped.
	return `<done-ledger>\n${escapeTags(ledger.trim())}\n</done-ledger>`;
}

export class DoneLedgerMessage extends PromptElement<DoneLedgerProps> {
	render() {
		return <UserMessage>{doneLedgerText(this.props.ledger)}</UserMessage>;
	}
}
