// The response stream handed to a request's handler, reporting every part it writes, in order, so
// that observers (tests, other extensions; api.ts HandledRequest) see the response as VS Code got it.
import type * as vscode from 'vscode';
import type { ResponsePart } from '../common/response/finalAnswer';

/** A part of the response; `text` is the markdown of a markdown part, the message of a progress part, empty otherwise. */
export interface RecordedPart extends ResponsePart {
	/** The button's command, for `button` parts. */
	readonly command?: vscode.Command;
}

/** Members of the stream that write something other than text or a button. */
const OTHER_PARTS = ['anchor', 'reference', 'reference2', 'filetree', 'push', 'codeCitation', 'textEdit', 'notebookEdit', 'warning', 'confirmation'];

/**
 * The same stream, also reporting every part. VS Code hands out a frozen object (no patching, and
 * a Proxy may not change its read-only members), so this is a new object that forwards every member.
 */
export function recordingStream(stream: vscode.ChatResponseStream, onPart: (part: RecordedPart) => void): vscode.ChatResponseStream {
	const forward: Record<string, unknown> = {};
	for (let o: object | null = stream; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
		for (const key of Object.getOwnPropertyNames(o)) {
			if (key !== 'constructor' && !(key in forward)) {
				const member = (stream as unknown as Record<string, unknown>)[key];
				forward[key] = typeof member === 'function' ? member.bind(stream) : member;
			}
		}
	}
	forward.markdown = (value: string | vscode.MarkdownString) => {
		onPart({ kind: 'markdown', text: typeof value === 'string' ? value : value.value });
		stream.markdown(value);
		return forward;
	};
	forward.button = (command: vscode.Command) => {
		onPart({ kind: 'button', text: '', command });
		stream.button(command);
		return forward;
	};
	forward.progress = (value: string, ...rest: unknown[]) => {
		onPart({ kind: 'progress', text: String(value) });
		return (stream.progress as (...args: unknown[]) => unknown)(value, ...rest);
	};
	for (const key of OTHER_PARTS) {
		const member = forward[key];
		if (typeof member !== 'function') continue;
		forward[key] = (...args: unknown[]) => {
			onPart({ kind: 'other', text: '' });
			return (member as (...a: unknown[]) => unknown)(...args);
		};
	}
	return forward as unknown as vscode.ChatResponseStream;
}
