// Command text in the done-ledger: long commands keep their start and end (what identifies
// them: the program, its first arguments, and the file or test at the end), and the shortened
// form must still point at exactly one command of the ledger.
import type { LedgerCommand } from './doneLedger';

/** The marker for the left-out middle of a command. */
export const ELLIPSIS = '…';

/** `text` cut to `maxChars`: its first ~60% and last ~40% around {@link ELLIPSIS}. */
export function trimCommand(text: string, maxChars: number): string {
	if (text.length <= maxChars) return text;
	const room = Math.max(2, maxChars - ELLIPSIS.length);
	const head = Math.ceil(room * 0.6);
	return text.slice(0, head) + ELLIPSIS + text.slice(text.length - (room - head));
}

/**
 * The text shown for each command at `maxChars`: the command itself when short enough,
 * otherwise its trimmed form, lengthened (twice, then in full) for commands whose trimmed forms
 * would be the same. Linear in the number of commands.
 */
export function identifyingForms(commands: readonly LedgerCommand[], maxChars: number): Map<LedgerCommand, string> {
	const forms = new Map<LedgerCommand, string>();
	let pending = commands;
	for (const limit of [maxChars, maxChars * 2, Infinity]) {
		const byForm = new Map<string, LedgerCommand[]>();
		for (const c of pending) {
			const form = limit === Infinity ? c.command : trimCommand(c.command, limit);
			const list = byForm.get(form);
			if (list) list.push(c);
			else byForm.set(form, [c]);
		}
		const clashing: LedgerCommand[] = [];
		for (const [form, list] of byForm) {
			if (list.length === 1 || limit === Infinity) for (const c of list) forms.set(c, form);
			else clashing.push(...list);
		}
		pending = clashing;
		if (!pending.length) break;
	}
	return forms;
}
