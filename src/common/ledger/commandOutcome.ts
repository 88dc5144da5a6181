// How a shell call ended, for the done-ledger. The ledger tells the model not to repeat what
// worked, so a command's own output must never be able to claim "exit 0": the status is read
// only from the line the tool (or the harness that recorded the session) writes at a fixed
// place, chosen by the tool's name, never searched for anywhere in the text.
//   longhaul_runCommand  the first line (`exit code N`, `timed out after N s`, `cancelled`, `ended by SIG`);
//                        the output starts on the second line.
//   bash (mini-swe-agent) the first line `<returncode>N</returncode>` followed by the harness's
//                        `<output>` or `<warning>` line, or an `<exception>…</exception>` line the harness
//                        writes before it when the run failed (a timeout says so). Only for the tool named
//                        exactly `bash`: another tool (Claude Code's `Bash`, any terminal tool) prints
//                        the command's own output there, which can hold such a line.
//   execute_bash (OpenHands) the last line, which the harness appends after the output
//                        (`[The command completed with exit code N.]`, `[Command finished with exit code N]`,
//                        `[The command timed out after …]`), past its working-directory and interpreter lines.
// Any other shell tool, and a result without the status line where its tool writes one, reports no
// status Longhaul can trust: "no exit status", with no line of the output (which can pass for a
// status line: run_in_terminal appends its own after the output).
// Longhaul's agent answers a tool that threw with `Error: the tool NAME failed: …` (src/agent/toolResults.ts);
// that first line counts for every tool whose output does not itself start the result.

export interface CommandOutcome {
	readonly outcome: string;
	readonly failed: boolean;
}

const MAX_SHOWN = 80;

function oneLine(text: string, max: number): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

function firstLine(result: string): string {
	const end = result.indexOf('\n');
	return (end === -1 ? result : result.slice(0, end)).replace(/\r$/, '');
}

const exitOutcome = (code: number): CommandOutcome => ({ outcome: `exit ${code}`, failed: code !== 0 });
const TIMED_OUT: CommandOutcome = { outcome: 'timed out', failed: true };

/** The first line of a Longhaul runCommand result (src/tools/runCommand.ts `status`). */
function longhaulStatus(line: string): CommandOutcome | undefined {
	const code = /^exit code (-?\d+)(?:$|;| \()/.exec(line);
	if (code) return exitOutcome(Number(code[1]));
	if (/^timed out after \d+(?:\.\d+)? s\b/.test(line)) return TIMED_OUT;
	if (/^cancelled(?:$|;)/.test(line)) return { outcome: 'cancelled', failed: true };
	const signal = /^ended by ([^;(]+?)(?:$|;| \()/.exec(line);
	if (signal) return { outcome: `ended by ${oneLine(signal[1], 40)}`, failed: true };
	return undefined;
}

/** mini-swe-agent: `<returncode>N</returncode>` on the first line and the harness's output tag next, or an exception line first. */
function miniSweAgentStatus(result: string): CommandOutcome | undefined {
	const line = firstLine(result);
	const code = /^<returncode>(-?\d+)<\/returncode>(?:\r?\n(?:<output>|<warning>)|\s*$)/.exec(result);
	if (code) return exitOutcome(Number(code[1]));
	if (line.startsWith('<exception>')) {
		return /timed out after \d+(?:\.\d+)? seconds<\/exception>$/.test(line) ? TIMED_OUT : { outcome: 'error: the harness reported an exception', failed: true };
	}
	return undefined;
}

/** Lines OpenHands appends after its status line, skipped to reach it. */
const OPENHANDS_TRAILERS = [/^\[Current working directory: .*\]$/, /^\[Python interpreter: .*\]$/];

/** OpenHands: the last line the harness appends (after its working-directory and interpreter lines). */
function openHandsStatus(result: string): CommandOutcome | undefined {
	const lines = result.replace(/\s+$/, '').split(/\r?\n/);
	let at = lines.length - 1;
	for (const trailer of [...OPENHANDS_TRAILERS].reverse()) if (at > 0 && trailer.test(lines[at])) at--;
	const line = lines[at];
	const code = /^\[(?:The command completed|Command finished) with exit code (-?\d+)\.?\]$/.exec(line);
	if (code) return exitOutcome(Number(code[1]));
	if (/^\[The command timed out after \d+(?:\.\d+)? seconds\b.*\]$/.test(line)) return TIMED_OUT;
	const stillRunning = /^\[The command has no new output after \d+(?:\.\d+)? seconds\b.*\]$/.test(line);
	if (stillRunning) return { outcome: 'still running when the tool answered', failed: true };
	return undefined;
}

/** Longhaul's agent's answer for a tool that threw before or while running. */
function refusedStatus(result: string, tool: string): CommandOutcome | undefined {
	const prefix = `Error: the tool ${tool} failed: `;
	if (!result.startsWith(prefix)) return undefined;
	return { outcome: `not run: ${oneLine(result.slice(prefix.length), MAX_SHOWN)}`, failed: true };
}

/** No status line where the tool writes one: nothing of the output stands in for it (the output could say anything). */
const NO_STATUS: CommandOutcome = { outcome: 'no exit status', failed: false };

/**
 * The outcome of a call of the shell tool `tool` (its name as called) from its result: exit
 * status, timeout, cancellation or refusal where the tool writes one at its fixed place; `no
 * result (interrupted)` when the call never answered; otherwise "no exit status" (not failed).
 */
export function commandOutcome(tool: string, result: string | undefined): CommandOutcome {
	if (result === undefined) return { outcome: 'no result (interrupted)', failed: true };
	const name = tool.toLowerCase();
	if (name === 'execute_bash') return openHandsStatus(result) ?? NO_STATUS;
	const refused = refusedStatus(result, tool);
	if (refused) return refused;
	if (name === 'longhaul_runcommand') return longhaulStatus(firstLine(result)) ?? NO_STATUS;
	if (tool === 'bash') return miniSweAgentStatus(result) ?? NO_STATUS;
	return NO_STATUS;
}
