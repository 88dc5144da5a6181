// The agent prompt as the overflow pipeline renders it, shared by the agent (src/agent/promptFitting.ts)
// and the replay benchmark (bench/replay/strategies.ts) through their Compactor's fit
// (src/common/compaction/compactor.ts): the prompt-tsx render becomes fitPrompt's render and
// measure steps (a BudgetExceededError means "does not fit"), so the benchmark replays exactly what
// the agent runs.
import type { Conversation } from '../common/conversation/conversation';
import type { PromptSteps } from '../common/compaction/compactor';
import type { FitOptions } from '../common/fitting/fitPrompt';
import type { PromptTokenizer } from '../common/tokens/tokenizer';
import type { AgentPromptProps } from './agentPrompt';
import { isBudgetExceededError, measureAgentPrompt, renderAgentPrompt, type RenderedPrompt } from './render';

/** What the agent prompt of a conversation is made of, and how it is counted. */
export interface AgentPromptSource {
	/** The agent prompt's props for a conversation (the done-ledger, tool names and caps included). */
	readonly props: (conversation: Conversation) => AgentPromptProps;
	/** True while the props show a done-ledger that could be left out. */
	readonly showsLedger: (conversation: Conversation) => boolean;
	readonly tokenizer: PromptTokenizer;
	/** Wraps every render (the benchmark times them). */
	readonly timeRender?: <T>(render: () => Promise<T>) => Promise<T>;
}

/** fitPrompt's render, measure and ledger steps for the agent prompt, at a fit's options. */
export function agentPromptSteps(source: AgentPromptSource): (options: FitOptions) => PromptSteps<RenderedPrompt> {
	const { tokenizer } = source;
	const timed = source.timeRender ?? (<T>(render: () => Promise<T>) => render());
	return options => ({
		render: async c => {
			try {
				return { fits: true, prompt: await timed(() => renderAgentPrompt(source.props(c), { tokenizer, budget: options.messageBudget })) };
			} catch (error) {
				if (isBudgetExceededError(error)) return { fits: false };
				throw error;
			}
		},
		measure: async c => (await measureAgentPrompt(source.props(c), tokenizer)).tokenCount,
		showsLedger: source.showsLedger,
	});
}
