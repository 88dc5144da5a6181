// One verbatim round: the assistant message with its tool calls, then one tool message per call.
import { AssistantMessage, PromptElement, ToolMessage, type BasePromptElementProps, type ToolCall as PromptToolCall } from '@vscode/prompt-tsx';
import type { Round } from '../common/conversation/conversation';
import { stateCarrier } from '../common/provider/providerState';
import type { TextTokenizer } from '../common/tokens/tokenizer';
import { toolResultForPrompt } from './toolResultText';

export interface RoundMessagesProps extends BasePromptElementProps {
	readonly round: Round;
	readonly maxToolResultTokens: number;
	readonly tokenizer: TextTokenizer;
}

/**
 * Every call is answered, in call order: a call without a result (interrupted) gets
 * INTERRUPTED_RESULT (conversation.ts), so no call is ever sent unpaired. Thinking is not sent back. The
 * provider's own state rides along as an opaque part of no tokens; whether it is sent is decided
 * when the request goes out (modelCall.ts), where the model and the whole prompt are known.
 */
export class RoundMessages extends PromptElement<RoundMessagesProps> {
	render() {
		const { round, maxToolResultTokens, tokenizer } = this.props;
		const toolCalls: PromptToolCall[] = round.toolCalls.map(call => ({
			id: call.id,
			type: 'function',
			function: { name: call.name, arguments: call.arguments },
		}));
		return (
			<>
				<AssistantMessage toolCalls={toolCalls.length ? toolCalls : undefined}>
					{round.response}
					{round.providerState ? <opaque value={stateCarrier(round.providerState)} tokenUsage={0} /> : undefined}
				</AssistantMessage>
				{round.toolCalls.map(call => (
					<ToolMessage toolCallId={call.id}>{toolResultForPrompt(call, maxToolResultTokens, tokenizer)}</ToolMessage>
				))}
			</>
		);
	}
}
