import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from '../../../src/cli/commandLine';
import { EXIT_NOTHING_TO_SUMMARIZE, parseArgs, runPlanCommand, USAGE } from '../../../src/cli/planCommand';

const root = resolve(__dirname, '../../../..');
const fixtures = join(root, 'test/fixtures/conversations');
const read = (path: string) => readFileSync(path, 'utf8');
const run = (...argv: string[]) => runPlanCommand(argv, read);
const fixture = (name: string) => join(fixtures, name);

describe('longhaul-plan', () => {
	describe('arguments', () => {
		it('accepts --input, --mode half|legacy (also --flag=value) and --explain; half-context is the default', () => {
			assert.deepEqual(parseArgs(['--input', 'x.json']), { input: 'x.json', mode: 'half-context', explain: false });
			assert.deepEqual(parseArgs(['--mode=legacy', '--input=x.json', '--explain']), { input: 'x.json', mode: 'legacy', explain: true });
			assert.deepEqual(parseArgs(['--mode', 'half', '--input', 'x.json']), { input: 'x.json', mode: 'half-context', explain: false });
		});

		it('rejects a missing input, an unknown mode, unknown options and stray arguments with exit code 2 and a message naming the problem', () => {
			const cases: [string[], RegExp][] = [
				[[], /--input is required/],
				[['--input'], /--input needs a value/],
				[['--input', '--explain'], /--input needs a value/],
				[['--input', 'x', '--mode', 'full'], /--mode must be "half" or "legacy", got "full"/],
				[['--input', 'x', '--verbose'], /unknown option --verbose/],
				[['--input', 'x', 'y.json'], /unexpected argument "y.json"/],
				[['--input', 'x', '--explain=yes'], /--explain takes no value/],
			];
			for (const [argv, message] of cases) {
				const result = runPlanCommand(argv, read);
				assert.equal(result.exitCode, EXIT_USAGE, argv.join(' '));
				assert.match(result.stderr, /^longhaul-plan: /);
				assert.match(result.stderr, message);
				assert.match(result.stderr, /Run longhaul-plan --help for the options\.\n$/);
				assert.equal(result.stdout, '');
			}
			assert.throws(() => parseArgs(['--mode', 'full', '--input', 'x']), UsageError);
		});

		it('--help and -h print the usage with every option and the exit codes, and exit 0', () => {
			for (const flag of ['--help', '-h']) {
				const result = runPlanCommand(['--input', 'x', flag], read);
				assert.equal(result.exitCode, EXIT_OK);
				assert.equal(result.stdout, USAGE + '\n');
				assert.equal(result.stderr, '');
			}
			for (const option of ['--input', '--mode', '--window', '--min-keep', '--explain', '--help']) assert.ok(USAGE.includes(option), option);
			assert.match(USAGE, /0 plan printed, 1 unreadable or invalid input, 2 invalid arguments, 3 nothing to summarize/);
		});
	});

	it('half: prints the plan as JSON with exactly the documented fields', () => {
		const result = run('--input', fixture('two-turns.json'), '--mode', 'half');
		assert.equal(result.exitCode, EXIT_OK);
		assert.deepEqual(JSON.parse(result.stdout), {
			mode: 'half-context',
			summarizeRoundIds: ['t0r0', 't0r1', 't0r2'],
			keepRoundIds: ['t1r0', 't1r1', 'a0'],
			anchorRoundId: 't0r2',
			isContinuation: true,
			stats: { totalRoundCount: 6, summarizedRoundCount: 3, keptRoundCount: 3 },
			summaryBlocks: [{ turnIndex: 0, roundIds: ['t0r0', 't0r1', 't0r2'] }],
		});
	});

	it('summaryBlocks: one per turn the summarized rounds span, in conversation order (the request in progress is turn n)', () => {
		const legacy = JSON.parse(run('--input', fixture('two-turns.json'), '--mode', 'legacy').stdout);
		assert.deepEqual(legacy.summaryBlocks, [
			{ turnIndex: 0, roundIds: ['t0r0', 't0r1', 't0r2'] },
			{ turnIndex: 1, roundIds: ['t1r0', 't1r1'] },
		]);
		const session = {
			turns: [{ user: 'u', rounds: [{ response: 'a', toolCalls: [] }] }],
			activeRounds: ['b', 'c', 'd', 'e', 'f'].map(r => ({ response: r, toolCalls: [] })),
		};
		const half = JSON.parse(runPlanCommand(['--input', 'mem.json'], () => JSON.stringify(session)).stdout);
		assert.deepEqual(half.summaryBlocks, [
			{ turnIndex: 0, roundIds: ['t0r0'] },
			{ turnIndex: 1, roundIds: ['a0', 'a1'] },
		]);
		// Continuing a turn that already has a block: the new block absorbs it.
		const continued = JSON.parse(run('--input', fixture('summarized-and-interrupted.json')).stdout);
		assert.deepEqual(continued.summaryBlocks, [{ turnIndex: 0, roundIds: ['lex-3'], absorbs: 'lex-2' }]);
	});

	describe('--window and --min-keep', () => {
		/** One past turn of small rounds, then active rounds with large results. */
		const sessionText = JSON.stringify({
			turns: [{ user: 'u', rounds: Array.from({ length: 6 }, (_, i) => ({ response: `small ${i}`, toolCalls: [] })) }],
			activeRounds: Array.from({ length: 6 }, (_, i) => ({
				response: `big ${i}`,
				toolCalls: [{ id: `c${i}`, name: 'runCommand', arguments: '{}', result: 'log line with some words\n'.repeat(150) }],
			})),
		});
		const plan = (...argv: string[]) => runPlanCommand(['--input', 'mem.json', ...argv], () => sessionText);

		it('without --window: the pure round rule, no token fields', () => {
			const result = JSON.parse(plan().stdout);
			assert.equal(result.stats.keptRoundCount, 6);
			assert.ok(!('keptTokens' in result.stats) && !('splitMoved' in result.stats));
		});

		it('with --window: the token-aware rule at the message budget of that window; stats say whether the split moved', () => {
			const result = JSON.parse(plan('--window', '8k').stdout);
			assert.equal(result.mode, 'half-context');
			assert.equal(result.stats.splitMoved, true);
			assert.equal(result.stats.roundRuleKeptCount, 6);
			assert.ok(result.stats.keptRoundCount < 6 && result.stats.keptRoundCount >= 2, `kept ${result.stats.keptRoundCount}`);
			assert.ok(result.stats.keptTokens <= result.stats.keptTokensLimit, JSON.stringify(result.stats));
			assert.equal(result.stats.keptTokensLimit, Math.floor((8000 - Math.ceil(8000 * 0.05) - 200 - 300) / 2));
			const roomy = JSON.parse(plan('--window=200000').stdout);
			assert.equal(roomy.stats.splitMoved, false);
			assert.equal(roomy.stats.keptRoundCount, 6);
			assert.match(plan('--window', '8k', '--explain').stdout, /tokens: {7}the round rule's 6 newest rounds held more than \d+ tokens/);
		});

		it('--min-keep raises the fewest rounds kept, also under the token rule', () => {
			assert.equal(JSON.parse(plan('--min-keep', '9').stdout).stats.keptRoundCount, 9);
			assert.equal(JSON.parse(plan('--window', '8k', '--min-keep', '5').stdout).stats.keptRoundCount, 5);
		});

		it('rejects bad values with a clear message and exit code 2', () => {
			for (const argv of [['--window', 'big'], ['--window', '500'], ['--window=0.5k'], ['--min-keep', '1'], ['--min-keep', '2.5'], ['--min-keep', 'x']]) {
				const result = plan(...argv);
				assert.equal(result.exitCode, EXIT_USAGE, argv.join(' '));
				assert.match(result.stderr, /^longhaul-plan: --(window|min-keep) must be/);
			}
		});
	});

	it('legacy: the last round of the newest turn is the anchor, the one active round is kept', () => {
		const plan = JSON.parse(run('--input', fixture('two-turns.json'), '--mode', 'legacy').stdout);
		assert.equal(plan.mode, 'legacy');
		assert.equal(plan.anchorRoundId, 't1r1');
		assert.deepEqual(plan.keepRoundIds, ['a0']);
	});

	it('starts after an existing summary and keeps the round where an interrupted turn stopped', () => {
		const plan = JSON.parse(run('--input', fixture('summarized-and-interrupted.json')).stdout);
		assert.deepEqual(plan.summarizeRoundIds, ['lex-3']);
		assert.deepEqual(plan.keepRoundIds, ['lex-4', 'go-1', 'go-2']);
		assert.equal(plan.fallbackReason, undefined);
	});

	it('reports a fallback reason when half-context hands over to legacy', () => {
		const plan = JSON.parse(run('--input', fixture('two-turns.json'), '--mode', 'half').stdout);
		assert.ok(!('fallbackReason' in plan));
		const session = {
			turns: [
				{
					user: 'u',
					rounds: [
						{ response: 'a', toolCalls: [] },
						{ response: 'b', toolCalls: [] },
					],
				},
			],
			activeRounds: [{ response: 'c', toolCalls: [] }],
		};
		const fallback = JSON.parse(runPlanCommand(['--input', 'mem.json'], () => JSON.stringify(session)).stdout);
		assert.equal(fallback.mode, 'legacy');
		assert.equal(fallback.fallbackReason, 'not-enough-rounds');
	});

	it('nothing to summarize: {"error":"nothing-to-summarize"} on stdout and exit code 3', () => {
		const result = run('--input', fixture('nothing-to-summarize.json'));
		assert.equal(result.exitCode, EXIT_NOTHING_TO_SUMMARIZE);
		assert.deepEqual(JSON.parse(result.stdout), { error: 'nothing-to-summarize' });
	});

	it('invalid input: a message naming the field and exit code 1', () => {
		const result = run('--input', fixture('invalid-call-id.json'));
		assert.equal(result.exitCode, EXIT_FAILURE);
		assert.match(result.stderr, /turns\[0\]\.rounds\[0\]\.toolCalls\[0\]\.id: expected a string, got a number/);
		assert.equal(run('--input', join(fixtures, 'missing.json')).exitCode, EXIT_FAILURE);
		assert.match(runPlanCommand(['--input', 'x.json'], () => '{ nope').stderr, /not valid JSON/);
	});

	it('--explain describes the plan for people', () => {
		const result = run('--input', fixture('summarized-and-interrupted.json'), '--explain');
		assert.equal(result.exitCode, EXIT_OK);
		for (const part of [
			'half-context',
			'summarize:    1 round: lex-3',
			'anchor:       lex-3 (turn 0, round 2)',
			'the block on lex-2',
			'block:        turn 0: 1 round (lex-3), after its user message, absorbing the block on lex-2',
			'inside turn 0',
			'lex-4',
		]) {
			assert.ok(result.stdout.includes(part), `missing "${part}" in:\n${result.stdout}`);
		}
	});

	it('the built bin runs with node and sets the exit code', function () {
		const bin = join(root, 'dist/cli/longhaul-plan.js');
		const ok = spawnSync(process.execPath, [bin, '--input', fixture('two-turns.json')], { encoding: 'utf8' });
		assert.equal(ok.status, EXIT_OK, ok.stderr);
		assert.equal(JSON.parse(ok.stdout).anchorRoundId, 't0r2');
		assert.ok(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node'));
		const nothing = spawnSync(process.execPath, [bin, '--input', fixture('nothing-to-summarize.json')], { encoding: 'utf8' });
		assert.equal(nothing.status, EXIT_NOTHING_TO_SUMMARIZE);
		const usage = spawnSync(process.execPath, [bin, '--input'], { encoding: 'utf8' });
		assert.equal(usage.status, EXIT_USAGE);
		assert.match(usage.stderr, /^longhaul-plan: --input needs a value/);
	});
});
