// What Longhaul writes to its terminal from a command's output: the terminal must show what ran and
// its real exit line, so the output cannot move the cursor, erase lines, conceal text, switch
// screens or retitle the terminal. Colours stay. No vscode import: unit-tested in Node.
//
// - SGR sequences (ESC [ … m) keep only foreground colours and bold, dim, italic, underline and
//   their resets; a background colour, inverse, concealed or blinking text is dropped (a black
//   background under black text hides it as well as "conceal" does).
// - Every other escape sequence (cursor moves, erases, scroll regions, OSC titles and links, DCS,
//   a lone ESC) and every other control character (C0 but tab and line feed, DEL, C1) is shown as
//   a marker, ⟪ESC[2K⟫ or ⟪U+0008⟫, so that nothing acts and nothing is hidden.
// - A carriage return not followed by a line feed starts a new line instead of going back over
//   the line (a progress bar shows each step; a forged "PASS" over "FAIL" cannot hide the FAIL).
// - An unfinished string sequence (OSC, DCS, …) ends at the line feed: a marker is cut after 60
//   characters, and the output that follows must not vanish into it.
// Sequences may be split across chunks: the unfinished end of a chunk waits for the next.

const ESC = '\u001b';
/** SGR parameters that keep text visible: reset, bold, dim, italic, underline, their resets, foreground colours but black. */
const KEPT_SGR: ReadonlySet<string> = new Set([
	'0',
	'1',
	'2',
	'3',
	'4',
	'22',
	'23',
	'24',
	'39',
	'31',
	'32',
	'33',
	'34',
	'35',
	'36',
	'37',
	'90',
	'91',
	'92',
	'93',
	'94',
	'95',
	'96',
	'97',
]);
/** An unfinished sequence longer than this is shown as it is so far. */
const MAX_PENDING = 4_096;

/** A sequence or control character, shown without acting. */
function marker(sequence: string): string {
	const shown = [...sequence.slice(0, 60)]
		.map((c, i) => {
			if (i === 0 && c === ESC) return 'ESC';
			const code = c.codePointAt(0)!;
			return code < 0x20 || (code >= 0x7f && code <= 0x9f) ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}` : c;
		})
		.join('');
	return `⟪${shown}${sequence.length > 60 ? '…' : ''}⟫`;
}

function sgr(params: string): string {
	// 38;5;N and 48;2;R;G;B carry numbers that read as parameters of their own: a sequence with an
	// extended colour is dropped whole rather than misread.
	if (/(^|;)0*(38|48|58)(;|$)/.test(params)) return '';
	// An empty parameter is 0, a reset (`ESC[;m`, `ESC[31;m`): dropped, it left the colour before it on.
	const kept =
		params === ''
			? ['0']
			: params
					.split(';')
					.map(p => p || '0')
					.filter(p => KEPT_SGR.has(p.replace(/^0+(?=\d)/, '')));
	return kept.length ? `${ESC}[${kept.join(';')}m` : '';
}

/** Where the escape sequence starting at `at` ends (exclusive), or -1 when the text ends first. */
function sequenceEnd(text: string, at: number): number {
	const kind = text[at + 1];
	if (kind === undefined) return -1;
	if (kind === '[') {
		for (let i = at + 2; i < text.length; i++) {
			const code = text.charCodeAt(i);
			if (code >= 0x40 && code <= 0x7e) return i + 1;
			if (code < 0x20 || code > 0x3f) return i; // not a CSI: show what came so far
		}
		return -1;
	}
	if (kind === ']' || kind === 'P' || kind === 'X' || kind === '^' || kind === '_') {
		for (let i = at + 2; i < text.length; i++) {
			if (text[i] === '\u0007') return i + 1;
			if (text[i] === ESC) return text[i + 1] === undefined ? -1 : text[i + 1] === '\\' ? i + 2 : i;
			// An unfinished one ends at the line: the lines after it (another program's) stay shown.
			if (text[i] === '\n' || text[i] === '\r') return i;
		}
		return -1;
	}
	for (let i = at + 1; i < text.length; i++) {
		const code = text.charCodeAt(i);
		// A control character is not part of the sequence: a line feed stays a line feed.
		if (code < 0x20) return i;
		if (code > 0x2f) return i + 1;
	}
	return -1;
}

/** Neutralises a stream of terminal output, chunk by chunk. */
export class TerminalFilter {
	private pending = '';

	/** The safe text for `chunk`; an unfinished sequence at its end waits for the next chunk. */
	push(chunk: string): string {
		const text = this.pending + chunk;
		this.pending = '';
		let out = '';
		for (let i = 0; i < text.length;) {
			const c = text[i];
			const code = c.charCodeAt(0);
			if (c === ESC) {
				const end = sequenceEnd(text, i);
				if (end === -1 && text.length - i <= MAX_PENDING) {
					this.pending = text.slice(i);
					break;
				}
				const stop = end === -1 ? text.length : end;
				const sequence = text.slice(i, stop);
				const csi = /^.\[([0-9;]*)m$/s.exec(sequence);
				out += csi ? sgr(csi[1]) : marker(sequence);
				i = stop;
			} else if (c === '\r') {
				if (i + 1 === text.length) {
					this.pending = '\r';
					break;
				}
				out += '\n';
				i += text[i + 1] === '\n' ? 2 : 1;
			} else if ((code < 0x20 && c !== '\n' && c !== '\t') || (code >= 0x7f && code <= 0x9f)) {
				out += marker(c);
				i++;
			} else {
				out += c;
				i++;
			}
		}
		return out;
	}

	/** What is still waiting, shown, at the end of the output. */
	end(): string {
		const rest = this.pending;
		this.pending = '';
		return rest === '\r' ? '\n' : rest ? marker(rest) : '';
	}
}
