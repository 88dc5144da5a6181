// Text a file tool may change: valid UTF-8 without NUL bytes, decoded so that encoding it again
// gives back exactly the same bytes. A file in another encoding (Latin-1, UTF-16) or a binary file
// decoded as UTF-8 loses every byte it cannot read (each becomes U+FFFD), so writing it back would
// change bytes nobody asked to change; such files are refused instead, with the reason.

export type Decoded = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string; readonly offset: number };

/** For a lead byte: the length of its sequence and the range of the byte after it (no overlong forms, no surrogates, nothing past U+10FFFF). */
function lead(b: number): readonly [length: number, min: number, max: number] {
	if (b >= 0xc2 && b <= 0xdf) return [2, 0x80, 0xbf];
	if (b === 0xe0) return [3, 0xa0, 0xbf];
	if (b === 0xed) return [3, 0x80, 0x9f];
	if (b >= 0xe1 && b <= 0xef) return [3, 0x80, 0xbf];
	if (b === 0xf0) return [4, 0x90, 0xbf];
	if (b >= 0xf1 && b <= 0xf3) return [4, 0x80, 0xbf];
	if (b === 0xf4) return [4, 0x80, 0x8f];
	return [0, 0, 0];
}

/** The length of the UTF-8 sequence that starts at `at`, or 0 if it is not a valid one. */
function sequenceLength(bytes: Uint8Array, at: number): number {
	if (bytes[at] < 0x80) return 1;
	const [length, min, max] = lead(bytes[at]);
	if (length === 0 || at + length > bytes.length) return 0;
	if (bytes[at + 1] < min || bytes[at + 1] > max) return 0;
	for (let i = 2; i < length; i++) if (bytes[at + i] < 0x80 || bytes[at + i] > 0xbf) return 0;
	return length;
}

/** The offset of the first byte that is not part of valid UTF-8, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
	for (let at = 0; at < bytes.length;) {
		const length = sequenceLength(bytes, at);
		if (length === 0) return at;
		at += length;
	}
	return -1;
}

const hex = (b: number) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`;

/** The text of `bytes` if they are UTF-8 text (no NUL byte, every sequence valid), else why not. */
export function decodeUtf8Text(bytes: Uint8Array): Decoded {
	const nul = bytes.indexOf(0);
	if (nul >= 0) return { ok: false, offset: nul, reason: `holds a NUL byte at offset ${nul}, so it is binary (or UTF-16), not UTF-8 text` };
	const invalid = firstInvalidUtf8(bytes);
	if (invalid >= 0) {
		return { ok: false, offset: invalid, reason: `is not valid UTF-8 (byte ${hex(bytes[invalid])} at offset ${invalid}; Latin-1 or another encoding?)` };
	}
	return { ok: true, text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes) };
}

/** Why `text` cannot be written as UTF-8 text exactly as given, or undefined if it can. */
export function unwritableText(text: string): string | undefined {
	const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(text);
	if (lone) return `holds a lone surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()}) at character ${lone.index}, which UTF-8 cannot encode`;
	const nul = text.indexOf('\0');
	if (nul >= 0) return `holds a NUL character at character ${nul}; Longhaul writes text files only`;
	return undefined;
}
