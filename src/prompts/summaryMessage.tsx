// The newest summary, standing in for everything before its anchor round.
import { PromptElement, UserMessage, type BasePromptElementProps } from '@vscode/prompt-tsx';

export interface SummaryMessageProps extends BasePromptElementProps {
	readonly summary: string;
}

export function summaryMessageText(summary: string): string {
	return `<conversation-summary>\n${summary.trim()}\n</conversation-summary>`;
}

/** A user message holding the summary in `<conversation-summary>` tags, placed where its anchor round was. */
export class SummaryMessageElement extends PromptElement<SummaryMessageProps> {
	render() {
		return <UserMessage>{summaryMessageText(this.props.summary)}</UserMessage>;
	}
}
