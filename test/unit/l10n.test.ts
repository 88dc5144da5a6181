// Every sentence the user reads goes through vscode.l10n.t with a key in l10n/bundle.l10n.json:
// the source's strings (scripts/l10n-strings.mjs reads them) and the bundle must agree, both ways.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatMessage, message, plural } from '../../src/common/text/message';

const root = resolve(__dirname, '../../..');

describe('localization: every user-facing string has a bundle entry', () => {
	it('the bundle holds exactly the strings the source uses (run `node scripts/l10n-strings.mjs --write` after adding one)', async () => {
		const { usedStrings } = (await import(resolve(root, 'scripts/l10n-strings.mjs'))) as { usedStrings: () => string[] };
		const used = usedStrings();
		const bundle = JSON.parse(readFileSync(resolve(root, 'l10n/bundle.l10n.json'), 'utf8')) as Record<string, string>;
		assert.ok(used.length > 30, `found ${used.length} strings: the scan itself works`);
		assert.deepEqual(
			used.filter(s => !(s in bundle)),
			[],
			'strings without a bundle entry',
		);
		assert.deepEqual(
			Object.keys(bundle).filter(k => !used.includes(k)),
			[],
			'bundle entries no code uses',
		);
		const manifest = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { l10n?: string };
		assert.equal(manifest.l10n, './l10n');
	});

	it('messages fill their placeholders, nested ones too, and a translation replaces each template', () => {
		const m = message('Removed {0} (about {1} tokens).', plural(3, '{0} old tool result', '{0} old tool results'), 120);
		assert.equal(formatMessage(m), 'Removed 3 old tool results (about 120 tokens).');
		assert.equal(formatMessage(plural(1, '{0} older round', '{0} older rounds')), '1 older round');
		const german: Record<string, string> = {
			'Removed {0} (about {1} tokens).': '{0} entfernt (etwa {1} Tokens).',
			'{0} old tool results': '{0} alte Ergebnisse',
		};
		assert.equal(
			formatMessage(m, t => german[t] ?? t),
			'3 alte Ergebnisse entfernt (etwa 120 Tokens).',
		);
	});
});
