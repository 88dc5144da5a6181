// The one adapter from the agent prompt to the overflow pipeline (fitPrompt), shared by the agent
// (src/agent/agentLoop.ts) and the replay benchmark (bench/replay/): it turns the prompt-tsx render
// into fitPrompt's render and measure steps (a BudgetExceededError means "does not fit") and the
// user's settings into its options, so the benchmark replays exactly what the agent runs.
import type { Conversation } from '../common/conversation/conversation';
import { fitPlanOptions, fitPrompt, type FitOptions, type FitResult, type FitSteps } from '../common/fitting/fitPrompt';
import { planOrNothing } from '../common/planning/planners';
import type { FitSession } from '../common/fitting/fitSession';
import type { SummarizationMode } from '../common/planning/plan';
import { summaryBudget, type PromptBudget } from '../common/tokens/budget';
import type { PromptTokenizer } from '../common/tokens/tokenizer';
import type { AgentPromptProps } from './agentPrompt';
import { isBudgetExceededError, measureAgentPrompt, renderAgentPrompt, type RenderedPrompt } from './render';

/** The settings that shape a fit (longhaul.* in the product; chosen per strategy in the benchmark). */
export interface FitSettings {
	readonly mode: SummarizationMode;
	readonly maskOldToolResults: boolean;
	/** longhaul.autoSummarize */
	readonly autoSummarize: boolean;
	/** longhaul.minRecentRounds */
	readonly minKeep: number;
	/** half-context's split rule; the product always uses `tokens`. */
	readonly halfContextSplit?: 'tokens' | 'rounds';
}

/** The steps of fitPrompt that need a model, a clock or a cancellation token: the caller's. */
export type ModelSteps = Pick<FitSteps<RenderedPrompt>, 'summarize' | 'condense' | 'takePrepared' | 'isCancelled' | 'cancellationError'>;

export interface AgentFit {
	/** The agent prompt's props for a conversation (the done-ledger, tool names and caps included). */
	readonly props: (conversation: Conversation) => AgentPromptProps;
	/** True while the props show a done-ledger that could be left out. */
	readonly showsLedger: (conversation: Conversation) => boolean;
	readonly tokenizer: PromptTokenizer;
	readonly budget: PromptBudget;
	/** A message budget below `budget.messages`, for the retry after a provider refused a prompt as too long. */
	readonly messageBudget?: number;
	readonly settings: FitSettings;
	readonly steps: ModelSteps;
	/** Wraps every render (the benchmark times them). */
	readonly timeRender?: <T>(render: () => Promise<T>) => Promise<T>;
	/** Wraps every plan (the benchmark times them and counts their tokenizing). */
	readonly timePlan?: <T>(plan: () => T) => T;
}

/** fitPrompt's options for these settings and budget; `messageBudget` caps the budget's room for messages. */
export function fitOptionsFor(settings: FitSettings, budget: PromptBudget, messageBudget = budget.messages): FitOptions {
	return {
		mode: settings.mode,
		messageBudget: Math.min(messageBudget, budget.messages),
		maskOldToolResults: settings.maskOldToolResults,
		summaryBudget: summaryBudget(budget),
		autoSummarize: settings.autoSummarize,
		minKeep: settings.minKeep,
		...(settings.halfContextSplit ? { halfContextSplit: settings.halfContextSplit } : {}),
	};
}

/** Makes the agent prompt of `conversation` fit its budget: the product's overflow pipeline with prompt-tsx rendering. */
export function fitAgentPrompt(conversation: Conversation, session: FitSession, fit: AgentFit): Promise<FitResult<RenderedPrompt>> {
	const { tokenizer } = fit;
	const options = fitOptionsFor(fit.settings, fit.budget, fit.messageBudget);
	const countTokens = (text: string) => tokenizer.countTokens(text);
	const planOptions = fitPlanOptions(options, countTokens);
	const timed = fit.timeRender ?? (<T>(render: () => Promise<T>) => render());
	const timedPlan = fit.timePlan ?? (<T>(plan: () => T) => plan());
	return fitPrompt<RenderedPrompt>(
		conversation,
		session,
		{
			...fit.steps,
			render: async c => {
				try {
					return { fits: true, prompt: await timed(() => renderAgentPrompt(fit.props(c), { tokenizer, budget: options.messageBudget })) };
				} catch (error) {
					if (isBudgetExceededError(error)) return { fits: false };
					throw error;
				}
			},
			measure: async c => (await measureAgentPrompt(fit.props(c), tokenizer)).tokenCount,
			showsLedger: fit.showsLedger,
			plan: c => timedPlan(() => planOrNothing(c, options.mode, planOptions)),
			countTokens,
		},
		options,
	);
}
