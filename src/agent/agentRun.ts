// What one agent request works with: the request's context (commands/requestContext.ts, gathered
// once by participant.ts), its Compactor (requestCompactor.ts, built once by the agent loop), the
// tools as the model sees them, and what the prompt adds for this request.
import type * as vscode from 'vscode';
import type { ReferenceAttachment } from '../prompts';
import type { RequestContext } from './commands/requestContext';
import type { RequestCompactor } from './requestCompactor';

export interface AgentRun {
	readonly ctx: RequestContext;
	readonly compactor: RequestCompactor;
	readonly chatTools: vscode.LanguageModelChatTool[];
	/** The request's attachments, as text. */
	readonly references: readonly ReferenceAttachment[];
	/** The workspace's instruction files, pinned in every prompt's instructions. */
	readonly pinnedInstructions?: string;
}
