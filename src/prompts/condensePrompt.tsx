// The condense request: a summary came back longer than Longhaul can use, so the same model is
// asked to shorten that summary alone (its input is the summary, not the conversation: cheap).
import { PromptElement, SystemMessage, UserMessage, type BasePromptElementProps } from '@vscode/prompt-tsx';
import { CONDENSE_TAG, escapeTags } from './promptTags';
import { lengthRule, type StatedLength } from './summarizerInstructions';

export interface CondensePromptProps extends BasePromptElementProps {
	/** The summary that was too long. */
	readonly summary: string;
	readonly length: StatedLength;
}

export function condenseInstructions(length: StatedLength): string {
	return [
		"You shorten the written memory of a coding-agent session. The summary below replaces the session's older messages, and it is longer than the room the agent has for it.",
		'Rewrite it shorter. Keep its sections in their order, keep every fact that is still needed to continue the work, and add nothing that is not in it. Exact file paths, names, commands, errors and numbers stay exact.',
		lengthRule(length, 'The shortened summary'),
		'Write only the shortened summary, inside <summary> tags.',
	].join('\n\n');
}

export function condenseUserText(props: CondensePromptProps): string {
	return [
		`<${CONDENSE_TAG}>\n${escapeTags(props.summary.trim())}\n</${CONDENSE_TAG}>`,
		`Write the shortened summary in <summary> tags; it must stay under ${props.length.targetTokens} tokens (about ${props.length.targetWords} words).`,
	].join('\n\n');
}

export class CondensePrompt extends PromptElement<CondensePromptProps> {
	render() {
		return (
			<>
				<SystemMessage>{condenseInstructions(this.props.length)}</SystemMessage>
				<UserMessage>{condenseUserText(this.props)}</UserMessage>
			</>
		);
	}
}
