// The summarization request: instructions as the system message, then one user message with
// the previous summary (to absorb), the transcript of the rounds to absorb, and the request.
import { PromptElement, SystemMessage, UserMessage, type BasePromptElementProps } from '@vscode/prompt-tsx';
import { escapeTags } from './promptTags';
import { summarizerInstructions, summarizerRequest, type StatedLength } from './summarizerInstructions';
import { summarizerTranscript, type SummarizerEntry, type SummaryPromptMode } from './summarizerTranscript';

export interface SummarizerPromptProps extends BasePromptElementProps {
	readonly mode: SummaryPromptMode;
	/** The newest earlier summary; the new one replaces it, so it must absorb it. */
	readonly previousSummary?: string;
	/** What to absorb, oldest first: rounds, each turn's user message ahead of its first round. */
	readonly rounds: readonly SummarizerEntry[];
	/** Something the user asked the summary to emphasize (`/compact <focus>`). */
	readonly focus?: string;
	/** Simple mode: characters kept of each tool result; default 400. */
	readonly simpleToolResultChars?: number;
	/** The length the summary must stay under (summaryLength.ts); without it the prompt states none. */
	readonly length?: StatedLength;
}

export function summarizerUserText(props: SummarizerPromptProps): string {
	const sections: string[] = [];
	if (props.previousSummary?.trim()) {
		sections.push(`<previous-summary>\n${escapeTags(props.previousSummary.trim())}\n</previous-summary>`);
	}
	sections.push(summarizerTranscript(props.rounds, { mode: props.mode, simpleToolResultChars: props.simpleToolResultChars }));
	sections.push(summarizerRequest(props.focus, props.length));
	return sections.join('\n\n');
}

export class SummarizerPrompt extends PromptElement<SummarizerPromptProps> {
	render() {
		return (
			<>
				<SystemMessage>{summarizerInstructions(this.props.mode, this.props.length)}</SystemMessage>
				<UserMessage>{summarizerUserText(this.props)}</UserMessage>
			</>
		);
	}
}
