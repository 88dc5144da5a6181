// One summary block (src/common/conversation/summaryBlocks.ts): the summary of a turn's older
// rounds, rendered right after that turn's user message, where the first round it replaces was.
import { PromptElement, UserMessage, type BasePromptElementProps } from '@vscode/prompt-tsx';
import { CONDENSED_NOTE } from '../common/conversation/summaryBlocks';
import { escapeTags } from './promptTags';

export interface SummaryMessageProps extends BasePromptElementProps {
	readonly summary: string;
	/** The block was condensed to keep all blocks within the summary budget: the prompt says so. */
	readonly condensed?: boolean;
}

/** The block in its tags; tags in the summary itself are escaped, so a summary quoting `</conversation-summary>` stays inside. */
export function summaryMessageText(summary: string, condensed = false): string {
	return `<conversation-summary>\n${condensed ? CONDENSED_NOTE + '\n' : ''}${escapeTags(summary.trim())}\n</conversation-summary>`;
}

/** A user message holding the block in `<conversation-summary>` tags. */
export class SummaryMessageElement extends PromptElement<SummaryMessageProps> {
	render() {
		return <UserMessage>{summaryMessageText(this.props.summary, this.props.condensed)}</UserMessage>;
	}
}
