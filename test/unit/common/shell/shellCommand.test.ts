// The shell classifier: which command lines only inspect, which write files, which run something.
// Property tests compose command lines from parts whose effect is known, with every separator,
// substitution form, wrapper and quoting the reader handles.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { shellEffects } from '../../../../src/common/shell/shellCommand';
import { readShell, type SimpleCommand } from '../../../../src/common/shell/shellSyntax';

/** Every simple command of `line`, which the reader must understand. */
function parseShell(line: string): readonly SimpleCommand[] {
	const parsed = readShell(line);
	assert.ok(parsed?.understood, line);
	return parsed.commands;
}

/** Commands that only look (read, list, search, print). */
const INSPECT = [
	'cat a.py',
	'ls -la src',
	'grep -n "x|y" b.py',
	'head -n 5 c.txt',
	"find . -name '*.py'",
	'git status',
	'git log --oneline -3',
	'echo hello',
	'wc -l a.py',
	'sort a.txt',
	'git branch',
	'git branch -a',
	'env',
	'xargs grep foo',
	"sed -n '1,5p' a.py",
	'git diff HEAD~1',
	'pwd',
	'tail -20 log.txt',
	'rg -n TODO src',
	'find . -name x -exec grep -l y {} +',
	'timeout 5 cat a.py',
	'env FOO=1 ls',
	'echo "a; rm b"',
	"echo 'x && rm y > z'",
	'test -f a.py',
	'uniq a.txt',
	'git show HEAD:a.py',
	'date +%s',
	"awk '{print $1}' a.txt",
	'command -v python',
	'git --no-pager log -1',
	'nl -ba a.py',
	'echo x >&2',
	'cat a.py 2>/dev/null',
];

/** Commands that change something or run a program. */
const CHANGING = [
	'rm a.py',
	'find . -name "*.pyc" -delete',
	'find . -name x -exec rm {} \\;',
	'find . -type f -execdir chmod 644 {} +',
	'xargs rm',
	'xargs -I{} cp {} dest/',
	'env rm a.txt',
	'env -i PATH=/bin rm a.txt',
	'sort -o out.txt in.txt',
	'sort --output=out.txt in.txt',
	'git branch -D topic',
	'git branch topic',
	'python run.py',
	'pytest -x',
	'mv a b',
	'touch new.txt',
	'echo x > out.txt',
	'echo x &> out.txt',
	'printf y >> out.txt',
	"sed -i 's/a/b/' a.py",
	"sed -n 's/a/b/w out.txt' a.py",
	'tee out.log',
	'make',
	'npm install',
	'git commit -m msg',
	'git stash',
	'uniq in.txt out.txt',
	'date -s 2020-01-01',
	'chmod +x run.sh',
	'mkdir -p build',
	'some-unknown-tool --flag',
	'sudo rm x',
	'timeout 10 pytest',
	'nohup python server.py',
	'tree -o listing.txt',
	'rg --pre ./decompress pattern',
	'awk \'{print > "o"}\' a.txt',
	'source setup.sh',
	'. ./env.sh',
	'git diff --output=patch.txt',
];

interface Line {
	readonly text: string;
	/** Something in it runs a program or writes a file. */
	readonly changes: boolean;
}

const leaf = (list: readonly string[], changes: boolean) => fc.constantFrom(...list).map((text): Line => ({ text, changes }));
const SEPARATORS = [' ; ', ' && ', ' || ', ' | ', ' & ', '\n', ';', ' |& '];

const lines = fc.letrec<{ line: Line }>(tie => ({
	line: fc.oneof(
		{ depthSize: 'small', withCrossShrink: true },
		leaf(INSPECT, false),
		leaf(CHANGING, true),
		// a OP b
		fc.tuple(tie('line'), fc.constantFrom(...SEPARATORS), tie('line')).map(([a, op, b]) => ({ text: a.text + op + b.text, changes: a.changes || b.changes })),
		// substitutions run their command
		fc
			.tuple(
				tie('line'),
				fc.constantFrom(
					'echo $(X)',
					'echo $( X )',
					'echo "$(X)"',
					'echo `X`',
					'cat <( X )',
					'diff <( X ) a.txt',
					'v=$( X )',
					'echo "${v:-$( X )}"',
					'for f in $( X ); do echo $f; done',
				),
			)
			// `$(` before a subshell makes `$((`, which bash reads as arithmetic when it parses as such (`$(( make ))` runs nothing).
			.filter(([inner, form]) => !(form.includes('`') && /[`\\]/.test(inner.text)) && !(form.includes('$(X') && inner.text.startsWith('(')))
			.map(([inner, form]) => ({ text: form.replace('X', inner.text), changes: inner.changes })),
		// groups, conditionals and redirections to nowhere keep the effect
		fc
			.tuple(
				tie('line'),
				fc.constantFrom(
					'( X )',
					'{ X; }',
					'if X; then echo ok; fi',
					'while X; do break; done',
					'X 2>&1',
					'X > /dev/null',
					'X 2>/dev/null',
					'! X',
					'{ X # then rm -rf /\n}',
				),
			)
			.map(([inner, form]) => ({ text: form.replace('X', inner.text), changes: inner.changes })),
		// quoted text is data, whatever it says
		tie('line').map(inner => ({ text: `echo '${inner.text.replace(/'/g, '')}'`, changes: false })),
		// a heredoc with a quoted delimiter is data too (its terminator line is the delimiter alone, so the group closes on the next line)
		tie('line').map(inner => ({ text: `(cat <<'END'\n${inner.text.replace(/^END$/gm, '')}\nEND\n)`, changes: false })),
	),
})).line;

describe('shell classifier', () => {
	it('lines that delete or run through find, xargs, env or command substitution are not "inspect only", and they run', () => {
		for (const line of [
			'find . -name "*.pyc" -delete',
			'find . -exec rm {} \\;',
			'ls | xargs rm',
			'env rm a.txt',
			'echo $(rm a.txt)',
			'echo `rm a.txt`',
			'a.sh & rm b',
			'cat a & rm b',
			'git branch -D old',
			'sort -o sorted.txt data.txt',
		]) {
			const e = shellEffects(line);
			assert.equal(e.inspectOnly, false, line);
			assert.equal(e.runs, true, line);
		}
	});

	it('detects command substitution, backticks, process substitution and & as separators', () => {
		assert.deepEqual(
			parseShell('a & b; echo "$(c)" `d` <(e) 2>&1 > f').map(c => [c.words, c.substitutions]),
			[
				[['a'], []],
				[['b'], []],
				[
					['echo', '$(c)', '`d`', '<(e)'],
					['c', 'd', 'e'],
				],
			],
		);
		assert.deepEqual(parseShell('x 2>&1 > f &> g >&h')[0].redirects, [
			{ op: '>&', target: '1' },
			{ op: '>', target: 'f' },
			{ op: '&>', target: 'g' },
			{ op: '>&', target: 'h' },
		]);
		assert.deepEqual(shellEffects('x >&h').writes, ['h']);
		assert.equal(shellEffects('echo $((1 + 2))').inspectOnly, true, 'arithmetic runs nothing');
		assert.equal(shellEffects('echo $(( $(rm a) + 1 ))').runs, true);
		assert.equal(shellEffects('echo "$((rm a) )"').runs, true, 'bash reads $((…) ) that is not arithmetic as a subshell');
		assert.deepEqual(shellEffects('echo x >&2').writes, []);
	});

	it('reads, writes and normalizes as the ledger needs', () => {
		assert.deepEqual(shellEffects('cat a.py b.py').reads, ['a.py', 'b.py']);
		assert.deepEqual(shellEffects("sed -n '1,20p' src/x.py").reads, ['src/x.py']);
		assert.deepEqual(shellEffects('head -n 20 x.py').reads, ['x.py']);
		assert.deepEqual(shellEffects('cat <(ls)').reads, []);
		assert.deepEqual(shellEffects("sed -i 's/a/b/' a.py b.py").writes, ['a.py', 'b.py']);
		assert.equal(shellEffects("sed -i 's/a/b/' a.py").runs, false);
		assert.deepEqual(shellEffects("cat > out.py <<'EOF'\nrm -rf /\nEOF").writes, ['out.py']);
		assert.equal(shellEffects("cat > out.py <<'EOF'\nrm -rf /\nEOF").runs, false);
		assert.equal(shellEffects('cat > out.py <<EOF\n$(rm -rf x)\nEOF').runs, true, 'an unquoted heredoc expands its substitutions');
		assert.equal(shellEffects('cd /testbed && cd src && python -m pytest -x').normalized, 'python -m pytest -x');
		// A heredoc body is data: it is left out, with a mark that says so and the terminator.
		assert.equal(
			shellEffects("cd /testbed && cat > t.py << 'EOF'\nimport os\nprint(1)\nEOF\npython t.py").normalized,
			"cat > t.py << 'EOF' … EOF ; python t.py",
		);
		assert.equal(shellEffects('cat > empty.txt <<EOF\nEOF').normalized, 'cat > empty.txt <<EOF EOF', 'no body, no mark');
		assert.equal(shellEffects('cat > open.txt <<EOF\nline one\nline two').normalized, 'cat > open.txt <<EOF …', 'a body never closed');
		assert.equal(shellEffects('grep -rn "a > b" src/').inspectOnly, true, 'a quoted > is no redirection');
	});

	it('tells a file the program wrote itself from one an output redirection wrote', () => {
		assert.equal(shellEffects("sed -i 's/a/b/' a.py").programWrites, true);
		assert.equal(shellEffects('sort -o sorted.txt a.txt').programWrites, true);
		assert.equal(shellEffects('echo x | tee notes.txt').programWrites, true);
		assert.equal(shellEffects("cat > out.py <<'EOF'\nx = 1\nEOF").programWrites, false);
		assert.equal(shellEffects('echo x >> notes.txt').programWrites, false);
		assert.equal(shellEffects("sed -n '1,5p' a.py > b.py").programWrites, false, 'the shell wrote b.py');
		assert.equal(shellEffects("sed 's/a/b/' a.py > a.py.new && sed -i 's/c/d/' a.py").programWrites, true);
		assert.equal(shellEffects('ls -la').programWrites, false);
	});

	it('property: a line is "inspect only" exactly when none of its parts runs a program or writes a file', () => {
		fc.assert(
			fc.property(lines, line => {
				const e = shellEffects(line.text);
				assert.equal(e.inspectOnly, !line.changes, `${JSON.stringify(line.text)}: ${JSON.stringify(e)}`);
			}),
			{ numRuns: 2000 },
		);
	});

	it('property: an unknown program counts as run, behind any wrapper and in any position', () => {
		const known = new Set(
			[...INSPECT, ...CHANGING]
				.map(t => t.split(' ')[0])
				.concat(['for', 'if', 'do', 'done', 'then', 'fi', 'while', 'until', 'case', 'esac', 'time', 'select', 'in']),
		);
		fc.assert(
			fc.property(
				fc
					.stringMatching(/^[a-z][a-z0-9_-]{2,10}$/)
					.filter(
						n =>
							!known.has(n) &&
							![
								'cat',
								'tac',
								'head',
								'tail',
								'less',
								'more',
								'bat',
								'awk',
								'gawk',
								'mawk',
								'git',
								'sed',
								'tee',
								'tree',
								'file',
								'uniq',
								'date',
								'rg',
								'cd',
								'pushd',
								'popd',
								'export',
								'set',
								'unset',
								'alias',
								'shopt',
								'ulimit',
								'umask',
								'declare',
								'typeset',
								'local',
								'readonly',
								'hash',
								'nice',
								'nohup',
								'exec',
								'builtin',
								'unbuffer',
								'command',
								'stdbuf',
								'timeout',
								'sudo',
								'doas',
								'env',
								'xargs',
								'ls',
								'find',
								'grep',
								'egrep',
								'fgrep',
								'ag',
								'pwd',
								'wc',
								'stat',
								'which',
								'whereis',
								'type',
								'du',
								'df',
								'diff',
								'cmp',
								'comm',
								'echo',
								'printf',
								'sort',
								'cut',
								'paste',
								'column',
								'fold',
								'basename',
								'dirname',
								'realpath',
								'readlink',
								'printenv',
								'id',
								'whoami',
								'uname',
								'jq',
								'seq',
								'md5sum',
								'sha1sum',
								'sha256sum',
								'test',
								'true',
								'false',
								'nl',
							].includes(n),
					),
				fc.constantFrom('N', 'N arg', 'ls; N', 'ls & N', 'echo $(N)', 'env N', 'xargs N', 'timeout 3 N', 'find . -exec N {} +', 'cat a | N'),
				(name, form) => {
					const e = shellEffects(form.replace('N', name));
					assert.equal(e.runs, true, form.replace('N', name));
				},
			),
		);
	});

	it('property: never throws, on any text', () => {
		fc.assert(
			fc.property(fc.string({ unit: fc.constantFrom(...'ab $()`\'"\\;&|<>{}#\n-=*'.split('')), maxLength: 60 }), text => {
				const e = shellEffects(text);
				assert.ok(Array.isArray(e.reads) && Array.isArray(e.writes));
				assert.equal(typeof e.normalized, 'string');
			}),
			{ numRuns: 3000 },
		);
	});
});
