// Issue 17: longhaul-plan reads a conversation file saved with a UTF-8 byte-order mark.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT_OK } from '../../../src/cli/commandLine';
import { runPlanCommand } from '../../../src/cli/planCommand';

const fixture = join(resolve(__dirname, '../../../..'), 'test/fixtures/conversations/two-turns.json');

describe('longhaul-plan: input that starts with a UTF-8 byte-order mark', () => {
	it('plans a file that starts with a byte-order mark exactly as the same file without it', () => {
		const plain = runPlanCommand(['--input', fixture], p => readFileSync(p, 'utf8'));
		const withBom = runPlanCommand(['--input', fixture], p => `\uFEFF${readFileSync(p, 'utf8')}`);
		assert.equal(withBom.exitCode, EXIT_OK, withBom.stderr);
		assert.equal(withBom.stdout, plain.stdout);
	});
});
