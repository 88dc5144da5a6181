// The bash parser behind the shell classifier: WebAssembly loaded once, shipped next to the
// bundle, and until it is loaded every command line counts as one that ran something.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BASH_WASM_FILES, bashParser, loadBashParser } from '../../../../src/common/shell/bashParser';
import { shellEffects } from '../../../../src/common/shell/shellCommand';
import { readShell } from '../../../../src/common/shell/shellSyntax';

const root = resolve(__dirname, '../../../../..');

describe('bash parser', () => {
	it('loads once and reads command lines', async () => {
		assert.equal(await loadBashParser(), true);
		const first = bashParser();
		assert.equal(await loadBashParser(), true);
		assert.equal(bashParser(), first);
		assert.deepEqual(
			readShell('cd a && cat "b c" | grep -n x')?.commands.map(c => c.words),
			[
				['cd', 'a'],
				['cat', 'b c'],
				['grep', '-n', 'x'],
			],
		);
	});

	it('before it is loaded, every line counts as run (a fresh process that does not load it)', () => {
		const module = join(root, 'out/src/common/shell/shellCommand.js');
		const script = `const { shellEffects } = require(${JSON.stringify(module)}); process.stdout.write(JSON.stringify(['cat a.py', 'ls', 'git status'].map(shellEffects)));`;
		const results = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { inspectOnly: boolean; runs: boolean }[];
		assert.deepEqual(
			results.map(r => [r.inspectOnly, r.runs]),
			[
				[false, true],
				[false, true],
				[false, true],
			],
		);
		assert.equal(shellEffects('cat a.py').inspectOnly, true, 'here, loaded, the same line is an inspection');
	});

	it('the build puts the WebAssembly files next to the bundle, the same bytes as the package', () => {
		const packageDir = dirname(require.resolve('@vscode/tree-sitter-wasm'));
		for (const name of BASH_WASM_FILES) assert.ok(readFileSync(join(root, 'dist', name)).equals(readFileSync(join(packageDir, name))), name);
		const ignore = readFileSync(join(root, '.vscodeignore'), 'utf8');
		for (const name of BASH_WASM_FILES) assert.match(ignore, new RegExp(`^!dist/${name.replace('.', '\\.')}$`, 'm'));
	});

	it('long and deeply nested lines end quickly and never throw; past the bounds they count as run', () => {
		const started = Date.now();
		const long = Array.from({ length: 2000 }, (_, i) => `cat f${i}.txt`).join(' && ');
		assert.equal(shellEffects(long).inspectOnly, true);
		assert.equal(shellEffects(long).reads.length, 2000);
		const heredoc = `cat > big.py <<'EOF'\n${'x = 1\n'.repeat(15_000)}EOF`;
		assert.deepEqual(shellEffects(heredoc).writes, ['big.py']);
		const deep = 'echo ' + '$('.repeat(300) + 'cat x' + ')'.repeat(300);
		assert.equal(shellEffects(deep).inspectOnly, false);
		const tooLong = Array.from({ length: 10_000 }, (_, i) => `cat f${i}.txt`).join(' && ');
		assert.equal(shellEffects(tooLong).inspectOnly, false);
		assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
	});
});
