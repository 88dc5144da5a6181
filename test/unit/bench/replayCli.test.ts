// The replay benchmark's command line (bench/replay/main.ts): the options it reads, what it refuses
// and its exit codes, the conventions longhaul-plan shares (src/cli/commandLine.ts). Nothing here
// replays a session; the replays are tested in test/bench/.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from '../../../src/cli/commandLine';
import { parseArgs, parseWindow, USAGE, type CliArgs } from '../../../bench/replay/main';
import { STRATEGIES } from '../../../bench/replay/replay';

const MAIN = join(__dirname, '../../../bench/replay/main.js');
const parsed = (...argv: string[]): CliArgs => {
	const args = parseArgs(argv);
	assert.notEqual(args, 'help');
	return args as CliArgs;
};
const refusal = (argv: string[]): string => {
	try {
		parseArgs(argv);
	} catch (error) {
		assert.ok(error instanceof UsageError, String(error));
		return error.message;
	}
	assert.fail(`${argv.join(' ')} was accepted`);
};

describe('replay benchmark command line', () => {
	it('without options: the whole corpus, every window and strategy, with the ledger and calibration', () => {
		const saved = process.env.LONGHAUL_CORPUS;
		process.env.LONGHAUL_CORPUS = '/corpus/from/env';
		try {
			assert.deepEqual(parsed(), {
				corpus: '/corpus/from/env',
				session: undefined,
				window: undefined,
				strategy: undefined,
				json: false,
				out: resolve('bench/results'),
				ledger: true,
				ledgerLive: false,
				stress: false,
				variants: false,
				concat: false,
				modelTokenRatio: undefined,
				calibrate: true,
				summarizerFaults: 0,
				clock: 'field',
				summaryInformation: 30,
				rateLimits: 0.02,
				provider: 'cloud',
				background: true,
			});
		} finally {
			if (saved === undefined) delete process.env.LONGHAUL_CORPUS;
			else process.env.LONGHAUL_CORPUS = saved;
		}
	});

	it('reads every option, as --name value or --name=value', () => {
		const spaced = parsed(
			...['--corpus', 'c', '--session', 's.json', '--window', '16k', '--strategy', 'legacy', '--json', '--no-ledger', '--ledger-live'],
			...['--stress', '--variants', '--model-token-ratio', '1.25', '--no-calibration', '--out', 'o', '--half-split', 'rounds', '--clock', 'slow'],
			...['--summarizer-faults', '0.2', '--summary-information', 'copying', '--rate-limits', '0', '--provider', 'single-slot', '--no-background'],
		);
		assert.deepEqual(spaced, {
			corpus: resolve('c'),
			session: resolve('s.json'),
			window: 16_000,
			strategy: 'legacy',
			json: true,
			out: resolve('o'),
			ledger: false,
			ledgerLive: true,
			stress: true,
			variants: true,
			concat: false,
			halfSplit: 'rounds',
			modelTokenRatio: 1.25,
			calibrate: false,
			summarizerFaults: 0.2,
			clock: 'slow',
			summaryInformation: 'copying',
			rateLimits: 0,
			provider: 'single-slot',
			background: false,
		});
		const inline = parsed(
			...['--corpus=c', '--session=s.json', '--window=16k', '--strategy=legacy', '--json', '--no-ledger', '--ledger-live'],
			...['--stress', '--variants', '--model-token-ratio=1.25', '--no-calibration', '--out=o', '--half-split=rounds', '--clock=slow'],
			...['--summarizer-faults=0.2', '--summary-information=copying', '--rate-limits=0', '--provider=single-slot', '--no-background'],
		);
		assert.equal(parsed('--summary-information', '60').summaryInformation, 60);
		assert.deepEqual(inline, spaced);
		assert.equal(parsed('--concat', '--window', '16k', '--strategy', 'legacy', '--json', '--half-split', 'rounds').halfSplit, 'rounds');
	});

	it('parses windows as 16000 or 16k, at least 1000 tokens', () => {
		assert.equal(parseWindow('16k'), 16_000);
		assert.equal(parseWindow('32000'), 32_000);
		assert.throws(() => parseWindow('big'), /--window must be a number of tokens of at least 1000/);
		assert.throws(() => parseWindow('900'), UsageError);
	});

	it('refuses bad values and combinations with a message naming the option', () => {
		assert.match(refusal(['--strategy', 'nope']), /^--strategy must be one of legacy, /);
		assert.match(refusal(['--model-token-ratio', '9']), /^--model-token-ratio must be a number between 0.5 and 4; got "9"$/);
		assert.match(refusal(['--half-split', 'words']), /^--half-split must be tokens or rounds/);
		assert.match(refusal(['--summarizer-faults', '1.5']), /^--summarizer-faults must be a number between 0 and 1; got "1.5"$/);
		assert.match(refusal(['--clock', 'sundial']), /^--clock must be one of field, fast, slow, test, none/);
		assert.match(refusal(['--summary-information', '101']), /^--summary-information must be a number between 0 and 100, or copying; got "101"$/);
		assert.match(refusal(['--rate-limits', '2']), /^--rate-limits must be a number between 0 and 1; got "2"$/);
		assert.match(refusal(['--provider', 'two']), /^--provider must be one of cloud, single-slot; got "two"$/);
		assert.match(refusal(['--json', '--window', '16k']), /^--json needs --session FILE \(or --concat\), --window N and --strategy NAME$/);
		assert.match(refusal(['--concat', '--session', 'a.json']), /^--concat plays the whole corpus/);
		assert.match(refusal(['--no-calibration']), /^--no-calibration needs --model-token-ratio R$/);
		assert.match(refusal(['--windows', '16k']), /^unknown option --windows$/);
		assert.match(refusal(['--session']), /^--session needs a value$/);
		assert.match(refusal(['session.json']), /^unexpected argument "session.json"/);
	});

	it('the usage names every option and every strategy', () => {
		for (const option of ['--corpus', '--session', '--window', '--strategy', '--json', '--no-ledger', '--ledger-live', '--model-token-ratio']) {
			assert.ok(USAGE.includes(option), option);
		}
		for (const option of ['--no-calibration', '--summarizer-faults', '--concat', '--half-split', '--stress', '--variants', '--clock', '--out', '--help']) {
			assert.ok(USAGE.includes(option), option);
		}
		for (const option of ['--summary-information', '--rate-limits', '--provider', '--no-background']) {
			assert.ok(USAGE.includes(option), option);
		}
		for (const strategy of STRATEGIES) assert.ok(USAGE.includes(strategy), strategy);
		assert.equal(parseArgs(['--window', '16k', '-h']), 'help');
	});

	it('the built script: --help prints the usage and exits 0; a usage mistake exits 2 with the message on stderr and nothing on stdout', () => {
		const help = spawnSync(process.execPath, [MAIN, '--help'], { encoding: 'utf8' });
		assert.equal(help.status, EXIT_OK, help.stderr);
		assert.equal(help.stdout, USAGE + '\n');
		const wrong = spawnSync(process.execPath, [MAIN, '--window', 'big'], { encoding: 'utf8' });
		assert.equal(wrong.status, EXIT_USAGE);
		assert.equal(wrong.stdout, '');
		assert.equal(
			wrong.stderr,
			'bench: --window must be a number of tokens of at least 1000, such as 16000 or 16k; got "big"\nRun npm run bench -- --help for the options.\n',
		);
		const missing = spawnSync(process.execPath, [MAIN, '--session', '/no/such/session.json', '--window', '16k', '--strategy', 'legacy', '--json'], {
			encoding: 'utf8',
		});
		assert.equal(missing.status, EXIT_FAILURE, 'a session that cannot be read is a failure, not a usage mistake');
		assert.match(missing.stderr, /^bench: .*no such file/i);
		assert.equal(missing.stdout, '');
	});
});
