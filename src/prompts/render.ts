// Rendering the agent and summarizer prompts to prompt-tsx Raw messages, in plain Node
// (no `vscode` import: prompt-tsx's main entry loads `vscode` only when converting to
// VS Code messages).
//
// No silent pruning. prompt-tsx fits a prompt to its budget by removing the lowest-priority
// elements, and only throws BudgetExceededError once nothing prunable is left. Longhaul wants the
// opposite: a prompt whose verbatim content does not fit must fail so the agent summarizes. So
// prompt-tsx renders with an unlimited budget (it never prunes), the exact token count is compared
// with the real budget here, and an overflow throws BudgetExceededError (prompt-tsx's class).
// The done ledger is part of the prompt like everything else (an overflow with it leads to a
// summary, so it is never silently missing); a caller may mark it optional
// (`doneLedgerOptional`), and then it is dropped before giving up.
// docs/prompts.md explains the choice and the alternatives.
import { MetadataMap, PromptRenderer, type BasePromptElementProps, type PromptElementCtor, type Raw } from '@vscode/prompt-tsx';
import { BudgetExceededError } from '@vscode/prompt-tsx/dist/base/materialized';
import type { PromptTokenizer } from '../common/tokens/tokenizer';
import { AgentPrompt, type AgentPromptProps } from './agentPrompt';
import { SummarizerPrompt, type SummarizerPromptProps } from './summarizerPrompt';
import { CondensePrompt, type CondensePromptProps } from './condensePrompt';
import { CondenseBlockPrompt, type CondenseBlockPromptProps } from './condenseBlockPrompt';

export { BudgetExceededError };

export interface RenderOptions {
	readonly tokenizer: PromptTokenizer;
	/** Tokens the messages may use (e.g. `computeBudget(...).messages`). */
	readonly budget: number;
}

export interface AgentRenderOptions extends RenderOptions {
	/** Render without the done ledger when the prompt does not fit with it, instead of throwing. Default false. */
	readonly doneLedgerOptional?: boolean;
}

export interface RenderedPrompt {
	readonly messages: Raw.ChatMessage[];
	/** Sum of the messages' token counts, framing included (see common/tokenizer.ts). */
	readonly tokenCount: number;
}

export interface RenderedAgentPrompt extends RenderedPrompt {
	/** The done ledger was given but left out because the prompt did not fit with it. */
	readonly doneLedgerOmitted: boolean;
}

/** A budget prompt-tsx never reaches, so it never prunes. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** The error for a prompt whose mandatory content is larger than the budget. */
export class PromptBudgetExceededError extends BudgetExceededError {
	constructor(
		readonly prompt: 'agent' | 'summarizer' | 'condense',
		readonly tokenCount: number,
		readonly budget: number,
		messages: readonly Raw.ChatMessage[],
	) {
		// prompt-tsx's constructor only reads a node's name and parents to build its message.
		super({ parent: undefined, name: prompt } as unknown as ConstructorParameters<typeof BudgetExceededError>[0]);
		this.name = 'BudgetExceededError';
		this.message = `The ${prompt} prompt needs ${tokenCount} tokens but only ${budget} are available, and none of it may be pruned.`;
		this.messages = messages;
		this.metadata = MetadataMap.empty;
	}
}

/** True for prompt-tsx's own BudgetExceededError and for ours. */
export function isBudgetExceededError(error: unknown): error is BudgetExceededError {
	return error instanceof BudgetExceededError;
}

async function renderUnpruned<P extends BasePromptElementProps>(
	ctor: PromptElementCtor<P, unknown>,
	props: P,
	tokenizer: PromptTokenizer,
): Promise<RenderedPrompt> {
	const renderer = new PromptRenderer({ modelMaxPromptTokens: UNLIMITED }, ctor, props, tokenizer);
	const result = await renderer.render();
	return { messages: result.messages, tokenCount: result.tokenCount };
}

/** The whole agent prompt and its size, whatever the budget (for context reports). */
export function measureAgentPrompt(props: AgentPromptProps, tokenizer: PromptTokenizer): Promise<RenderedPrompt> {
	return renderUnpruned(AgentPrompt, { ...props, tokenizer }, tokenizer);
}

/**
 * The agent prompt, every part verbatim. When it is over budget, throws
 * {@link PromptBudgetExceededError}; with `doneLedgerOptional`, it is first rendered again
 * without the done ledger (if one was given).
 */
export async function renderAgentPrompt(props: AgentPromptProps, options: AgentRenderOptions): Promise<RenderedAgentPrompt> {
	const { tokenizer, budget } = options;
	const whole = await renderUnpruned(AgentPrompt, { ...props, tokenizer }, tokenizer);
	if (whole.tokenCount <= budget) {
		return { ...whole, doneLedgerOmitted: false };
	}
	if (options.doneLedgerOptional && props.doneLedger?.trim()) {
		const lean = await renderUnpruned(AgentPrompt, { ...props, doneLedger: undefined, tokenizer }, tokenizer);
		if (lean.tokenCount <= budget) {
			return { ...lean, doneLedgerOmitted: true };
		}
		throw new PromptBudgetExceededError('agent', lean.tokenCount, budget, lean.messages);
	}
	throw new PromptBudgetExceededError('agent', whole.tokenCount, budget, whole.messages);
}

/** The prompt that shortens an older summary block; throws {@link PromptBudgetExceededError} when it does not fit. */
export async function renderCondenseBlockPrompt(props: CondenseBlockPromptProps, options: RenderOptions): Promise<RenderedPrompt> {
	const rendered = await renderUnpruned(CondenseBlockPrompt, props, options.tokenizer);
	if (rendered.tokenCount > options.budget) {
		throw new PromptBudgetExceededError('summarizer', rendered.tokenCount, options.budget, rendered.messages);
	}
	return rendered;
}

/** The summarizer prompt; throws {@link PromptBudgetExceededError} when it does not fit (the caller then tries Simple mode). */
export async function renderSummarizerPrompt(props: SummarizerPromptProps, options: RenderOptions): Promise<RenderedPrompt> {
	const rendered = await renderUnpruned(SummarizerPrompt, props, options.tokenizer);
	if (rendered.tokenCount > options.budget) {
		throw new PromptBudgetExceededError('summarizer', rendered.tokenCount, options.budget, rendered.messages);
	}
	return rendered;
}

/** The condense prompt (a too-long summary to shorten); throws {@link PromptBudgetExceededError} when it does not fit. */
export async function renderCondensePrompt(props: CondensePromptProps, options: RenderOptions): Promise<RenderedPrompt> {
	const rendered = await renderUnpruned(CondensePrompt, props, options.tokenizer);
	if (rendered.tokenCount > options.budget) {
		throw new PromptBudgetExceededError('condense', rendered.tokenCount, options.budget, rendered.messages);
	}
	return rendered;
}
