// Which tool definitions go with each request. Every definition costs prompt tokens on every
// request (VS Code 1.139 alone registers ~27 tools, ~7.5k tokens), so they get a fixed share
// of the window instead of crowding out the conversation in small windows.
import { RECALL_TOOL_NAME } from '../recall/recallInput';

/** The share of the model's window that tool definitions may take. */
export const TOOL_DEFINITIONS_SHARE = 0.25;

/** Providers reject requests with more tools than this (OpenAI's limit is the tightest). */
export const MAX_TOOLS = 128;

/**
 * Tool names providers accept: GitHub Copilot's wrapper rejects the whole request for a name with
 * any other character, and OpenAI's API allows at most 64 of them.
 */
export function isAcceptedToolName(name: string): boolean {
	return /^[A-Za-z0-9_-]{1,64}$/.test(name);
}

export interface ToolCandidate {
	readonly name: string;
	/** Tokens of the tool's definition as it is sent (name, description, input schema). */
	readonly tokens: number;
	/**
	 * Lower goes first: 0 for tools the user attached to the request, 1 for Longhaul's own
	 * tools (or the ones that replace them) and tools tagged for Longhaul, 2 for the rest.
	 */
	readonly rank: 0 | 1 | 2;
}

export interface ToolChoice {
	/** Names to offer, in the order they came (ties keep their registry order). */
	readonly offered: readonly string[];
	/** Names left out because the budget or the count limit was reached, or providers would reject the name. */
	readonly leftOut: readonly string[];
	readonly tokens: number;
}

/**
 * Offers tools by rank, then in registry order, while their definitions fit `maxTokens`.
 * Tools the user attached are always offered, even over the budget: the user asked for them.
 * A tool that does not fit is skipped, and smaller ones after it may still fit. A tool whose name
 * providers reject ({@link isAcceptedToolName}) is never offered: it would fail every request.
 */
export function chooseTools(candidates: readonly ToolCandidate[], maxTokens: number, maxTools = MAX_TOOLS): ToolChoice {
	const order = candidates.map((c, i) => ({ c, i })).sort((a, b) => a.c.rank - b.c.rank || a.i - b.i);
	const offered = new Set<string>();
	let tokens = 0;
	for (const { c } of order) {
		if (offered.size >= maxTools) break;
		if (!isAcceptedToolName(c.name)) continue;
		if (c.rank === 0 || tokens + c.tokens <= maxTokens) {
			offered.add(c.name);
			tokens += c.tokens;
		}
	}
	return {
		offered: candidates.filter(c => offered.has(c.name)).map(c => c.name),
		leftOut: candidates.filter(c => !offered.has(c.name)).map(c => c.name),
		tokens,
	};
}

/**
 * Tools that have nothing to work on until part of the conversation is summarized: they are
 * chosen (and charged to the budget) with the others, but offered only from then on.
 */
export const AFTER_SUMMARY_TOOLS: ReadonlySet<string> = new Set([RECALL_TOOL_NAME]);

/** The chosen tools to offer with one model request: all of them, less {@link AFTER_SUMMARY_TOOLS} while nothing is summarized. */
export function toolsOfferedNow<T extends { readonly name: string }>(chosen: readonly T[], summarized: boolean): T[] {
	return summarized ? [...chosen] : chosen.filter(t => !AFTER_SUMMARY_TOOLS.has(t.name));
}
