// The fact oracle's own reading of shell lines (bench/knowledge/shellWords.ts), apart from the
// product's parser: here-documents, && chains whose last part is only redirections, subshells and
// substitutions, and what the oracle then says the line reads, changes and runs.
import * as assert from 'node:assert/strict';
import { readShell } from '../../../bench/knowledge/shellWords';
import { shellFiles } from '../../../bench/knowledge/shellFacts';

const words = (line: string) => readShell(line).map(c => c.words.join(' '));

describe("the fact oracle's shell reading", () => {
	it('reads a here-document body as data, not as commands, and ends it at its delimiter', () => {
		const line = "cd /testbed && cat > f.py << 'EOF'\nimport os\nrm -rf /\nEOF\npython f.py";
		assert.deepEqual(words(line), ['cd /testbed', 'cat', 'python f.py']);
		const cat = readShell(line)[1];
		assert.deepEqual(cat.redirects, [{ op: '>', target: 'f.py' }]);
		assert.deepEqual(cat.heredocs, ['import os\nrm -rf /']);
		assert.deepEqual(words('cat <<-END > g.txt\n\tbody\n\tEND\necho done'), ['cat', 'echo done'], '<<- strips leading tabs from the delimiter line');
	});

	it('writes a file by a here-document in a && chain without counting a command that ran', () => {
		const files = shellFiles("cd /testbed && cat > src/a.py << 'EOF'\nx = 1\nEOF");
		assert.deepEqual(files.changes, ['src/a.py']);
		assert.equal(files.runs, false, 'cd and cat with redirections only look and write');
		assert.equal(shellFiles('cd /testbed && > out.txt').runs, false, 'a redirection alone runs nothing');
		assert.deepEqual(shellFiles('cd /testbed && > out.txt').changes, ['out.txt']);
		assert.equal(shellFiles('cd /testbed && cat > f << EOF\nx\nEOF\npython f').runs, true);
	});

	it('reads commands inside subshells, groups, substitutions and control words', () => {
		assert.deepEqual(words('(cd src && make) > build.log 2>&1'), ['cd src', 'make', ''], "the subshell's redirection stands alone");
		assert.deepEqual(
			readShell('(cd src && make) > build.log 2>&1').flatMap(c => c.redirects),
			[{ op: '>', target: 'build.log' }],
		);
		assert.deepEqual(shellFiles('(cd src && make) > build.log 2>&1'), { reads: [], changes: ['build.log'], runs: true });
		assert.deepEqual(words('{ ls; pwd; } | sort'), ['ls', 'pwd', 'sort']);
		assert.deepEqual(
			readShell('echo $(rm -rf build)')[0].inner.map(c => c.words.join(' ')),
			['rm -rf build'],
		);
		assert.deepEqual(words('if [ -f a ]; then cat a; else touch a; fi'), ['[ -f a ]', 'cat a', 'touch a']);
		assert.deepEqual(words('for f in *.py; do wc -l $f; done'), ['wc -l $f']);
		assert.deepEqual(words('FOO=1 pytest -q # run it'), ['pytest -q']);
	});

	it('keeps quoting, escapes and what is not literal', () => {
		const [c] = readShell(`grep -n "def foo" 'my file.py' a\\ b.txt $HOME/x *.py`);
		assert.deepEqual(c.words, ['grep', '-n', 'def foo', 'my file.py', 'a b.txt', '$HOME/x', '*.py']);
		assert.deepEqual(c.literal, [true, true, true, true, true, false, false]);
		assert.deepEqual(readShell('echo hi 2>&1 >&2 &> all.log')[0].redirects, [{ op: '&>', target: 'all.log' }], 'descriptor copies name no file');
	});
});
