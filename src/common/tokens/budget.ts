// The token budget of one prompt.

/**
 * Share of the window held back for the difference between our local tokenizer
 * (js-tiktoken, o200k_base) and the model's own, plus message framing we do not see.
 * Local counts of English and code are within a few percent of other tokenizers;
 * 5% + 200 tokens keeps a request from bouncing off the provider's hard limit.
 */
export const RESERVE_SHARE = 0.05;
export const RESERVE_MIN_TOKENS = 200;
/**
 * What a provider adds to every request of another extension, in the model's tokens: GitHub
 * Copilot's wrapper puts its own safety and editor instructions (some 150–250 tokens) in front of
 * the messages and counts them against the window a second time, after already taking them out of
 * the `maxInputTokens` it advertises. Held back from every prompt, agent and summarizer alike.
 */
export const PROVIDER_INSTRUCTIONS_TOKENS = 300;

export interface PromptBudget {
	/**
	 * The model's window in local tokens: `maxInputTokens` divided by the calibration ratio
	 * (calibration.ts), so every share below is of what the model really accepts.
	 */
	readonly window: number;
	/** The model's tokens per local token the budget was computed with (1 = uncalibrated). */
	readonly ratio: number;
	/** Tokens of the tool definitions sent with every request. */
	readonly toolTokens: number;
	/** The provider's own instructions ({@link PROVIDER_INSTRUCTIONS_TOKENS}), in local tokens. */
	readonly providerTokens: number;
	readonly reserve: number;
	/** What the rendered messages may use. */
	readonly messages: number;
}

/** `ratio`: the model's tokens per local token (calibration.ts); values below 1 count as 1. */
export function computeBudget(maxInputTokens: number, toolTokens: number, ratio = 1): PromptBudget {
	const scale = Number.isFinite(ratio) && ratio > 1 ? ratio : 1;
	const window = Math.max(0, Math.floor(maxInputTokens / scale));
	const reserve = Math.ceil(window * RESERVE_SHARE) + RESERVE_MIN_TOKENS;
	const providerTokens = Math.ceil(PROVIDER_INSTRUCTIONS_TOKENS / scale);
	return { window, ratio: scale, toolTokens, providerTokens, reserve, messages: Math.max(0, window - toolTokens - providerTokens - reserve) };
}

/** What a prompt of `messageTokens` takes of the window: its messages, the tool definitions and the provider's hold-back. */
export function windowTokensUsed(messageTokens: number, budget: PromptBudget): number {
	return messageTokens + budget.toolTokens + budget.providerTokens;
}

/**
 * What summaries may hold, each and all blocks together: 7 % of the message budget (decisions 44
 * and 49). The done-ledger lists every file and command, and a round set aside or summarized comes
 * back word for word with longhaul_recall, so summaries carry what was learned and decided; a larger
 * share would crowd out the rounds kept whole (on the sessions nobody tuned for, a tenth already did).
 */
export const SUMMARY_SHARE = 0.07;

/** The largest summary we accept, and the bound of all summary blocks together ({@link SUMMARY_SHARE}). */
export function summaryBudget(budget: PromptBudget): number {
	return Math.max(256, Math.floor(budget.messages * SUMMARY_SHARE));
}

/** The largest single tool result that may reach a prompt: half the message budget. */
export function toolResultBudget(budget: PromptBudget): number {
	return Math.max(256, Math.floor(budget.messages * 0.5));
}

/**
 * What the summarizer's prompt may use: the whole window less the reserve and the provider's own
 * instructions. Its request carries no tool definitions, and it must hold the older rounds that
 * overflowed the agent's prompt.
 */
export function summarizerPromptBudget(budget: PromptBudget): number {
	return Math.max(0, budget.window - budget.providerTokens - budget.reserve);
}
