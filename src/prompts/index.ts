// Longhaul's prompts: what src/agent uses. No `vscode` import anywhere below.
export { AgentPrompt, type AgentPromptProps } from './agentPrompt';
export { type ReferenceAttachment } from './currentRequestMessage';
export { extractSummary, summaryOfReply } from './extractSummary';
export {
	BudgetExceededError,
	PromptBudgetExceededError,
	isBudgetExceededError,
	measureAgentPrompt,
	renderAgentPrompt,
	renderCondensePrompt,
	renderCondenseBlockPrompt,
	renderSummarizerPrompt,
	type RenderOptions,
	type RenderedAgentPrompt,
	type RenderedPrompt,
} from './render';
export { SummarizerPrompt, type SummarizerPromptProps } from './summarizerPrompt';
export { CondensePrompt, CONDENSE_TAG, type CondensePromptProps } from './condensePrompt';
export { type StatedLength } from './summarizerInstructions';
export { DEFAULT_SIMPLE_TOOL_RESULT_CHARS, type SummarizerEntry, type SummaryPromptMode } from './summarizerTranscript';
export { SummaryMessageElement } from './summaryMessage';
export { CONDENSE_BLOCK_TAG, CondenseBlockPrompt } from './condenseBlockPrompt';
export { EMPTY_TOOL_RESULT, INTERRUPTED_TOOL_RESULT } from './toolResultText';
