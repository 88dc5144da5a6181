// Only UTF-8 text is edited, so that writing it back changes no byte the edit did not touch.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeUtf8Text, firstInvalidUtf8, unwritableText } from '../../../../src/common/tools/utf8Text';

describe('utf8Text: which bytes are text an edit can write back exactly', () => {
	it('refuses Latin-1, NUL bytes and a PNG header, and says where', () => {
		const latin1 = Buffer.from('caf\xe9 na\xefve\nversion=1', 'latin1');
		const refused = decodeUtf8Text(latin1);
		assert.equal(refused.ok, false);
		assert.match((refused as { reason: string }).reason, /not valid UTF-8 \(byte 0xE9 at offset 3/);
		const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
		assert.match((decodeUtf8Text(png) as { reason: string }).reason, /NUL byte at offset 8/);
		assert.match((decodeUtf8Text(Buffer.from('a\0b')) as { reason: string }).reason, /NUL byte at offset 1/);
	});

	it('accepts UTF-8 with a byte-order mark, CRLF and astral characters, and the text encodes back to the same bytes', () => {
		const bytes = Buffer.from('\uFEFFcafé\r\nnaïve 😀\n', 'utf8');
		const decoded = decodeUtf8Text(bytes);
		assert.ok(decoded.ok);
		assert.deepEqual(Buffer.from(decoded.text, 'utf8'), bytes);
	});

	it('agrees with a strict decoder on any bytes, and what it accepts round-trips', () => {
		const strict = new TextDecoder('utf-8', { fatal: true });
		fc.assert(
			fc.property(
				fc.uint8Array({ maxLength: 40 }).map(a => a.map(b => (b === 0 ? 1 : b))),
				bytes => {
					let valid = true;
					try {
						strict.decode(bytes);
					} catch {
						valid = false;
					}
					assert.equal(firstInvalidUtf8(bytes) === -1, valid);
					const decoded = decodeUtf8Text(bytes);
					assert.equal(decoded.ok, valid);
					if (decoded.ok) assert.deepEqual(Buffer.from(decoded.text, 'utf8'), Buffer.from(bytes));
				},
			),
			{ numRuns: 5000 },
		);
		// Valid text of any code point (surrogates excluded) is accepted.
		fc.assert(
			fc.property(
				fc.string({ unit: 'grapheme' }).filter(s => !s.includes('\0')),
				text => {
					assert.ok(decodeUtf8Text(Buffer.from(text, 'utf8')).ok);
				},
			),
		);
	});

	it('says why a new text cannot be written exactly: a lone surrogate or a NUL', () => {
		assert.match(unwritableText('a\uD800b') ?? '', /lone surrogate \(U\+D800\) at character 1/);
		assert.match(unwritableText('x\0') ?? '', /NUL character at character 1/);
		assert.equal(unwritableText('😀 fine'), undefined);
	});
});
