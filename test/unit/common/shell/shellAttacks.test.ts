// Command lines that write files or run code through options, variables, aliases and paths
// must never be called inspect-only. The first thirteen each created a file when run, while an
// earlier classifier called them inspect-only; the rest are the same tricks in other forms.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { shellEffects } from '../../../../src/common/shell/shellCommand';
import { readSedScript } from '../../../../src/common/shell/sedScript';
import { flags, parseOptions } from '../../../../src/common/shell/shellOptions';
import { readShell } from '../../../../src/common/shell/shellSyntax';
import { runsThroughVariable } from '../../../../src/common/shell/shellVariables';

/** The thirteen lines of the third security pass, each of which wrote a file. */
export const WRITING_LINES = [
	'git -c core.fsmonitor="touch pw" status',
	'git grep -Otouch\\ pw foo',
	"sed 's/.*/touch pw/ge' f",
	"sed -n 's/foo/x/gw pw' f",
	'sed -f s.sed f',
	'awk -v a=1 \'BEGIN{system("touch pw")}\'',
	'awk -f p.awk',
	'sort -mo pw in',
	'sort -uo pw in',
	'echo x > /dev/../tmp/x/pw',
	'cat f >> /dev/../tmp/x/pw2',
	"alias ls='touch pw'; ls",
	'LESSOPEN="|touch pw %s" less f',
];

function assertNotInspectOnly(line: string): void {
	const e = shellEffects(line);
	assert.equal(e.inspectOnly, false, `${JSON.stringify(line)} was called inspect-only: ${JSON.stringify(e)}`);
	assert.ok(e.runs || e.writes.length > 0, `${JSON.stringify(line)} neither runs nor writes: ${JSON.stringify(e)}`);
}

describe('shell classifier: writing and code-running options (security, third pass)', () => {
	it('the thirteen lines that wrote a file are writing or running', () => {
		for (const line of WRITING_LINES) assertNotInspectOnly(line);
		assert.deepEqual(shellEffects("sed -n 's/foo/x/gw pw' f").writes, ['pw']);
		assert.deepEqual(shellEffects('sort -mo pw in').writes, ['pw']);
		assert.deepEqual(shellEffects('echo x > /dev/../tmp/x/pw').writes, ['/dev/../tmp/x/pw']);
		assert.equal(shellEffects("alias ls='touch pw' && ls").runs, true);
	});

	it('git: any -c or --config-env, --exec-path=, -p, grep -O in a cluster or long, --output/--ext-diff/--textconv and their abbreviations', () => {
		for (const line of [
			'git -c alias.st=!touch\\ pw st',
			'git -c core.pager="touch pw" log',
			'git -C . -c x=y status',
			'git --config-env=core.fsmonitor=EVIL status',
			'git --exec-path=/tmp/evil status',
			'git -p log',
			'git grep -nOtouch foo',
			'git grep --open-files-in-pager=touch foo',
			'git grep --open=touch foo',
			'git diff --output=pw',
			'git diff --out=pw',
			'git log -p --ext-diff',
			'git show --textconv HEAD:a',
			'git cat-file --filters HEAD:a',
			'git $SUB',
			'git log $OPTS',
			'git --unknown-global status',
		]) {
			assertNotInspectOnly(line);
		}
		for (const line of ['git status', 'git -P log -1', 'git --no-pager diff --stat', 'git grep -n foo', 'git diff --text a b', 'git log --oneline -5']) {
			assert.equal(shellEffects(line).inspectOnly, true, line);
		}
	});

	it('sed: the e command and flag, w/W commands and the w flag in any script form; -f, clustered -nf and scripts from expansions', () => {
		for (const line of [
			"sed 's/x/y/e' f",
			"sed 's/x/y/3ge' f",
			"sed -n 's|a|b|w out' f",
			"sed '1e touch pw' f",
			"sed -e 'p' -e 'w out' f",
			"sed --expression='W out' f",
			"sed --expr='1e id' f",
			'sed -nf s.sed f',
			"sed -ne 's/a/b/e' f",
			'sed --file=s.sed f',
			'sed "$S" f',
			"sed '/x/{s/a/b/;e id\n}' f",
			"sed 's/[/]/x/e' f",
			"sed 'y/abc/xyz/;w out' f",
		]) {
			assertNotInspectOnly(line);
		}
		for (const line of [
			"sed -n '1,20p' a.py",
			"sed 's/a/b/g' a.py",
			"sed -n '/start/,/end/p' a.py",
			"sed -n '$p' a.py",
			"sed 's|/|_|g;s/\\//x/' f",
			"sed -e '5q' -e 's/x/y/' f",
			"sed 'w /dev/stdout' f",
		]) {
			assert.equal(shellEffects(line).inspectOnly, true, line);
		}
	});

	it('awk: system(), pipes, output redirections, getline, gawk directives, every option but -F/-v, a program from an expansion', () => {
		for (const line of [
			'awk \'BEGIN{system("id")}\'',
			'awk -F: -v x=1 \'{print | "sh"}\' f',
			'awk \'{print > "out"}\' f',
			'awk \'BEGIN{"id" | getline x}\'',
			'gawk \'@load "x"; {print}\' f',
			"awk -e 'BEGIN{}' f",
			"gawk -i inplace '{print}' f",
			"gawk -o pw '{print}' f",
			'awk --exec p.awk f',
			'awk "$PROG" f',
		]) {
			assertNotInspectOnly(line);
		}
		for (const line of ["awk '{print $1}' a.txt", "awk -F: -v OFS=, '{print $1, $2}' /etc/passwd", "awk -vFS=, 'NR==1' f"]) {
			assert.equal(shellEffects(line).inspectOnly, true, line);
		}
	});

	it('sort and uniq: -o in any cluster or position, abbreviated --output, --compress-program, an output operand', () => {
		for (const line of [
			'sort -o pw in',
			'sort in -o pw',
			'sort -nro pw in',
			'sort -opw in',
			'sort --output=pw in',
			'sort --out=pw in',
			'sort --compress-program=sh in',
			'sort $OPTS in',
			'uniq in out',
			'uniq -c in out',
		]) {
			assertNotInspectOnly(line);
		}
		assert.deepEqual(shellEffects('sort -nro pw in').writes, ['pw']);
		for (const line of ['sort -u in', 'sort -t, -k2 in', 'sort --reverse in', 'uniq -c in']) assert.equal(shellEffects(line).inspectOnly, true, line);
	});

	it('redirections write wherever the path leads; only /dev/null and the standard streams are no file', () => {
		for (const line of ['echo x > /dev/./null/../../tmp/pw', 'echo x >> /dev//../etc/pw', 'echo x > /dev/sda', 'echo x > "$F"', 'echo x >| /dev/../x']) {
			assertNotInspectOnly(line);
		}
		for (const line of ['echo x > /dev/null', 'cat a 2>/dev/null', 'echo x >/dev/stderr', 'echo x > /dev/fd/2', 'echo x >&2']) {
			assert.equal(shellEffects(line).inspectOnly, true, line);
		}
	});

	it('variables that decide what runs: before a command, alone, exported, declared, through env or sudo, printf -v, a for loop', () => {
		for (const line of [
			'PATH=/tmp/evil:$PATH ls',
			'LESSOPEN="|touch pw %s"; less f',
			'export LESSOPEN="|touch pw %s"; less f',
			'declare -x PAGER=sh; git log',
			'GIT_EXTERNAL_DIFF=./x git diff',
			'GIT_CONFIG_PARAMETERS="\'core.pager=sh\'" git log',
			'env LD_PRELOAD=/tmp/x.so cat f',
			'env -i BASH_ENV=/tmp/x cat f',
			'sudo LESSOPEN="|sh %s" less f',
			'HOME=/tmp/evil git status',
			'printf -v PATH %s /tmp/evil; ls',
			'for PATH in /tmp/evil; do ls; done',
			'declare -n r=PATH; r=/tmp; ls',
			'RIPGREP_CONFIG_PATH=/tmp/rc rg x',
			'PYTHONSTARTUP=x cat f',
			'hash -p /tmp/evil ls; ls',
		]) {
			assertNotInspectOnly(line);
		}
		for (const line of ['LC_ALL=C grep foo f', 'f=src/a.py; cat $f', 'export TERM=dumb; ls', 'env FOO=1 ls', 'for f in a b; do cat $f; done']) {
			assert.equal(shellEffects(line).inspectOnly, true, line);
		}
		assert.ok(
			[
				'LESSOPEN',
				'LESSCLOSE',
				'LESS',
				'GIT_SSH_COMMAND',
				'LD_PRELOAD',
				'DYLD_INSERT_LIBRARIES',
				'NODE_OPTIONS',
				'npm_config_script_shell',
				'BASH_FUNC_ls%%',
			].every(runsThroughVariable),
		);
		assert.ok(!['LC_ALL', 'TERM', 'f', 'COLUMNS'].some(runsThroughVariable));
	});

	it('pagers and other lookers: +commands, options that run or write, words whose value is unknown', () => {
		for (const line of [
			"less '+!touch pw' f",
			'less -k keys f',
			'bat --pager=sh f',
			'more +/x f',
			'rg --pre ./x foo',
			'ag --pager=sh foo',
			'tree -R -H . -o x',
			'tree -opw',
			'file -C -m magic',
			'date -s 2020-01-01',
			'find . -name x $ACTION',
			'find . -name *.py',
			'xargs sort',
			'$CMD a.py',
			'"$(echo cat)" a.py',
			'tee "$F"',
		]) {
			assertNotInspectOnly(line);
		}
		for (const line of ['less f', 'tree -L 2', 'rg -n foo src', 'find . -name "*.py" -type f', 'xargs grep -l foo', 'cat $F', 'grep -e "$P" f', 'echo $HOME']) {
			assert.equal(shellEffects(line).inspectOnly, true, line);
		}
	});

	it('function bodies, aliases, negations and substitutions hidden in syntax are read', () => {
		for (const line of [
			'ls() { touch pw; }; ls',
			'f() ( rm x ); f',
			'! { rm x; }',
			'! for f in a; do rm $f; done',
			'echo `echo \\`rm x\\``',
			"[[ 1 -eq 'a[$(touch pw)]' ]]",
			'echo $(( a[$(touch pw)] ))',
			'cat <<EOF\n$(touch pw)\nEOF',
			'cat <<< "$(touch pw)"',
			'echo ${x:-$(touch pw)}',
			'case $(touch pw) in *) ;; esac',
			'v=$(touch pw) 2>/dev/null',
		]) {
			assertNotInspectOnly(line);
		}
		for (const line of ["cat <<'EOF'\n$(touch pw)\nEOF", '! grep -q x f', '[[ -f a ]] && cat a', 'echo $((1 + 2))', 'v=$(cat a) 2>/dev/null']) {
			assert.equal(shellEffects(line).inspectOnly, true, line);
		}
	});

	it('a line the parser cannot read runs something', () => {
		for (const line of ['echo "unterminated', 'cat a )', 'if cat a; then', 'cat a; ;; ls', 'echo $(( 1 +', '((']) {
			assert.equal(readShell(line)?.understood, false, line);
			assertNotInspectOnly(line);
		}
	});

	it('property: a known writing or running part makes any line not inspect-only, wherever it stands', () => {
		const part = fc.constantFrom(...WRITING_LINES.filter(l => !l.includes(';')));
		const inspect = fc.constantFrom('cat a.py', 'ls -la', 'git status', 'grep -n x f', 'echo ok', "sed -n '1p' f", 'sort f');
		const form = fc.constantFrom(
			'A ; B',
			'B && A',
			'A | B',
			'B || A',
			'( A )',
			'{ A; }',
			'echo $(A)',
			'echo "`A`"',
			'if B; then A; fi',
			'B & A',
			'cat <(A)',
			'for x in 1; do A; done',
			'timeout 5 A',
			'env A',
		);
		fc.assert(
			fc.property(part, inspect, form, (a, b, f) => {
				const line = f.replace('A', a).replace('B', b);
				if (f === 'env A' && /^[A-Z]+=/.test(a)) return; // env takes the assignment as its own
				assertNotInspectOnly(line);
			}),
			{ numRuns: 500 },
		);
	});
});

describe('sed script reader', () => {
	it('finds e and w in every place they can stand, and nothing in plain scripts', () => {
		assert.deepEqual(readSedScript('s/a/b/ge'), { ok: true, runs: true, writes: [] });
		assert.deepEqual(readSedScript('s/a/b/w out.txt'), { ok: true, runs: false, writes: ['out.txt'] });
		assert.deepEqual(readSedScript('1,/x/{ W log\n}'), { ok: true, runs: false, writes: ['log'] });
		assert.deepEqual(readSedScript('$!N;s/\\n/ /;P;D'), { ok: true, runs: false, writes: [] });
		assert.deepEqual(readSedScript('/a/I,+3d;0~4p;1a hello; w not a file'), { ok: true, runs: false, writes: [] });
		assert.deepEqual(readSedScript(':a;N;$!ba;s/\\n/,/g'), { ok: true, runs: false, writes: [] });
		assert.deepEqual(readSedScript('s/[[:alpha:]/]/X/;y/ab/cd/'), { ok: true, runs: false, writes: [] });
		assert.equal(readSedScript('k').ok, false);
		assert.equal(readSedScript('s/a/b').runs, true, 'an unterminated s is not understood');
		assert.equal(readSedScript('s/a/b/gx').runs, true, 'an unknown flag is not understood');
	});
});

describe('option reader', () => {
	const spec = {
		short: { ...flags('mu'), o: 'value' as const },
		long: { output: 'value' as const, unique: 'flag' as const, 'output-delimiter': 'value' as const },
	};
	const args = (...words: string[]) => words.map(text => ({ text, literal: true }));

	it('reads clusters, attached and separate values, unambiguous abbreviations, permuted options and --', () => {
		assert.deepEqual(parseOptions(args('-mo', 'pw', 'in'), spec).options, [{ name: '-m' }, { name: '-o', value: { text: 'pw', literal: true } }]);
		assert.deepEqual(parseOptions(args('-upw'), spec).unknown, 'unknown option -p');
		assert.deepEqual(parseOptions(args('-uopw'), spec).options[1], { name: '-o', value: { text: 'pw', literal: true } });
		assert.deepEqual(parseOptions(args('in', '--uniq'), spec).options, [{ name: '--unique' }]);
		assert.equal(parseOptions(args('--out=x'), spec).unknown, 'unknown or ambiguous option --out');
		assert.deepEqual(parseOptions(args('--output=x'), spec).options, [{ name: '--output', value: { text: 'x', literal: true } }]);
		assert.deepEqual(
			parseOptions(args('--', '-o', 'x'), spec).operands.map(a => a.text),
			['-o', 'x'],
		);
		assert.match(parseOptions([{ text: '$X', literal: false }], spec).unknown ?? '', /not known/);
	});
});

describe('shell classifier: lines that look like inspections but run code or change files', () => {
	it('`command` looks up only with -v or -V; `command rm -v victim` removes', () => {
		for (const line of ['command rm -v victim', 'command -p rm -V x', 'command cp -v a b', 'command -- rm -v x']) assertNotInspectOnly(line);
		for (const line of ['command -v python', 'command -V ls', 'command -pv git', 'command -v -p rm']) assert.equal(shellEffects(line).inspectOnly, true, line);
	});

	it('git -C, --git-dir and --work-tree run the configuration of a repository the command may have written, unless sandboxed', () => {
		for (const line of [
			'git -C evil status',
			'git --git-dir=evil status',
			'git --git-dir evil log',
			'git --work-tree=. --git-dir=x diff',
			'git -C repo log -1',
		]) {
			assertNotInspectOnly(line);
			assert.equal(shellEffects(line, { sandboxed: true }).inspectOnly, true, `${line} sandboxed`);
		}
		assert.equal(shellEffects('git status').inspectOnly, true);
	});

	it('under bash, test -v with an array subscript and ${x@P} run code', () => {
		for (const line of [
			"test -v 'a[$(touch pw)]'",
			"[ -v 'a[$(touch pw)]' ]",
			'test -v "a[`touch pw`]"',
			'echo ${x@P}',
			'echo "${x@P}"',
			'ls ${!x}',
			'cat "${!ref}"',
		]) {
			assertNotInspectOnly(line);
		}
		for (const line of ['test -v HOME', 'test -f a.py', 'echo ${x}', 'echo "${x:-a}"']) assert.equal(shellEffects(line).inspectOnly, true, line);
	});
});
