// The command-line conventions both tools share (src/cli/commandLine.ts): how options are read,
// what each mistake says, and which exit code each outcome gets.
import * as assert from 'node:assert/strict';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, parseTokenCount, readCommandLine, stopMessage, UsageError } from '../../../src/cli/commandLine';

const KINDS = { input: 'string', window: 'string', json: 'boolean', 'no-ledger': 'boolean' } as const;
const read = (...argv: string[]) => readCommandLine(argv, KINDS);
const usageMessage = (argv: string[]) => {
	try {
		read(...argv);
	} catch (error) {
		assert.ok(error instanceof UsageError, `${argv.join(' ')}: ${String(error)}`);
		return error.message;
	}
	assert.fail(`${argv.join(' ')} was accepted`);
};

describe('command-line conventions (commandLine)', () => {
	it('reads --name value and --name=value alike; flags are true; options not given are absent', () => {
		assert.deepEqual(read('--input', 'a.json', '--json'), { input: 'a.json', json: true });
		assert.deepEqual(read('--input=a.json', '--window=16k', '--no-ledger'), { input: 'a.json', window: '16k', 'no-ledger': true });
		assert.deepEqual(read(), {});
	});

	it('keeps a value as written: with spaces, with "=", empty after "=", or starting with a dash after "="', () => {
		assert.deepEqual(read('--input', 'my file.json'), { input: 'my file.json' });
		assert.deepEqual(read('--input=a=b'), { input: 'a=b' });
		assert.deepEqual(read('--input='), { input: '' });
		assert.deepEqual(read('--input=-dash.json'), { input: '-dash.json' });
	});

	it('the last of a repeated option wins', () => {
		assert.deepEqual(read('--window', '8k', '--window=16k'), { window: '16k' });
	});

	it('--help or -h anywhere asks for the usage', () => {
		assert.equal(read('--help'), 'help');
		assert.equal(read('--input', 'x', '-h'), 'help');
	});

	it('each mistake is a UsageError that names the option', () => {
		assert.match(usageMessage(['--verbose']), /^unknown option --verbose$/);
		assert.match(usageMessage(['--verbose=1']), /^unknown option --verbose$/);
		assert.match(usageMessage(['-x']), /^unknown option -x$/);
		assert.match(usageMessage(['--input']), /^--input needs a value$/);
		assert.match(usageMessage(['--input', '--json']), /^--input needs a value$/, 'the next option is not taken as the value');
		assert.match(usageMessage(['--json=yes']), /^--json takes no value \(got "yes"\)$/);
		assert.match(usageMessage(['stray.json']), /^unexpected argument "stray.json"/);
		assert.match(usageMessage(['--input', 'a', '--', 'b']), /^unexpected argument "b"/);
	});

	it('refuses "help" as an option of its own: it is always --help', () => {
		assert.throws(() => readCommandLine([], { help: 'string' }), /reserved/);
	});

	it('parseTokenCount reads 16000, 16k and 12.5k, and refuses anything under 1000 tokens with a message naming the option', () => {
		assert.equal(parseTokenCount('--window', '16000'), 16_000);
		assert.equal(parseTokenCount('--window', '16k'), 16_000);
		assert.equal(parseTokenCount('--window', '12.5K'), 12_500);
		assert.equal(parseTokenCount('--window', ' 1000 '), 1000);
		for (const text of ['big', '500', '0.5k', '', '-16k', '16 k']) {
			assert.throws(
				() => parseTokenCount('--window', text),
				(e: unknown) =>
					e instanceof UsageError && e.message === `--window must be a number of tokens of at least 1000, such as 16000 or 16k; got ${JSON.stringify(text)}`,
				text,
			);
		}
	});

	it('exit codes: 0 done, 1 failure, 2 usage; a usage mistake points to --help, a failure shows what went wrong', () => {
		assert.deepEqual([EXIT_OK, EXIT_FAILURE, EXIT_USAGE], [0, 1, 2]);
		assert.deepEqual(stopMessage('tool', new UsageError('unknown option --x')), {
			stderr: 'tool: unknown option --x\nRun tool --help for the options.\n',
			exitCode: EXIT_USAGE,
		});
		const failure = stopMessage('tool', new Error('ENOENT: no such file'));
		assert.equal(failure.exitCode, EXIT_FAILURE);
		assert.match(failure.stderr, /^tool: Error: ENOENT: no such file\n/);
		assert.deepEqual(stopMessage('tool', 'plain'), { stderr: 'tool: plain\n', exitCode: EXIT_FAILURE });
		assert.equal(stopMessage('bench', new UsageError('x'), 'npm run bench -- --help').stderr, 'bench: x\nRun npm run bench -- --help for the options.\n');
	});
});
