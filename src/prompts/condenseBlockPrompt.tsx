// Bounded growth (src/common/summaries/condenseBlocks.ts): an older summary block has to take less
// room, so the same model is asked to shorten that block alone (its input is the block, not the
// conversation: a cheap request).
import { PromptElement, SystemMessage, UserMessage, type BasePromptElementProps } from '@vscode/prompt-tsx';
import { wordsFor } from '../common/summaries/summaryLength';
import { CONDENSE_BLOCK_TAG, escapeTags } from './promptTags';

export interface CondenseBlockPromptProps extends BasePromptElementProps {
	readonly block: string;
	/** The most the shortened block may hold. */
	readonly targetTokens: number;
}

export function condenseBlockInstructions(targetTokens: number): string {
	return [
		'You shorten one of the summaries that make up the memory of a long coding-agent session. Each summary covers the work done for one user request; this one is older, and all of them together have outgrown the room the agent has for them.',
		"Rewrite it shorter. Keep what the agent needs later: the user's request in their words, what was done (files changed, commands run and their outcome), decisions taken and why, and what was left open. Drop first: intermediate steps, tool output, exploration that led nowhere. Exact file paths, names, commands and numbers stay exact; add nothing that is not in it.",
		`The shortened summary must stay under ${targetTokens} tokens (about ${wordsFor(targetTokens)} words). Write only the shortened summary, inside <summary> tags.`,
	].join('\n\n');
}

export class CondenseBlockPrompt extends PromptElement<CondenseBlockPromptProps> {
	render() {
		return (
			<>
				<SystemMessage>{condenseBlockInstructions(this.props.targetTokens)}</SystemMessage>
				<UserMessage>{`<${CONDENSE_BLOCK_TAG}>\n${escapeTags(this.props.block.trim())}\n</${CONDENSE_BLOCK_TAG}>`}</UserMessage>
			</>
		);
	}
}
