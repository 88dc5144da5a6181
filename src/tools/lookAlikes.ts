// Characters outside printable ASCII in a command, named in its confirmation: `♯` (U+266F) for `#`,
// `ꞌ` (U+A78C) or `ʼ` (U+02BC) for `'`, a Cyrillic `а` for `a`, or a musical symbol that renders as
// nothing (U+1D159) must not pass as shell syntax or as nothing at all. The idea comes from VS
// Code's ambiguous-character highlighting (characters easily confused with ASCII are outlined);
// here every such character is listed with its code point, and the ASCII character it is most
// easily taken for where known: NFKC folds the fullwidth and compatibility forms, and a short
// table adds the look-alikes of shell syntax and Latin letters that NFKC leaves alone. No vscode
// import: unit-tested in Node.
import { inlineCode, visible } from './visibleText';

/** Look-alikes NFKC does not fold to ASCII, by the ASCII character they pass for. */
const TABLE: Readonly<Record<string, string>> = {
	'#': '♯⋕',
	"'": 'ꞌʼʹ‘’‛′´ˈ',
	'"': '“”„‟″˝״',
	'`': 'ˋ‵',
	'-': '‐‑‒–—−⁃˗',
	'/': '∕⁄⧸╱',
	'\\': '∖⧵⧹',
	'|': 'ǀ∣│⏐',
	':': '꞉∶ː׃',
	'<': '‹˂ᐸ',
	'>': '›˃ᐳ',
	'*': '∗⁎✱',
	'=': '᐀⹀',
	'!': 'ǃ',
	'~': '˜∼',
	'(': '❨',
	')': '❩',
	'{': '❴',
	'}': '❵',
	'.': '‧·ꓸ۔',
	',': '‚،ꓹ',
	a: 'аα',
	c: 'с',
	d: 'ԁ',
	e: 'е',
	g: 'ɡ',
	h: 'һ',
	i: 'іι',
	j: 'ј',
	o: 'оοօ',
	p: 'рρ',
	s: 'ѕ',
	v: 'ν',
	x: 'х',
	y: 'уү',
	A: 'АΑ',
	B: 'ВΒ',
	C: 'С',
	E: 'ЕΕ',
	H: 'НΗ',
	I: 'ІΙ',
	K: 'КΚ',
	M: 'МΜ',
	N: 'Ν',
	O: 'ОΟ',
	P: 'РΡ',
	T: 'ТΤ',
	X: 'ХΧ',
	Y: 'ҮΥ',
	Z: 'Ζ',
};

const LOOKS_LIKE: ReadonlyMap<string, string> = new Map<string, string>(
	Object.entries(TABLE).flatMap(([ascii, chars]) => [...chars].map(c => [c, ascii] as [string, string])),
);

/** The printable ASCII text `char` is easily taken for, or undefined. */
export function asciiLookAlike(char: string): string | undefined {
	const folded = char.normalize('NFKC');
	if (folded !== char && /^[\x21-\x7e]+$/.test(folded)) return folded;
	return LOOKS_LIKE.get(char);
}

export interface NonAscii {
	readonly char: string;
	readonly codePoint: string;
	readonly looksLike?: string;
}

/**
 * The distinct characters outside printable ASCII in `text`, in order of first appearance, that
 * are shown as themselves (those shown as ⟪U+XXXX⟫ markers are named already).
 */
export function nonAsciiChars(text: string): NonAscii[] {
	const seen = new Set<string>();
	const out: NonAscii[] = [];
	for (const char of text) {
		if (seen.has(char) || /^[\x20-\x7e\t\n]$/.test(char)) continue;
		seen.add(char);
		if (visible(char, false).text !== char) continue;
		const codePoint = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
		const looksLike = asciiLookAlike(char);
		out.push(looksLike === undefined ? { char, codePoint } : { char, codePoint, looksLike });
	}
	return out;
}

/** A combining mark shown on a dotted circle, so that it does not sit on the code span's padding. */
function shownChar(char: string): string {
	return /^\p{M}/u.test(char) ? `◌${char}` : char;
}

/** The note naming every character outside printable ASCII in `what`, or undefined when there is none. */
export function nonAsciiNote(text: string, what: string): string | undefined {
	const chars = nonAsciiChars(text);
	if (chars.length === 0) return undefined;
	const items = chars.map(
		c => `${inlineCode(shownChar(c.char))} ${c.codePoint}${c.looksLike === undefined ? '' : ` (looks like ${inlineCode(c.looksLike)}, is not)`}`,
	);
	const warn = chars.some(c => c.looksLike !== undefined) ? '⚠️ ' : '';
	return `${warn}${what} holds ${chars.length} character(s) outside printable ASCII; the shell reads none of them as ASCII syntax, whatever they look like: ${items.join(', ')}.`;
}
