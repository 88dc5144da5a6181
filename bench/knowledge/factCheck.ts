// Is an oracle fact (factOracle.ts) named in a prompt as sent? The rules, one per place:
//   verbatim  a request: its whole text is in the prompt (whitespace runs compared as one space, so
//             the ledger's one-line form of a whole request counts; the prompt's shortened form,
//             "[Request shortened …", shows only the first lines and does not, nor does a ledger
//             line cut with "…"). A file or command: a round that made one of the fact's calls is
//             shown with that call's result as recorded (not masked, not elided).
//   ledger    the done-ledger in the prompt lists the file (a read among its reads or edits, a change
//             among its edits; the same path, or one path ending in "/" + the other), or the command
//             that read or changed it (as below: `cp a b` names b), or the search line of the call
//             that read it (`grep -n x a.py` under "Searches and listings", naming the file; whole,
//             or cut with "…" at its end); or the command with a status that agrees with the
//             oracle's (`exit N` for exit N; shortened with "…" only where exactly one of the
//             session's commands has those pieces in order; a command of several lines on one
//             line, its line breaks as ` ; ` and its comment lines left out; a leading
//             `cd DIR && ` may be left out). A command whose status the oracle cannot read
//             (`unknown`) is neither agreed with nor contradicted: named only there, the fact
//             is `unknown` and left out of the share (knowledgeProbe.ts counts it apart).
//   summary   a summary in the prompt names the file by its path (its last two segments, at a path
//             boundary) or the command by its text (word for word, or on one line with its line
//             breaks as ` ; `; not as JSON string text, which no real summary writes).
import type { Round } from '../../src/common/conversation/conversation';
import { callFacts, shellLine, type Fact } from './factOracle';
import type { CommandStatus } from './commandStatus';
import { flatten, type PromptView } from './promptView';

const ELLIPSIS = '…';

/** Two paths for the same file: equal, or one is the other under some directory. */
export function samePath(a: string, b: string): boolean {
	return a === b || a.endsWith('/' + b) || b.endsWith('/' + a);
}

/** `text` names `path` by its last two segments (the whole path when shorter), at a path boundary. */
export function namesPath(text: string, path: string): boolean {
	const tail = path.split('/').filter(Boolean).slice(-2).join('/');
	if (tail === '') return false;
	for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + 1)) {
		const before = at === 0 ? '' : text[at - 1];
		const after = text[at + tail.length] ?? '';
		if (!/[\w.-]/.test(before) && !/\w/.test(after)) return true;
	}
	return false;
}

/**
 * A command line as compared: its comment lines left out and its line breaks as ` ; ` (the ledger
 * writes a command on one line so), whitespace runs as one space.
 */
const oneLine = (command: string): string => {
	// The same commands are compared on every request of a replay: each is made one line once.
	let line = oneLines.get(command);
	if (line === undefined) {
		line = flatten(
			command
				.split('\n')
				.filter(l => !/^\s*#/.test(l))
				.join('\n')
				.trim()
				.replace(/[ \t]*\n\s*/g, ' ; '),
		).trim();
		if (oneLines.size > 50_000) oneLines.clear();
		oneLines.set(command, line);
	}
	return line;
};
const oneLines = new Map<string, string>();

/** `shown` is `command` cut with "…": its pieces in order, the first at the start, the last at the end. */
function piecesMatch(shown: string, command: string): boolean {
	const pieces = shown.split(ELLIPSIS);
	if (!command.startsWith(pieces[0]) || !command.endsWith(pieces[pieces.length - 1])) return false;
	let at = pieces[0].length;
	for (const piece of pieces.slice(1, -1)) {
		const found = command.indexOf(piece, at);
		if (found === -1) return false;
		at = found + piece.length;
	}
	return at <= command.length - pieces[pieces.length - 1].length;
}

/**
 * `shown` stands for `command`: the same on one line (line breaks as ` ; `, whitespace runs as
 * one space; a leading `cd DIR && ` may be left out, as the ledger leaves out moving into the
 * workspace), or cut with "…" (piecesMatch).
 */
export function commandForm(shown: string, command: string): boolean {
	const s = oneLine(shown);
	const full = oneLine(command);
	return [full, full.replace(/^cd \S+ && /, '')].some(c => s === c || (s.includes(ELLIPSIS) && piecesMatch(s, c)));
}

/** A ledger outcome that says the same as the oracle's status; undefined when the oracle's status is unknown. */
export function statusAgrees(outcome: string, status: CommandStatus | undefined): boolean | undefined {
	if (!status || status.text === 'unknown') return undefined;
	if (status.code !== undefined) return new RegExp(`^exit ${status.code}\\b`).test(outcome);
	if (status.text === 'timed out') return /timed out/.test(outcome);
	if (status.text === 'interrupted') return /interrupt/.test(outcome);
	return /error|exception/.test(outcome);
}

/** The ledger names the command with an outcome that agrees (true), or only with one the oracle cannot judge (undefined). */
function ledgerNamesCommand(view: PromptView, fact: Fact, commands: readonly string[]): boolean | undefined {
	let unknown = false;
	for (const line of view.ledger.commandLines) {
		const body = line.replace(/ \(run \d+ times\)$/, '');
		for (let at = body.indexOf('`: '); at !== -1; at = body.indexOf('`: ', at + 1)) {
			const shown = body.slice(0, at);
			if (!commandForm(shown, fact.text) || commands.filter(c => commandForm(shown, c)).length !== 1) continue;
			const agrees = statusAgrees(body.slice(at + 3), fact.status);
			if (agrees) return true;
			if (agrees === undefined) unknown = true;
		}
	}
	return unknown ? undefined : false;
}

function summaryNamesCommand(summary: string, command: string): boolean {
	return summary.includes(command) || (command.includes('\n') && summary.includes(oneLine(command)));
}

/** A file fact whose call ran a command the ledger names (`cp a b`: exit 0 names b), or a search the ledger lists that names the file (`grep -n x a.py`). */
function fileCommandInLedger(view: PromptView, fact: Fact, recorded: ReadonlyMap<string, Round>, commands: readonly string[]): boolean {
	return fact.calls.some(ref => {
		const call = recorded.get(ref.roundId)?.toolCalls[ref.call] ?? { id: '', name: '', arguments: '' };
		const command = callFacts(call).command;
		if (command !== undefined) return ledgerNamesCommand(view, { kind: 'command', text: command.text, status: command.status, calls: [] }, commands) === true;
		const line = shellLine(call);
		return line !== undefined && view.ledger.searchLines.some(shown => namesPath(shown, fact.text) && commandForm(shown, line));
	});
}

/** One of the fact's calls is shown with its result as recorded. */
function shownVerbatim(view: PromptView, fact: Fact, recorded: ReadonlyMap<string, Round>): boolean {
	return fact.calls.some(ref => {
		const shown = view.shownResults.get(ref.roundId);
		const original = recorded.get(ref.roundId)?.toolCalls[ref.call];
		return shown !== undefined && original !== undefined && shown[ref.call] === original.result;
	});
}

/** Where the fact is named in the prompt, or undefined. `commands`: every command fact's text (for shortened ledger lines). */
export function factSeen(
	view: PromptView,
	fact: Fact,
	recorded: ReadonlyMap<string, Round>,
	commands: readonly string[],
): 'verbatim' | 'ledger' | 'summary' | 'unknown' | undefined {
	if (fact.kind === 'request') return view.flat.includes(flatten(fact.text).trim()) ? 'verbatim' : undefined;
	if (shownVerbatim(view, fact, recorded)) return 'verbatim';
	if (fact.kind === 'command') {
		const inLedger = ledgerNamesCommand(view, fact, commands);
		if (inLedger) return 'ledger';
		if (view.summaries.some(s => summaryNamesCommand(s, fact.text))) return 'summary';
		return inLedger === undefined ? 'unknown' : undefined;
	}
	const listed = fact.kind === 'changed' ? [...view.ledger.edits] : [...view.ledger.reads, ...view.ledger.edits];
	if (listed.some(p => samePath(p, fact.text)) || fileCommandInLedger(view, fact, recorded, commands)) return 'ledger';
	return view.summaries.some(s => namesPath(s, fact.text)) ? 'summary' : undefined;
}
