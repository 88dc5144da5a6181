// The prompt of the `keep-head-tail` reference strategy (benchmark only). The product's layout
// shows only rounds after the newest summary, so it cannot show the first rounds ahead of a
// summary. This element is AgentPrompt with the layout entries given instead of computed: the
// same system instructions and the same prompt-tsx components render every message.
import { PromptElement, PromptRenderer, SystemMessage, type BasePromptElementProps } from '@vscode/prompt-tsx';
import type { PromptEntry } from '../../src/common/conversation/promptLayout';
import type { PromptTokenizer, TextTokenizer } from '../../src/common/tokens/tokenizer';
import { agentInstructions } from '../../src/prompts/agentInstructions';
import { PRIORITY } from '../../src/prompts/priorities';
import type { RenderedPrompt } from '../../src/prompts/render';
import { SummarizedConversationHistory } from '../../src/prompts/summarizedConversationHistory';

export interface EntriesPromptProps extends BasePromptElementProps {
	readonly entries: readonly PromptEntry[];
	readonly request: string;
	readonly toolNames: readonly string[];
	readonly workspace: string;
	readonly maxToolResultTokens: number;
	/** keep-head-tail+recall: the done-ledger, as the product renders it. */
	readonly doneLedger?: string;
	readonly tokenizer: TextTokenizer;
}

export class EntriesPrompt extends PromptElement<EntriesPromptProps> {
	render() {
		const { entries, request, toolNames, workspace, maxToolResultTokens, doneLedger, tokenizer } = this.props;
		const hasDoneLedger = !!doneLedger?.trim();
		return (
			<>
				<SystemMessage priority={PRIORITY.instructions}>{agentInstructions({ toolNames, workspace, hasDoneLedger })}</SystemMessage>
				<SummarizedConversationHistory
					entries={entries}
					request={request}
					references={[]}
					doneLedger={hasDoneLedger ? doneLedger : undefined}
					maxToolResultTokens={maxToolResultTokens}
					tokenizer={tokenizer}
				/>
			</>
		);
	}
}

/** Renders without pruning (as the product's render.ts does); the caller compares with the budget. */
export async function renderEntriesPrompt(props: Omit<EntriesPromptProps, 'tokenizer'>, tokenizer: PromptTokenizer): Promise<RenderedPrompt> {
	const renderer = new PromptRenderer({ modelMaxPromptTokens: Number.MAX_SAFE_INTEGER }, EntriesPrompt, { ...props, tokenizer }, tokenizer);
	const result = await renderer.render();
	return { messages: result.messages, tokenCount: result.tokenCount };
}
