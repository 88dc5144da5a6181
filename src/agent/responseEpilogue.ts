// The end of a response (after the model's final answer): the stop notice, the summary recap, the
// token line and their buttons, collected while the request finishes and written in the one order
// that keeps the final answer visible in VS Code's folded view (src/common/response/finalAnswer.ts):
// all text first, buttons last. Nothing else may write to the stream after the answer.
import type * as vscode from 'vscode';
import { epilogueOrder, type EpilogueItem } from '../common/response/finalAnswer';

export class ResponseEpilogue {
	private readonly items: EpilogueItem<vscode.Command>[] = [];

	markdown(text: string): void {
		this.items.push({ kind: 'markdown', text });
	}

	button(command: vscode.Command): void {
		this.items.push({ kind: 'button', button: command });
	}

	/** Writes everything collected (text, then buttons) and forgets it. */
	write(stream: vscode.ChatResponseStream): void {
		for (const item of epilogueOrder(this.items.splice(0))) {
			if (item.kind === 'markdown') stream.markdown(item.text);
			else stream.button(item.button);
		}
	}
}
