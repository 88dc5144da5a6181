// The prompt of one agent step: system instructions, then the conversation.
import { PromptElement, SystemMessage, type BasePromptElementProps } from '@vscode/prompt-tsx';
import type { Conversation } from '../common/conversation/conversation';
import { layoutPrompt } from '../common/conversation/promptLayout';
import type { TextTokenizer } from '../common/tokens/tokenizer';
import { agentInstructions } from './agentInstructions';
import type { ReferenceAttachment } from './currentRequestMessage';
import { PRIORITY } from './priorities';
import { SummarizedConversationHistory } from './summarizedConversationHistory';

/** What the caller provides for an agent prompt. */
export interface AgentPromptProps {
	readonly conversation: Conversation;
	/** The user's message of the request in progress, verbatim. */
	readonly request: string;
	/** The request's references, already read as text. */
	readonly references: readonly ReferenceAttachment[];
	readonly toolNames: readonly string[];
	/** Workspace folders and working directory, as a line or two of text. */
	readonly workspace: string;
	/** Work already done this session; rendered right after the summary. The only part that may be left out. */
	readonly doneLedger?: string;
	/** Tool results longer than this are cut to it (head and tail kept, with a marker). */
	readonly maxToolResultTokens: number;
	/**
	 * The most the user messages of past turns may hold before the requests of summarized turns are
	 * shortened (promptLayout.ts, olderRequestsBudget); without it, every request is shown whole.
	 */
	readonly olderRequestsMaxTokens?: number;
	/** The workspace's instruction files, pinned in the system instructions of every prompt (never summarized). */
	readonly pinnedInstructions?: string;
}

export interface AgentPromptElementProps extends AgentPromptProps, BasePromptElementProps {
	readonly tokenizer: TextTokenizer;
}

export class AgentPrompt extends PromptElement<AgentPromptElementProps> {
	render() {
		const { conversation, request, references, toolNames, workspace, doneLedger, maxToolResultTokens, olderRequestsMaxTokens, pinnedInstructions, tokenizer } =
			this.props;
		const hasDoneLedger = !!doneLedger?.trim();
		return (
			<>
				<SystemMessage priority={PRIORITY.instructions}>{agentInstructions({ toolNames, workspace, hasDoneLedger, pinned: pinnedInstructions })}</SystemMessage>
				<SummarizedConversationHistory
					entries={layoutPrompt(conversation, { olderRequestsMaxTokens, countTokens: text => tokenizer.countTokens(text) })}
					request={request}
					references={references}
					doneLedger={hasDoneLedger ? doneLedger : undefined}
					maxToolResultTokens={maxToolResultTokens}
					tokenizer={tokenizer}
				/>
			</>
		);
	}
}
