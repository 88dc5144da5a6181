// The request in progress: what the user attached, then their message word for word.
import { PromptElement, UserMessage, type BasePromptElementProps } from '@vscode/prompt-tsx';
import { attributeValue, escapeTags } from './promptTags';

/** A reference the user attached (file, selection, value), already read as text. */
export interface ReferenceAttachment {
	readonly name: string;
	readonly text: string;
}

export interface CurrentRequestProps extends BasePromptElementProps {
	readonly prompt: string;
	readonly references: readonly ReferenceAttachment[];
}

export function currentRequestText(prompt: string, references: readonly ReferenceAttachment[]): string {
	if (references.length === 0) {
		return prompt;
	}
	// An attached file's text cannot close its attachment (its structure tags are escaped).
	const attachments = references.map(ref => `<attachment name="${attributeValue(ref.name)}">\n${escapeTags(ref.text)}\n</attachment>`);
	return `<attachments>\n${attachments.join('\n')}\n</attachments>\n\n${prompt}`;
}

export class CurrentRequestMessage extends PromptElement<CurrentRequestProps> {
	render() {
		return <UserMessage>{currentRequestText(this.props.prompt, this.props.references)}</UserMessage>;
	}
}
