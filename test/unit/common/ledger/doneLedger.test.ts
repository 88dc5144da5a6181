// The done-ledger: extraction per tool family, incremental build, rendering under a cap, storage.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import type { Conversation, Round, ToolCall, Turn } from '../../../../src/common/conversation/conversation';
import { conversationFromSessionJson } from '../../../../src/common/persistence/corpusFormat';
import {
	addUserRequest,
	emptyLedger,
	extendLedger,
	LEDGER_LIST_MAX,
	LEDGER_TEXT_MAX,
	ledgerAtRequestStart,
	type DoneLedger,
} from '../../../../src/common/ledger/doneLedger';
import { commandLine, editDetail, LEDGER_HEADING, renderDoneLedger, TARGET_SHARE } from '../../../../src/common/ledger/doneLedgerRender';
import { groupEntriesByDirectory } from '../../../../src/common/ledger/ledgerPaths';
import { readLedger } from '../../../../bench/replay/ledgerReader';
import { namedCommands } from './namedCommands';
import { decodeTurnRecord, encodeTurnRecord, METADATA_KEY, rebuildConversation } from '../../../../src/common/persistence/metadata';
import { shellEffects } from '../../../../src/common/shell/shellCommand';
import { TiktokenTokenizer } from '../../../../src/common/tokens/tokenizer';

let callCounter = 0;
function call(name: string, args: object | string, result?: string): ToolCall {
	const id = `c${++callCounter}`;
	const text = typeof args === 'string' ? args : JSON.stringify(args);
	return result === undefined ? { id, name, arguments: text } : { id, name, arguments: text, result };
}
/**
 * The ledger of a whole conversation from scratch, as the agent builds it: the ledger at the start of
 * a request with nothing stored, then each active round.
 */
function buildLedger(conversation: Conversation, request?: string): DoneLedger {
	return conversation.activeRounds.reduce(extendLedger, ledgerAtRequestStart(conversation.turns, [], request));
}
function round(id: string, ...toolCalls: ToolCall[]): Round {
	return { id, response: `response ${id}`, toolCalls };
}
/** The ledger of one round of calls. */
function ledgerOf(...calls: ToolCall[]): DoneLedger {
	return extendLedger(emptyLedger(), round('r', ...calls));
}

const tokenizer = new TiktokenTokenizer();
const countTokens = (text: string) => tokenizer.countTokens(text);

describe('done-ledger', () => {
	describe("Longhaul's own tools", () => {
		it('records reads, creations, edits and overwrites by path, with counts', () => {
			const l = ledgerOf(
				call('longhaul_readFile', { path: 'src/a.ts' }, 'src/a.ts lines 1-10 of 10\n1 x'),
				call('longhaul_readFile', { path: 'src/a.ts', startLine: 5 }, 'src/a.ts lines 5-10 of 10\n5 x'),
				call('longhaul_editFile', { path: 'src/new.ts', newText: 'x' }, 'Created src/new.ts (1 lines).'),
				call('longhaul_editFile', { path: 'src/a.ts', oldText: 'a', newText: 'b' }, 'Edited src/a.ts at line 3.'),
				call('longhaul_editFile', { path: 'src/a.ts', oldText: 'b', newText: 'c' }, 'Edited src/a.ts at line 3.'),
				call('longhaul_editFile', { path: 'src/b.ts', newText: 'x', overwrite: true }, 'Overwrote src/b.ts (1 lines).'),
			);
			assert.deepEqual(
				l.reads.map(r => [r.path, r.count]),
				[['src/a.ts', 2]],
			);
			assert.deepEqual(
				l.edits.map(e => [e.path, e.count, e.failed, e.created]),
				[
					['src/new.ts', 1, 0, true],
					['src/a.ts', 2, 0, false],
					['src/b.ts', 1, 0, false],
				],
			);
			assert.equal(l.steps, 6);
		});

		it('counts a refused edit as a failed attempt, not an edit, and skips failed reads', () => {
			const l = ledgerOf(
				call(
					'longhaul_editFile',
					{ path: 'src/a.ts', oldText: 'zz', newText: 'y' },
					'Error: the tool longhaul_editFile failed: oldText occurs 0 times in src/a.ts; it must occur exactly once.',
				),
				call('longhaul_readFile', { path: 'missing.ts' }, 'Error: the tool longhaul_readFile failed: ENOENT'),
			);
			assert.deepEqual(
				l.edits.map(e => [e.path, e.count, e.failed]),
				[['src/a.ts', 0, 1]],
			);
			assert.deepEqual(l.reads, []);
			assert.equal(editDetail(l.edits[0]), '1 failed attempt');
		});

		it('records commands with the exit status runCommand reports, and the latest outcome of a repeated command', () => {
			const l = ledgerOf(
				call('longhaul_runCommand', { command: 'npm test' }, 'exit code 1\n3 failing'),
				call('longhaul_runCommand', { command: 'npm run build' }, 'timed out after 120 s\n...'),
				call('longhaul_runCommand', { command: 'npm test' }, 'exit code 0\nall passed'),
				call('longhaul_runCommand', { command: 'make' }, 'cancelled\n'),
				call(
					'longhaul_runCommand',
					{ command: 'rm -rf /' },
					'Error: the tool longhaul_runCommand failed: This workspace is not trusted; Longhaul does not run commands in it.',
				),
				call('longhaul_runCommand', { command: 'sleep 100' }),
			);
			assert.deepEqual(
				l.commands.map(c => [c.command, c.count, c.outcome, c.failed]),
				[
					['npm test', 2, 'exit 0', false],
					['npm run build', 1, 'timed out', true],
					['make', 1, 'cancelled', true],
					['rm -rf /', 1, 'not run: This workspace is not trusted; Longhaul does not run commands in it.', true],
					['sleep 100', 1, 'no result (interrupted)', true],
				],
			);
			assert.equal(commandLine(l.commands[0]), '- `npm test`: exit 0 (run 2 times)');
		});

		it('records listings, file finds and text searches as searches', () => {
			const l = ledgerOf(
				call('longhaul_listDirectory', { path: 'src' }, 'src: 3 entries'),
				call('longhaul_findFiles', { pattern: '**/*.ts' }, '2 file(s) match'),
				call('longhaul_searchText', { query: 'TODO', include: 'src/**' }, '1 match(es)'),
			);
			assert.deepEqual(
				l.searches.map(s => s.digest),
				['list src', 'find **/*.ts', 'search "TODO" in src/**'],
			);
			assert.deepEqual([l.reads, l.edits, l.commands, l.others], [[], [], [], []]);
		});
	});

	describe('VS Code / Copilot tools', () => {
		it('reads, creations, replacements, inserts, multi-replacements and patches', () => {
			const patch = '*** Begin Patch\n*** Update File: /w/src/x.ts\n@@\n-a\n+b\n*** Add File: /w/src/y.ts\n+new\n*** End Patch';
			const l = ledgerOf(
				call('read_file', { filePath: '/w/src/x.ts', startLine: 1, endLine: 40 }, 'text'),
				call('create_file', { filePath: '/w/src/z.ts', content: 'x' }, 'The following files were successfully edited'),
				call('replace_string_in_file', { filePath: '/w/src/x.ts', oldString: 'a', newString: 'b' }, 'ok'),
				call('insert_edit_into_file', { filePath: '/w/src/x.ts', code: '...', explanation: 'e' }, 'ok'),
				call(
					'multi_replace_string_in_file',
					{
						replacements: [
							{ filePath: '/w/a.ts', oldString: 'a', newString: 'b' },
							{ filePath: '/w/b.ts', oldString: 'a', newString: 'b' },
						],
					},
					'ok',
				),
				call('apply_patch', { input: patch, explanation: 'e' }, 'ok'),
			);
			assert.deepEqual(
				l.reads.map(r => r.path),
				['/w/src/x.ts'],
			);
			assert.deepEqual(
				l.edits.map(e => [e.path, e.count, e.created]),
				[
					['/w/src/z.ts', 1, true],
					['/w/src/x.ts', 3, false],
					['/w/a.ts', 1, false],
					['/w/b.ts', 1, false],
					['/w/src/y.ts', 1, true],
				],
			);
		});

		it('terminal commands, searches, and the latest todo list as the plan', () => {
			const l = ledgerOf(
				call('run_in_terminal', { command: 'cd /w && npm test', explanation: 'run', isBackground: false }, 'Command exited with code 2'),
				call('file_search', { query: '**/*.md' }, 'a.md'),
				call('grep_search', { query: 'foo', isRegexp: false, includePattern: 'src/**' }, 'hits'),
				call(
					'manage_todo_list',
					{
						todoList: [
							{ id: 1, title: 'Write parser', status: 'completed' },
							{ id: 2, title: 'Test it', status: 'not-started' },
						],
					},
					'ok',
				),
				call(
					'manage_todo_list',
					{
						todoList: [
							{ id: 1, title: 'Write parser', status: 'completed' },
							{ id: 2, title: 'Test it', status: 'in-progress' },
						],
					},
					'ok',
				),
			);
			assert.deepEqual(
				l.commands.map(c => [c.command, c.outcome]),
				// The terminal tool appends its status after the output, where the output could write it too:
				// not trusted, and its last line is not recorded either (issue 32).
				[['npm test', 'no exit status']],
			);
			assert.deepEqual(
				l.searches.map(s => s.digest),
				['find **/*.md', 'search "foo" in src/**'],
			);
			assert.deepEqual(l.plan, { tool: 'manage_todo_list', text: '[x] Write parser\n[~] Test it', round: 'r' });
		});
	});

	describe('corpus tools (mini-swe-agent bash, OpenHands execute_bash and str_replace_editor)', () => {
		it('bash: reads, searches, in-place and heredoc edits, and commands with <returncode>', () => {
			const l = ledgerOf(
				call('bash', { command: 'cat src/marshmallow/schema.py | head -50' }, '<returncode>0</returncode>\n<output>...</output>'),
				call('bash', { command: "sed -n '100,140p' src/marshmallow/schema.py" }, '<returncode>0</returncode>'),
				call('bash', { command: 'grep -rn "validates" src/ | head' }, '<returncode>0</returncode>'),
				call('bash', { command: "sed -i 's/a/b/' src/marshmallow/schema.py" }, '<returncode>0</returncode>\n<output>\n</output>'),
				call('bash', { command: "cat > reproduce.py << 'EOF'\nimport os\nos.system('rm -rf x')\nEOF" }, '<returncode>0</returncode>'),
				call('bash', { command: 'cd /testbed && python reproduce.py' }, '<returncode>1</returncode>\n<output>Traceback</output>'),
				call('bash', { command: '# try the tests\npython -m pytest tests/test_schema.py -q 2>&1 | tail -5' }, '<returncode>0</returncode>'),
			);
			assert.deepEqual(
				l.reads.map(r => [r.path, r.count]),
				[['src/marshmallow/schema.py', 2]],
			);
			assert.deepEqual(
				l.searches.map(s => s.digest),
				['grep -rn "validates" src/ | head'],
			);
			assert.deepEqual(
				l.edits.map(e => [e.path, e.count]),
				[
					['src/marshmallow/schema.py', 1],
					['reproduce.py', 1],
				],
			);
			assert.deepEqual(
				l.commands.map(c => [c.command, c.outcome, c.failed]),
				[
					["sed -i 's/a/b/' src/marshmallow/schema.py", 'exit 0', false],
					['python reproduce.py', 'exit 1', true],
					['python -m pytest tests/test_schema.py -q 2>&1 | tail -5', 'exit 0', false],
				],
				'an edit by sed -i is named as a command too; the file written by a heredoc redirection is its file line only',
			);
		});

		it('an edit by command is named as a command with its status, beside its file: run again, it would edit again', () => {
			const sed = "sed -i '878,879{/for idx/a\\    if item is None:' src/marshmallow/fields.py";
			const l = ledgerOf(
				call('bash', { command: sed }, "<returncode>1</returncode>\n<output>sed: -e expression #1, char 40: unmatched `{'</output>"),
				call('bash', { command: "sed -i 's/a/b/' src/marshmallow/schema.py" }, '<returncode>0</returncode>'),
			);
			assert.deepEqual(
				l.edits.map(e => [e.path, e.count, e.failed]),
				[
					['src/marshmallow/fields.py', 0, 1],
					['src/marshmallow/schema.py', 1, 0],
				],
			);
			assert.deepEqual(
				l.commands.map(c => [c.command, c.outcome, c.failed]),
				[
					[sed.replace(/\s+/g, ' '), 'exit 1', true],
					["sed -i 's/a/b/' src/marshmallow/schema.py", 'exit 0', false],
				],
				'both commands are named with their status',
			);
		});

		it('two long commands that start alike and end differently stay two commands, each with its own status', () => {
			const setup =
				'import django\nfrom django.conf import settings\nsettings.configure(DEBUG=True, INSTALLED_APPS=[])\ndjango.setup()\nfrom django.db import models\n'.repeat(
					2,
				);
			const first = `cd /testbed && python -c "\n${setup}print(type(models.AutoField))\n" 2>&1`;
			const second = `cd /testbed && python -c "\n${setup}print(isinstance(models.BigAutoField(), models.AutoField))\n" 2>&1`;
			const l = ledgerOf(call('bash', { command: first }, '<returncode>0</returncode>'), call('bash', { command: second }, '<returncode>1</returncode>'));
			assert.deepEqual(
				l.commands.map(c => [c.command.length <= 200, c.command.endsWith('" 2>&1'), c.count, c.outcome]),
				[
					[true, true, 1, 'exit 0'],
					[true, true, 1, 'exit 1'],
				],
			);
			assert.notEqual(l.commands[0].command, l.commands[1].command);
		});

		it('str_replace_editor: view is a read (or a listing), create/str_replace/insert are edits, ERROR answers are failed attempts', () => {
			const p = '/workspace/ponyc/src/libponyc/expr/match.c';
			const l = ledgerOf(
				call('str_replace_editor', { command: 'view', path: p }, "Here's the result of running `cat -n` on " + p),
				call('str_replace_editor', { command: 'view', path: '/workspace/ponyc' }, "Here's the files and directories up to 2 levels deep in /workspace/ponyc"),
				call(
					'str_replace_editor',
					{ command: 'str_replace', path: p, old_str: 'a', new_str: 'b' },
					'ERROR:\nNo replacement was performed, old_str `a` did not appear verbatim',
				),
				call('str_replace_editor', { command: 'insert', path: p, insert_line: 3, new_str: 'x' }, 'The file ' + p + ' has been edited.'),
				call(
					'str_replace_editor',
					{ command: 'create', path: '/workspace/t.pony', file_text: 'actor Main' },
					'File created successfully at: /workspace/t.pony',
				),
			);
			assert.deepEqual(
				l.reads.map(r => r.path),
				[p],
			);
			assert.deepEqual(
				l.searches.map(s => s.digest),
				['list /workspace/ponyc'],
			);
			assert.deepEqual(
				l.edits.map(e => [e.path, e.count, e.failed, e.created]),
				[
					[p, 1, 1, false],
					['/workspace/t.pony', 1, 0, true],
				],
			);
		});

		it('execute_bash without its status line records "no exit status", not a line of the output', () => {
			const l = ledgerOf(call('execute_bash', { command: 'cd /workspace/ponyc && make' }, "/bin/sh: 1: cd: can't cd\nmake: *** [Makefile:192: build] Error 2"));
			assert.deepEqual(
				l.commands.map(c => [c.command, c.outcome]),
				[['make', 'no exit status']],
			);
		});

		it('any other tool is a generic entry: its name and a short argument digest', () => {
			const l = ledgerOf(
				call('think', { thought: 'The bug is in make_pattern_type, where the iso capability is aliased' }, 'Your thought has been logged.'),
				call('mystery', 'not json at all', 'ok'),
			);
			assert.deepEqual(
				l.others.map(o => [o.tool, o.digest]),
				[
					['think', 'thought="The bug is in make_pattern_type, where …"'],
					['mystery', 'not json at all'],
				],
			);
		});
	});

	describe('shell command lines', () => {
		it('splits at operators outside quotes and ignores heredoc bodies and comments', () => {
			assert.deepEqual(shellEffects('grep "a|b;c" f.txt').reads, []);
			assert.equal(shellEffects('grep "a|b;c" f.txt').inspectOnly, true);
			const heredoc = shellEffects("cat <<'EOF' > out.py\nrm -rf /\nEOF\n# comment\nls");
			assert.deepEqual(heredoc.writes, ['out.py']);
			assert.equal(heredoc.runs, false);
			assert.equal(shellEffects('echo hi > /dev/null 2>&1').inspectOnly, true);
			assert.deepEqual(shellEffects('python x.py | tee log.txt').writes, ['log.txt']);
			assert.equal(shellEffects('cd /a && cd b && make -j2').normalized, 'make -j2');
			assert.equal(shellEffects('git diff HEAD').inspectOnly, true);
			assert.equal(shellEffects('git commit -m x').runs, true);
		});
	});

	describe('incremental build', () => {
		const turns: Turn[] = [
			{
				user: 'Fix the parser',
				rounds: [
					round('t0r0', call('bash', { command: 'cat a.py' }, '<returncode>0</returncode>')),
					round('t0r1', call('bash', { command: "sed -i 's/x/y/' a.py" }, '<returncode>0</returncode>')),
				],
			},
			{ user: 'Now run the tests', rounds: [round('t1r0', call('bash', { command: 'pytest' }, '<returncode>1</returncode>'))] },
		];
		const conversation: Conversation = { turns, activeRounds: [round('a0', call('bash', { command: 'pytest -x' }, '<returncode>0</returncode>'))] };

		it('a request and rounds folded in one by one give the ledger built from scratch', () => {
			let l = emptyLedger();
			for (const t of turns) {
				l = addUserRequest(l, t.user);
				for (const r of t.rounds) l = extendLedger(l, r);
			}
			l = extendLedger(addUserRequest(l, 'Make it pass'), conversation.activeRounds[0]);
			assert.deepEqual(l, buildLedger(conversation, 'Make it pass'));
			assert.deepEqual(l.requests, ['Fix the parser', 'Now run the tests', 'Make it pass']);
		});

		it('ledgerAtRequestStart: the stored ledger plus the later turns equals the ledger from scratch, and ignores elided results later', () => {
			const stored = [buildLedger({ turns: [turns[0]], activeRounds: [] }), undefined];
			// The first turn's results were later elided: the stored ledger is what counts.
			const elided: Turn[] = [
				{ ...turns[0], rounds: turns[0].rounds.map(r => ({ ...r, toolCalls: r.toolCalls.map(c => ({ ...c, result: '[elided]' })) })) },
				turns[1],
			];
			const resumed = ledgerAtRequestStart(elided, stored, 'Next');
			assert.deepEqual(resumed, buildLedger({ turns, activeRounds: [] }, 'Next'));
			assert.deepEqual(ledgerAtRequestStart(turns, [undefined, undefined], 'Next'), resumed);
		});

		it('property: folding any split of the rounds gives the same ledger as one pass', () => {
			const callArb = fc.oneof(
				fc
					.record({
						name: fc.constant('bash'),
						command: fc.constantFrom('cat a.py', 'pytest', "sed -i 's/a/b/' b.py", 'ls', 'python x.py > out.txt'),
						code: fc.integer({ min: 0, max: 2 }),
					})
					.map(c => call(c.name, { command: c.command }, `<returncode>${c.code}</returncode>`)),
				fc.constantFrom('a.ts', 'b/c.ts').map(p => call('longhaul_readFile', { path: p }, 'text')),
				fc.constantFrom('a.ts', 'b/c.ts').map(p => call('longhaul_editFile', { path: p, oldText: 'x', newText: 'y' }, 'Edited')),
				fc.string({ maxLength: 10 }).map(s => call('other_tool', { s }, 'ok')),
			);
			fc.assert(
				fc.property(fc.array(fc.array(callArb, { maxLength: 3 }), { maxLength: 12 }), fc.nat(), (roundCalls, cut) => {
					const rounds = roundCalls.map((calls, i) => round(`a${i}`, ...calls));
					const k = rounds.length ? cut % (rounds.length + 1) : 0;
					const whole = buildLedger({ turns: [], activeRounds: rounds }, 'go');
					const stored = buildLedger({ turns: [], activeRounds: rounds.slice(0, k) }, 'go');
					const resumed = rounds.slice(k).reduce(extendLedger, stored);
					assert.deepEqual(resumed, whole);
					assert.equal(whole.steps, roundCalls.flat().length);
				}),
				{ numRuns: 200 },
			);
		});
	});

	describe('rendering under a cap', () => {
		/** A long session: 3 requests, 120 files read under two trees, 40 edits, 60 commands. */
		function bigLedger(): DoneLedger {
			let l = emptyLedger();
			l = addUserRequest(l, 'Port the parser to the new AST API. ' + 'Details follow. '.repeat(30));
			const calls: ToolCall[] = [];
			for (let i = 0; i < 120; i++) calls.push(call('longhaul_readFile', { path: `${i % 2 ? 'src/parser' : 'test/unit'}/file${i}.ts` }, 'text'));
			for (let i = 0; i < 40; i++) calls.push(call('longhaul_editFile', { path: `src/parser/file${i}.ts`, oldText: 'a', newText: 'b' }, 'Edited'));
			for (let i = 0; i < 60; i++) calls.push(call('longhaul_runCommand', { command: `npm test -- --grep case${i}` }, `exit code ${i % 3 ? 0 : 1}\n`));
			l = extendLedger(l, round('a0', ...calls.slice(0, 110)));
			l = addUserRequest(l, 'Also update the docs.');
			l = extendLedger(l, round('a1', ...calls.slice(110)));
			return addUserRequest(l, 'And the changelog.');
		}

		it('renders every entry on its own line when it fits', () => {
			const l = ledgerOf(call('longhaul_runCommand', { command: 'npm test' }, 'exit code 0\n'), call('longhaul_readFile', { path: 'a.ts' }, 'x'));
			const text = renderDoneLedger(addUserRequest(l, 'Run the tests'), { maxTokens: 1000, countTokens });
			assert.equal(
				text,
				[
					LEDGER_HEADING,
					'User requests, oldest first:',
					'1. Run the tests',
					'Commands run (outcome of the latest run):',
					'- `npm test`: exit 0',
					'Files read:',
					'- a.ts',
				].join('\n'),
			);
			assert.equal(renderDoneLedger(emptyLedger(), { maxTokens: 1000, countTokens }), '');
		});

		it('over the target, every file (edited or read, named once) keeps its line before commands; the oldest commands merge first', () => {
			const l = bigLedger();
			const full = renderDoneLedger(l, { maxTokens: 1e9, countTokens });
			const cap = Math.floor(countTokens(full) * 0.6);
			const text = renderDoneLedger(l, { maxTokens: cap, countTokens });
			assert.ok(countTokens(text) <= cap, `${countTokens(text)} > ${cap}`);
			const read = readLedger(text);
			assert.deepEqual([...read.edits].sort(), l.edits.map(e => e.path).sort());
			const edited = new Set(l.edits.map(e => e.path));
			const readOnly = l.reads.filter(r => !edited.has(r.path)).map(r => r.path);
			assert.deepEqual([...read.reads].sort(), readOnly.sort(), 'a file read and edited is listed once, among the edits');
			const named = namedCommands(read, l.commands);
			assert.ok(named.size > 0 && named.size < l.commands.length, `${named.size} commands named`);
			const newest = l.commands.at(-1)!;
			assert.ok(named.has(`${newest.command}\u0000${newest.outcome}`), 'the newest commands keep their lines');
			assert.match(text, /other commands? starting with `npm`/);
			for (const [i, r] of l.requests.entries()) assert.ok(text.includes(`${i + 1}. ${r.slice(0, 20)}`), `request ${i + 1}`);
		});

		it('shared directories are written once, as a tree; the full paths read back', () => {
			const l = ledgerOf(
				call('longhaul_editFile', { path: 'src/deep/dir/a.ts', oldText: 'a', newText: 'b' }, 'Edited'),
				call('longhaul_editFile', { path: 'src/deep/dir/b.ts', newText: 'b' }, 'Created'),
				call('longhaul_editFile', { path: 'src/deep/dir/b.ts', oldText: 'a', newText: 'b' }, 'Edited'),
				call('longhaul_editFile', { path: 'top.ts', oldText: 'a', newText: 'b' }, 'Error: not found'),
				call('longhaul_editFile', { path: 'src/other/c.ts', oldText: 'a', newText: 'b' }, 'Edited'),
			);
			const text = renderDoneLedger(l, { maxTokens: 1000, countTokens });
			const expected = [
				'Files created or edited:',
				'- src/',
				'  - deep/dir/',
				'    - a.ts (1 edit)',
				'    - b.ts (created, 1 edit)',
				'  - other/c.ts (1 edit)',
				'- top.ts (1 failed attempt)',
			];
			assert.ok(text.includes(expected.join('\n')), text);
			assert.deepEqual([...readLedger(text).edits].sort(), ['src/deep/dir/a.ts', 'src/deep/dir/b.ts', 'src/other/c.ts', 'top.ts']);
		});

		/** `commands` distinct commands (long ones sharing their start), `edits` files, `reads` reads. */
		function factLedger(commands: number, edits: number, reads: number): DoneLedger {
			const calls: ToolCall[] = [];
			for (let i = 0; i < reads; i++) calls.push(call('longhaul_readFile', { path: `pkg/mod${i % 9}/file${i}.py` }, 'text'));
			for (let i = 0; i < edits; i++) calls.push(call('longhaul_editFile', { path: `pkg/mod${i % 7}/edited${i}.py`, oldText: 'a', newText: 'b' }, 'Edited'));
			for (let i = 0; i < commands; i++) {
				const command =
					i % 3
						? `python -m pytest tests/test_module_number_${i}.py::TestSomething::test_case_${i} -x -q`
						: `python -c "import pkg; print(pkg.compute(${i}, mode='fast', retries=3))"`;
				calls.push(call('longhaul_runCommand', { command }, `exit code ${i % 4 ? 0 : 1}\n`));
			}
			return addUserRequest(extendLedger(emptyLedger(), round('r', ...calls)), 'Make the test suite pass.');
		}

		it('grows past the target towards the bound only to name the facts (files and commands), never for searches', () => {
			const few = factLedger(3, 3, 3);
			const searches = extendLedger(
				few,
				round('s', ...Array.from({ length: 300 }, (_, i) => call('grep_search', { query: `symbol_number_${i}`, includePattern: `pkg/mod${i % 9}` }, 'hits'))),
			);
			const text = renderDoneLedger(searches, { maxTokens: 2000, countTokens });
			assert.ok(countTokens(text) <= 2000 * TARGET_SHARE, `${countTokens(text)} tokens for a ledger of searches`);
			assert.equal(readLedger(text).reads.size, 3);
			const manyFacts = factLedger(40, 30, 60);
			const grown = renderDoneLedger(manyFacts, { maxTokens: 2000, countTokens });
			assert.ok(countTokens(grown) > 2000 * TARGET_SHARE && countTokens(grown) <= 2000, `${countTokens(grown)}`);
			const read = readLedger(grown);
			assert.equal(read.edits.size, 30);
			assert.equal(read.reads.size, 60);
			assert.equal(namedCommands(read, manyFacts.commands).size, 40);
		});

		it('when the bound is short, lines lose detail (counts, the middle of long commands) before any fact is merged', () => {
			const l = factLedger(60, 20, 10);
			const full = renderDoneLedger(l, { maxTokens: 1e9, countTokens });
			const cap = Math.floor(countTokens(full) * 0.9);
			const text = renderDoneLedger(l, { maxTokens: cap, countTokens });
			assert.ok(countTokens(text) <= cap);
			assert.ok(text.includes('…'), 'long commands are shortened');
			const read = readLedger(text);
			assert.equal(read.edits.size, 20);
			assert.equal(namedCommands(read, l.commands).size, 60, 'every shortened command still identifies exactly one command, with its outcome');
			const tiny = renderDoneLedger(l, { maxTokens: Math.floor(cap / 3), countTokens });
			assert.match(tiny, /other commands? starting with `python`/, 'only then are the oldest commands merged');
			const newest = l.commands.at(-1)!;
			assert.ok(namedCommands(readLedger(tiny), l.commands).has(`${newest.command}\u0000${newest.outcome}`), 'the newest stays');
		});

		it('property: never over the cap, no heading without a line under it, and every request is still there', () => {
			const l = bigLedger();
			const withOthers = extendLedger(
				l,
				round('o', call('replay_tool', { tool: 'bash', arguments: { command: 'x' } }, 'ok'), call('think', { thought: 'hm' }, 'ok')),
			);
			fc.assert(
				fc.property(fc.integer({ min: 60, max: 4000 }), fc.boolean(), (cap, others) => {
					const text = renderDoneLedger(others ? withOthers : l, { maxTokens: cap, countTokens });
					if (text === '') return; // not even the most compact form fits: nothing is shown, the caller reports it
					assert.ok(countTokens(text) <= cap, `${countTokens(text)} > ${cap}`);
					const lines = text.split('\n');
					lines.forEach((line, i) => {
						if (i > 0 && line.endsWith(':') && !/^( {2})?- |^\d+\./.test(line)) {
							assert.ok(i + 1 < lines.length && /^( {2})?- |^\d+\./.test(lines[i + 1]), `cap ${cap}: "${line}" has nothing under it`);
						}
					});
					const byNumber = /^1\.(?:–(\d+)\.)? \(shown word for word/m.exec(text);
					const hidden = byNumber ? Number(byNumber[1] ?? 1) : 0;
					l.requests.forEach((r, i) => {
						if (i >= hidden) assert.ok(text.includes(`${i + 1}. ${r.slice(0, 10)}`), `cap ${cap}: request ${i + 1}`);
					});
				}),
				{ numRuns: 60 },
			);
			assert.ok(renderDoneLedger(l, { maxTokens: 200, countTokens }) !== '', 'the compact form fits 200 tokens');
		});

		it('measures only lines it may show: a 20,000-entry ledger costs about as much counting as a 200-entry one', () => {
			const measured = (entries: number) => {
				let chars = 0;
				const counting = (text: string) => {
					chars += text.length;
					return countTokens(text);
				};
				const ledger: DoneLedger = {
					...emptyLedger(),
					requests: ['Refactor everything.'],
					reads: Array.from({ length: entries }, (_, i) => ({ path: `src/m${i % 50}/f${i}.ts`, count: 1 + (i % 3), last: i + 1, round: `r${i}` })),
					steps: entries,
				};
				const text = renderDoneLedger(ledger, { maxTokens: 3000, countTokens: counting });
				assert.ok(countTokens(text) <= 3000);
				return chars;
			};
			const small = measured(200);
			const large = measured(20_000);
			assert.ok(large < small * 3 + 50_000, `characters measured: ${small} for 200 entries, ${large} for 20,000`);
		});

		it('groups directories at the deepest level that keeps the group count small', () => {
			assert.deepEqual(
				groupEntriesByDirectory(['a/b/c/1.ts', 'a/b/c/2.ts', 'a/b/d/3.ts', 'x/4.ts'], p => p, 2).map(g => [g.dir, g.entries.length]),
				[
					['a/b', 3],
					['x', 1],
				],
			);
		});
	});

	describe('storage in the turn record', () => {
		const ledger = extendLedger(
			addUserRequest(emptyLedger(), 'Fix it'),
			round(
				'r1',
				call('longhaul_runCommand', { command: 'make' }, 'exit code 2\n'),
				call('manage_todo_list', { todoList: [{ title: 'a', status: 'completed' }] }, 'ok'),
			),
		);

		it('round-trips through JSON; records without a ledger decode as before', () => {
			const record = encodeTurnRecord({ rounds: [], doneLedger: ledger });
			const decoded = decodeTurnRecord(JSON.parse(JSON.stringify(record)));
			assert.deepEqual(decoded.errors, []);
			assert.deepEqual(decoded.record!.doneLedger, ledger);
			const without = decodeTurnRecord({ schemaVersion: 1, rounds: [], summaries: [] });
			assert.deepEqual(without.errors, []);
			assert.ok(!('doneLedger' in without.record!));
		});

		it('a bad ledger is a typed issue naming the field and is left out; the rest of the record is kept', () => {
			const bad = JSON.parse(JSON.stringify(encodeTurnRecord({ rounds: [round('r1')], doneLedger: ledger })));
			bad.doneLedger.commands[0].count = 'two';
			const decoded = decodeTurnRecord(bad);
			assert.deepEqual(
				decoded.errors.map(e => [e.kind, e.path]),
				[['wrong-type', 'doneLedger.commands[0].count']],
			);
			assert.equal(decoded.record!.doneLedger, undefined);
			assert.equal(decoded.record!.rounds.length, 1);
			assert.equal(decodeTurnRecord({ schemaVersion: 1, rounds: [], summaries: [], doneLedger: 'x' }).errors[0].kind, 'wrong-type');
			assert.equal(decodeTurnRecord({ schemaVersion: 1, rounds: [], summaries: [], doneLedger: { requests: [] } }).errors[0].path, 'doneLedger.steps');
		});

		it('refuses lists and texts longer than any ledger the agent builds, before looking at their entries', () => {
			const stored = () => JSON.parse(JSON.stringify(encodeTurnRecord({ rounds: [], doneLedger: ledger })));
			const huge = stored();
			huge.doneLedger.reads = new Array(LEDGER_LIST_MAX + 1).fill('not even an entry');
			assert.deepEqual(
				decodeTurnRecord(huge).errors.map(e => [e.kind, e.path, e.message]),
				[['too-large', 'doneLedger.reads', `${LEDGER_LIST_MAX + 1} entries, more than the ${LEDGER_LIST_MAX} a ledger may hold`]],
			);
			const longText = stored();
			longText.doneLedger.commands[0].command = 'x'.repeat(LEDGER_TEXT_MAX + 1);
			assert.deepEqual(
				decodeTurnRecord(longText).errors.map(e => [e.kind, e.path]),
				[['too-large', 'doneLedger.commands[0].command']],
			);
			const manyRequests = stored();
			manyRequests.doneLedger.requests = new Array(LEDGER_LIST_MAX + 1).fill('r');
			assert.equal(decodeTurnRecord(manyRequests).errors[0].path, 'doneLedger.requests');
			const longRequest = stored();
			longRequest.doneLedger.requests = ['y'.repeat(LEDGER_TEXT_MAX + 1)];
			assert.equal(decodeTurnRecord(longRequest).errors[0].path, 'doneLedger.requests[0]');
		});

		it('the builder keeps within those bounds: long texts are cut, a full list gives up its least recently touched entry', () => {
			const long = ledgerOf(
				call('longhaul_readFile', { path: 'p/' + 'x'.repeat(LEDGER_TEXT_MAX * 2) }, 'text'),
				call('a'.repeat(LEDGER_TEXT_MAX + 10), {}, 'ok'),
			);
			assert.equal(long.reads[0].path.length, LEDGER_TEXT_MAX);
			assert.equal(long.others[0].tool.length, LEDGER_TEXT_MAX);
			const full: DoneLedger = {
				...emptyLedger(),
				reads: Array.from({ length: LEDGER_LIST_MAX }, (_, i) => ({ path: `f${i}`, count: 1, last: i === 5 ? 0 : i + 1, round: 'r' })),
				steps: LEDGER_LIST_MAX,
			};
			const next = extendLedger(full, round('n', call('longhaul_readFile', { path: 'new.ts' }, 'text')));
			assert.equal(next.reads.length, LEDGER_LIST_MAX);
			assert.ok(!next.reads.some(r => r.path === 'f5') && next.reads.some(r => r.path === 'new.ts'));
			const decoded = decodeTurnRecord(JSON.parse(JSON.stringify(encodeTurnRecord({ rounds: [], doneLedger: long }))));
			assert.deepEqual(decoded.errors, []);
		});

		it('rebuildConversation hands back the ledger stored with each history entry', () => {
			const history = [
				{ user: 'Fix it', metadata: { [METADATA_KEY]: encodeTurnRecord({ rounds: [], doneLedger: ledger }) } },
				{ user: 'More', metadata: { [METADATA_KEY]: encodeTurnRecord({ rounds: [] }) } },
			];
			const { doneLedgers, issues } = rebuildConversation(history);
			assert.deepEqual(issues, []);
			assert.deepEqual(doneLedgers, [ledger, undefined]);
		});
	});

	describe('on a real corpus session', () => {
		const file = join(process.env.LONGHAUL_CORPUS ?? resolve('../shared/corpus'), 'oh-ponyc-4588.json');

		it('oh-ponyc-4588: match.c edited (with failed attempts) within a 600-token bound, every command with its outcome within 700', function () {
			if (!existsSync(file)) this.skip();
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const conversation = conversationFromSessionJson(JSON.parse(require('node:fs').readFileSync(file, 'utf8')));
			const l = buildLedger(conversation);
			const match = l.edits.find(e => e.path.endsWith('src/libponyc/expr/match.c'));
			assert.ok(match && match.count > 0 && match.failed > 0, JSON.stringify(match));
			assert.ok(l.commands.some(c => c.command === 'make'));
			assert.equal(l.requests.length, conversation.turns.length + (conversation.activeRounds.length ? 0 : 0));
			const text = renderDoneLedger(l, { maxTokens: 600, countTokens });
			assert.ok(countTokens(text) <= 600);
			assert.ok(readLedger(text).edits.has(match.path), text);
			// Its commands report no exit status: all 14 fit at 700.
			const roomier = renderDoneLedger(l, { maxTokens: 700, countTokens });
			assert.equal(namedCommands(readLedger(roomier), l.commands).size, l.commands.length, roomier);
		});
	});
});
