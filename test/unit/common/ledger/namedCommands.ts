// Which of a ledger's commands, with their outcomes, its text names: the ledger tests' measure of a
// ledger that shortens its lines (every shortened command must still name exactly one command).
import { ELLIPSIS, formMatches } from '../../../../src/common/ledger/ledgerCommands';
import type { ReadLedger } from '../../../../bench/replay/ledgerReader';

/** True when `shown` stands for `outcome`: the same, or its start cut with … */
function outcomeMatches(shown: string, outcome: string): boolean {
	return shown === outcome || (shown.endsWith(ELLIPSIS) && shown.length > ELLIPSIS.length && outcome.startsWith(shown.slice(0, -ELLIPSIS.length)));
}

/** The commands of `all` that `shown` stands for (ledgerCommands.ts formMatches: the same text, or its pieces in order). */
function commandsShown(shown: string, all: readonly string[]): string[] {
	return all.filter(c => formMatches(shown, c));
}

/**
 * The `command\u0000outcome` pairs the ledger names, given the ledger's commands (`all`, for
 * telling whether a shortened command identifies one). A line whose split into command and
 * outcome is ambiguous counts for every reading that names exactly one command.
 */
export function namedCommands(read: ReadLedger, commands: readonly { command: string; outcome: string }[]): Set<string> {
	const all = commands.map(c => c.command);
	const outcomes = new Map(commands.map(c => [c.command, c.outcome]));
	const named = new Set<string>();
	for (const line of read.commandLines) {
		const body = line.replace(/ \(run \d+ times\)$/, '');
		for (let at = body.indexOf('`: '); at !== -1; at = body.indexOf('`: ', at + 1)) {
			const matches = commandsShown(body.slice(0, at), all);
			if (matches.length !== 1) continue;
			const outcome = outcomes.get(matches[0])!;
			if (outcomeMatches(body.slice(at + 3), outcome)) named.add(`${matches[0]}\u0000${outcome}`);
		}
	}
	return named;
}
