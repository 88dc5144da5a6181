// Longhaul's prompts: what src/agent uses. No `vscode` import anywhere below.
export { type AgentPromptProps } from './agentPrompt';
export { type ReferenceAttachment } from './currentRequestMessage';
export { extractSummary, summaryOfReply } from './extractSummary';
export { isBudgetExceededError, measureAgentPrompt, renderCondensePrompt, renderCondenseBlockPrompt, renderSummarizerPrompt } from './render';
export { type StatedLength } from './summarizerInstructions';
export { type SummarizerEntry } from './summarizerTranscript';
