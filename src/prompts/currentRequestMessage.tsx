// The request in progress: what the user attached, then their message word for word.
import { PromptElement, UserMessage, type BasePromptElementProps } from '@vscode/prompt-tsx';

/** A reference the user attached (file, selection, value), already read as text. */
export interface ReferenceAttachment {
	readonly name: string;
	readonly text: string;
}

export interface CurrentRequestProps extends BasePromptElementProps {
	readonly prompt: string;
	readonly references: readonly ReferenceAttachment[];
}

function attributeValue(value: string): string {
	return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/\n/g, ' ');
}

export function currentRequestText(prompt: string, references: readonly ReferenceAttachment[]): string {
	if (references.length === 0) {
		return prompt;
	}
	const attachments = references.map(ref => `<attachment name="${attributeValue(ref.name)}">\n${ref.text}\n</attachment>`);
	return `<attachments>\n${attachments.join('\n')}\n</attachments>\n\n${prompt}`;
}

export class CurrentRequestMessage extends PromptElement<CurrentRequestProps> {
	render() {
		return <UserMessage>{currentRequestText(this.props.prompt, this.props.references)}</UserMessage>;
	}
}
