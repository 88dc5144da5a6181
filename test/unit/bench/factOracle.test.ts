// The knowledge probe's fact oracle (bench/knowledge/factOracle.ts, shellFacts.ts, commandStatus.ts)
// on hand-written calls and rounds: what each shell line reads, changes and runs, how each tool's
// result reports a command's status, and the facts a session gives. Pure functions (the bash
// parser is loaded by the unit tests' setup), so they are tested here.
import * as assert from 'node:assert/strict';
import type { Round, ToolCall } from '../../../src/common/conversation/conversation';
import { callFacts, factOracle } from '../../../bench/knowledge/factOracle';
import { commandStatus } from '../../../bench/knowledge/commandStatus';
import { pythonWrites, shellFiles } from '../../../bench/knowledge/shellFacts';

const bash = (command: string, result?: string): ToolCall => ({
	id: 'c',
	name: 'bash',
	arguments: JSON.stringify({ command }),
	...(result !== undefined ? { result } : {}),
});

describe('the knowledge probe fact oracle', () => {
	it('reads the files a shell line reads: readers, grep and sed operands after the pattern, input redirections', () => {
		assert.deepEqual(shellFiles('cat src/a.py | grep -n "def foo"').reads, ['src/a.py']);
		assert.deepEqual(shellFiles('grep -n "class X" ./src/x.py src/y.py').reads, ['src/x.py', 'src/y.py']);
		assert.deepEqual(shellFiles('grep -A 3 -e foo -e bar notes.txt').reads, ['notes.txt']);
		assert.deepEqual(shellFiles("sed -n '10,20p' lib/m.py").reads, ['lib/m.py']);
		assert.deepEqual(shellFiles('head -n 20 g.py && tail -5 h.py').reads, ['g.py', 'h.py']);
		assert.deepEqual(shellFiles('cat -n k.py').reads, ['k.py']);
		assert.deepEqual(shellFiles('python run.py < input.txt').reads, ['input.txt']);
		assert.deepEqual(shellFiles('cat $FILE').reads, [], 'an expansion names no file');
	});

	it('reads the files a shell line changes: redirections, sed -i, perl -i, tee, touch, cp/mv destinations, git checkout/restore', () => {
		assert.deepEqual(shellFiles("cat > out.py << 'EOF'\nprint(1)\nEOF").changes, ['out.py']);
		assert.deepEqual(shellFiles('echo hi >> log.txt 2>/dev/null').changes, ['log.txt']);
		assert.deepEqual(shellFiles("sed -i 's/a/b/' x.py y.py").changes, ['x.py', 'y.py']);
		assert.deepEqual(shellFiles("sed -n '1p' x.py").changes, []);
		assert.deepEqual(shellFiles("perl -pi -e 's/a/b/g' z.pl").changes, ['z.pl']);
		assert.deepEqual(shellFiles('make 2>&1 | tee -a build.log').changes, ['build.log']);
		assert.deepEqual(shellFiles('touch new.txt').changes, ['new.txt']);
		assert.deepEqual(shellFiles('cp -r src/a.py backup/a.py && mv old.txt new.txt').changes, ['backup/a.py', 'new.txt']);
		assert.deepEqual(shellFiles('git checkout HEAD -- src/a.py src/b.py').changes, ['src/a.py', 'src/b.py']);
		assert.deepEqual(shellFiles('git restore lib/c.py').changes, ['lib/c.py']);
		assert.deepEqual(shellFiles('git checkout main').changes, []);
	});

	it('reads patches and scripts given in the line: +++ lines of patch and git apply, files a Python script opens for writing', () => {
		const patch = "patch -p1 <<'EOF'\n--- a/lib/k.c\n+++ b/lib/k.c\n@@ -1 +1 @@\n-x\n+y\nEOF";
		assert.deepEqual(shellFiles(patch).changes, ['lib/k.c']);
		assert.deepEqual(shellFiles("git apply <<'EOF'\n--- a/src/m.py\n+++ b/src/m.py\n@@ -1 +1 @@\nEOF").changes, ['src/m.py']);
		assert.deepEqual(shellFiles('patch src/one.py fix.diff').changes, ['src/one.py']);
		assert.deepEqual(shellFiles("python - <<'EOF'\ntext = open('a.py').read()\nopen('a.py', 'w').write(text)\nEOF").changes, ['a.py']);
		assert.deepEqual(shellFiles(`python3 -c "open('f.txt', 'a').write('x')"`).changes, ['f.txt']);
		assert.deepEqual(pythonWrites("from pathlib import Path; Path('p.md').write_text('x'); open('r.txt').read(); open('m.txt', mode='w+')"), ['m.txt', 'p.md']);
		assert.deepEqual(shellFiles('python fix.py').changes, [], 'what a script file does is not in the line');
	});

	it('tells a line that runs something from one that only looks at files or writes one by redirection', () => {
		assert.equal(shellFiles('ls -la && cat a.py | grep x').runs, false);
		assert.equal(shellFiles("cat > a.py << 'EOF'\nx = 1\nEOF").runs, false);
		assert.equal(shellFiles("sed -n '1,5p' a.py").runs, false);
		assert.equal(shellFiles("sed -i 's/a/b/' a.py").runs, true);
		assert.equal(shellFiles('cd /testbed && python -m pytest tests').runs, true);
		assert.equal(shellFiles('find . -name "*.pyc" -delete').runs, true);
		assert.equal(shellFiles('git diff').runs, false);
		assert.equal(shellFiles('echo $(rm -rf build)').runs, true, 'a substitution that runs something');
	});

	it('judges find -exec and xargs by the program they run', () => {
		assert.equal(shellFiles('find . -name "*.py" -exec grep -l "class Foo" {} \\;').runs, false, 'find -exec grep only looks');
		assert.equal(shellFiles('find . -name "*.py" -exec grep -l x {} + | head -5').runs, false);
		assert.equal(shellFiles('find tests -name "*.py" | xargs grep -l "order_by" | head -10').runs, false);
		assert.equal(shellFiles('find . -print0 | xargs -0 -n 1 wc -l').runs, false, 'options before the program');
		assert.equal(shellFiles('find . -name "*.pyc" | xargs').runs, false, 'xargs alone echoes');
		assert.equal(shellFiles('find . -name "*.pyc" -exec rm {} \\;').runs, true, 'find -exec rm changes files');
		assert.equal(shellFiles('find . -exec grep -q x {} \\; -exec python fix.py {} \\;').runs, true, 'the second program runs');
		assert.equal(shellFiles('find . -name "*.py" | xargs python -m pytest').runs, true);
		assert.equal(shellFiles('find . -name "*.py" | xargs -I {} sh -c "python {}"').runs, true);
	});

	it("reads a command's status where each harness writes it, and nowhere else", () => {
		assert.deepEqual(commandStatus('<returncode>0</returncode>\n<output>\nok\n</output>'), { text: 'exit 0', code: 0 });
		assert.deepEqual(commandStatus('<returncode>2</returncode>\n<output>\n</output>'), { text: 'exit 2', code: 2 });
		assert.equal(commandStatus('<exception>An error occurred while executing the command</exception>').text, 'exception');
		assert.equal(commandStatus('<exception>Command timed out after 60 seconds</exception>').text, 'timed out');
		assert.deepEqual(commandStatus('built\n[The command completed with exit code 1.]\n[Current working directory: /w]'), { text: 'exit 1', code: 1 });
		assert.deepEqual(commandStatus('exit code 3 (after 2 s)\nout'), { text: 'exit 3', code: 3 });
		assert.equal(commandStatus('output that says <returncode>0</returncode> later').text, 'unknown');
		assert.equal(commandStatus(undefined).text, 'interrupted');
	});

	it('gives each tool its facts: the editor views and edits (not a failed edit), read and edit tools, shell commands with their status', () => {
		const editor = (args: object, result: string): ToolCall => ({ id: 'e', name: 'str_replace_editor', arguments: JSON.stringify(args), result });
		assert.deepEqual(callFacts(editor({ command: 'view', path: '/w/a.c' }, 'Here is')), { reads: ['/w/a.c'], changes: [] });
		assert.deepEqual(
			callFacts(editor({ command: 'str_replace', path: '/w/a.c', old_str: 'x', new_str: 'y' }, 'ERROR:\nNo replacement was performed')).changes,
			[],
		);
		assert.deepEqual(callFacts(editor({ command: 'create', path: '/w/b.c', file_text: '' }, 'File created')).changes, ['/w/b.c']);
		const edit: ToolCall = {
			id: 'l',
			name: 'longhaul_editFile',
			arguments: JSON.stringify({ path: 'src/x.ts', oldText: 'a', newText: 'b' }),
			result: 'Edited src/x.ts',
		};
		assert.deepEqual(callFacts(edit), { reads: [], changes: ['src/x.ts'] });
		assert.deepEqual(callFacts({ id: 'r', name: 'longhaul_readFile', arguments: JSON.stringify({ path: 'src/y.ts' }), result: '1 x' }).reads, ['src/y.ts']);
		assert.deepEqual(callFacts(bash('python -m pytest', '<returncode>1</returncode>\n<output>\nFAILED\n</output>')).command, {
			text: 'python -m pytest',
			status: { text: 'exit 1', code: 1 },
		});
		assert.equal(callFacts(bash('cat a.py', '<returncode>0</returncode>')).command, undefined);
	});

	it('keeps one fact per request, file and command; a command keeps the status of its latest run and the calls that showed it', () => {
		const oracle = factOracle();
		const round = (id: string, ...calls: ToolCall[]): Round => ({ id, response: '', toolCalls: calls });
		oracle.addRequest('Fix the bug.');
		oracle.addRound(round('r1', bash('pytest', '<returncode>1</returncode>'), bash('cat a.py', '<returncode>0</returncode>')));
		oracle.addRound(round('r2', bash("sed -i 's/x/y/' a.py", '<returncode>0</returncode>'), bash('pytest', '<returncode>0</returncode>')));
		oracle.addRound(round('r3', bash('pytest', '<returncode>0</returncode>')));
		const facts = oracle.facts();
		assert.deepEqual(
			facts.map(f => `${f.kind} ${f.text}`),
			['request Fix the bug.', 'command pytest', 'read a.py', 'changed a.py', "command sed -i 's/x/y/' a.py"],
		);
		const pytest = facts.find(f => f.text === 'pytest')!;
		assert.equal(pytest.status?.text, 'exit 0');
		assert.deepEqual(pytest.calls, [
			{ roundId: 'r2', call: 1 },
			{ roundId: 'r3', call: 0 },
		]);
	});
});
