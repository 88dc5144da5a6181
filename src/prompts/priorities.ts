// Pruning order of the agent prompt's parts, highest kept longest.
//
// Longhaul renders with pruning switched off (see render.ts and docs/prompts.md): a prompt that
// does not fit raises BudgetExceededError so the agent summarizes. The only part that may be left
// out is the optional done ledger. The numbers still state the intended order, so a caller that
// ever renders these elements with prompt-tsx pruning gets the right victims first.

export const PRIORITY = {
	instructions: 1_000_000_000,
	currentRequest: 999_999_999,
	summary: 999_999_998,
	/** The newest history entry gets this; each older one one less. */
	historyNewest: 900_000_000,
	doneLedger: 1,
} as const;
