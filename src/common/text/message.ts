// A sentence the user reads, as a template and its arguments: the agent translates it with
// vscode.l10n.t (the template is the key of l10n/bundle.l10n.json), while src/common, which knows
// nothing of vscode, says what to write. Arguments may be messages themselves (a counted noun).
// test/unit/l10n.test.ts checks that every template in the source has a bundle entry.

export type MessageArg = string | number | Message;

export interface Message {
	readonly template: string;
	readonly args: readonly MessageArg[];
}

export function message(template: string, ...args: MessageArg[]): Message {
	return { template, args };
}

/** `n` with the singular or plural template (each with `{0}` for the number). */
export function plural(n: number, one: string, many: string): Message {
	return message(n === 1 ? one : many, n);
}

/** Fills a template's `{0}`, `{1}`… (as vscode.l10n.t does); `translate` turns each template into the reader's language. */
export function formatMessage(m: Message, translate: (template: string) => string = t => t): string {
	const args = m.args.map(a => (typeof a === 'object' ? formatMessage(a, translate) : String(a)));
	return translate(m.template).replace(/\{(\d+)\}/g, (whole, i: string) => args[Number(i)] ?? whole);
}
