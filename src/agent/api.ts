import * as vscode from 'vscode';

/** One handled chat request, as Longhaul saw it. Published for observers (tests, other extensions). */
export interface HandledRequest {
	readonly prompt: string;
	readonly command?: string;
	/** Everything Longhaul streamed as markdown, concatenated. */
	readonly markdown: string;
	/** Every button it streamed (`stream.button`), in order. */
	readonly buttons: readonly vscode.Command[];
	/** Every progress line it streamed (`stream.progress`), in order. */
	readonly progress: readonly string[];
	/** Every part it streamed, in order (markdown text, buttons, progress, tool invocations, others): what VS Code folds. */
	readonly parts: readonly { readonly kind: 'markdown' | 'button' | 'progress' | 'tool' | 'other'; readonly text: string }[];
	/** The `ChatResult.metadata` it returned. */
	readonly metadata: unknown;
	readonly errorMessage?: string;
}

/** What `activate` returns: `vscode.extensions.getExtension('longhaul-dev.longhaul').exports`. */
export interface LonghaulApi {
	readonly onDidHandleRequest: vscode.Event<HandledRequest>;
	/** The model's tokens per local token that Longhaul has learned for a model (1 when nothing yet). */
	tokenRatio(model: { readonly vendor: string; readonly id: string }): number;
	/** Forgets what was learned about every model's token count (tests start from scratch with it). */
	forgetTokenRatios(): Promise<void>;
	/** What the status bar's context meter shows now. */
	readonly contextMeter: { readonly text: string; readonly tooltip: string; readonly visible: boolean };
}
