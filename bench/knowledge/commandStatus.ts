// How a recorded shell call ended, as its tool result reports it, for the fact oracle. The corpus
// harnesses write the status at a fixed place: mini-swe-agent's `bash` starts its result with
// `<returncode>N</returncode>` (or an `<exception>` line when the run itself failed, a timeout
// saying so); OpenHands' `execute_bash` may end with `[… exit code N]`; Longhaul's own
// `longhaul_runCommand` starts with `exit code N` or `timed out after …`. Anything else has no
// status the oracle can read ("unknown"), and an unanswered call is "interrupted".
export interface CommandStatus {
	/** `exit N`, `timed out`, `exception`, `interrupted` or `unknown`. */
	readonly text: string;
	/** The exit code when there is one. */
	readonly code?: number;
}

const exit = (code: number): CommandStatus => ({ text: `exit ${code}`, code });

function firstLine(result: string): string {
	const end = result.indexOf('\n');
	return end === -1 ? result : result.slice(0, end);
}

/** The status line of a result, wherever the tool writes one; undefined when none. */
function statusOf(result: string): CommandStatus | undefined {
	const head = firstLine(result).trim();
	const returncode = /^<returncode>(-?\d+)<\/returncode>$/.exec(head);
	if (returncode) return exit(Number(returncode[1]));
	if (head.startsWith('<exception>')) return { text: /timed? ?out/i.test(result.slice(0, 2000)) ? 'timed out' : 'exception' };
	const longhaul = /^exit code (-?\d+)\b/.exec(head);
	if (longhaul) return exit(Number(longhaul[1]));
	if (/^timed out after /.test(head)) return { text: 'timed out' };
	const tail = /\[(?:The command completed|Command finished) with exit code (-?\d+)\.?\]/.exec(result.slice(-400));
	if (tail) return exit(Number(tail[1]));
	if (/\[The command timed out after/.test(result.slice(-400))) return { text: 'timed out' };
	return undefined;
}

export function commandStatus(result: string | undefined): CommandStatus {
	if (result === undefined) return { text: 'interrupted' };
	return statusOf(result) ?? { text: 'unknown' };
}
