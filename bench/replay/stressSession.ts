// A synthetic long session for the continuity benchmark: deterministic (seeded), in the
// shape of shared/corpus/*.json, bigger than any recorded session: 9 user requests, 380+ tool
// calls, 130+ distinct commands, 60+ edited files. It is built to be hard for the done-ledger,
// not kind to it: long commands that share their start (python -c snippets, pytest node ids in
// deep test trees), commands re-run later with another outcome (only the latest counts), commands
// without an exit status (their last output line is the outcome), failed edits, files edited by
// three different means (editor tool, sed -i, heredoc), tool results of 0.5–4k characters so that
// small windows compact often, and the two result conventions of the corpus (mini-swe-agent's
// <returncode> and OpenHands' "[The command completed with exit code N.]").
//
//   npm run bench -- --stress          replays it at every window and strategy (bench/replay/main.ts)
//   node out/bench/replay/stressSession.js > stress.json    writes it

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

interface SessionCall {
	id: string;
	name: string;
	arguments: string;
	result: string;
}
interface SessionRound {
	response: string;
	toolCalls: SessionCall[];
}
export interface StressSessionJson {
	name: string;
	source: string;
	turns: { user: string; rounds: SessionRound[] }[];
}

const PACKAGES = ['core', 'io', 'parsers', 'schema', 'cli', 'plugins', 'net', 'storage', 'utils', 'compat', 'render'];
const WORDS = ['token', 'buffer', 'reader', 'writer', 'schema', 'field', 'record', 'cursor', 'session', 'config', 'loader', 'codec', 'index', 'cache', 'queue'];

const REQUESTS = [
	'The CSV importer in acme drops the last record when the file does not end with a newline, and the JSON exporter writes NaN for missing decimals. Fix both, add regression tests, and keep the public API unchanged.',
	'Now the plugin loader: entry points registered twice are loaded twice. Deduplicate them by name and make the error message say which distribution registered the duplicate.',
	'Run the whole unit suite and fix whatever the last two changes broke. Do not skip tests.',
	'Refactor storage/backends so that every backend implements the same `open`/`close`/`flush` protocol; the SQLite backend currently leaks a connection on error.',
	'The CLI needs a --dry-run flag for the `sync` command that prints what would change without writing anything. Add it with tests.',
	'Performance: parsing a 50 MB file takes 40 s. Profile the parsers package and remove the quadratic string concatenation you find.',
	'Compat layer: drop support for the deprecated `acme.compat.legacy_reader` module, but keep a shim that warns once.',
	'Update the schema validation so that nested optional fields accept null, and document it in the docstrings.',
	'Final pass: run flake8 and mypy on everything you touched, fix the findings, and run the full test suite one last time.',
];

const testOf = (module: string) => module.replace(/^src\/acme\//, 'tests/unit/').replace(/([^/]+)\.py$/, 'test_$1.py');
const lines = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i)).join('\n');
const returncode = (code: number, output: string) => `<returncode>${code}</returncode>\n<output>\n${output}\n</output>`;
const openhands = (code: number, output: string) => `${output}\n[The command completed with exit code ${code}.]`;
const round = (response: string, ...toolCalls: SessionCall[]): SessionRound => ({ response, toolCalls });

/**
 * Makes the session from one PRNG stream. Every random choice goes through `rand`, so the order of
 * the calls below is the session: reordering them changes every seed's output.
 */
class StressBuilder {
	private readonly rand: () => number;
	private callNo = 0;
	/** The project: modules under src/acme/<package>/<sub>/, tests mirroring them. */
	private readonly modules: string[] = [];
	/** Commands to run again later (possibly with another outcome). */
	private readonly rerun: string[] = [];
	/** Whether each command run so far failed the last time. */
	private readonly failing = new Map<string, boolean>();

	constructor(seed: number) {
		this.rand = prng(seed);
		for (const pkg of PACKAGES) {
			for (let m = 0; m < 7; m++) {
				const sub = m < 3 ? '' : `${this.pick(['internal', 'backends', 'formats'])}/`;
				this.modules.push(`src/acme/${pkg}/${sub}${this.pick(WORDS)}_${pkg}_${m}.py`);
			}
		}
	}

	/** One user request per turn, each answered by 40 to 48 rounds of tool calls. */
	turns(): StressSessionJson['turns'] {
		return REQUESTS.map(user => ({ user, rounds: this.rounds() }));
	}

	private rounds(): SessionRound[] {
		const rounds: SessionRound[] = [];
		const count = this.int(40, 48);
		for (let r = 0; r < count; r++) {
			const kind = this.rand();
			const made = kind < 0.2 ? this.readRound() : kind < 0.32 ? this.searchRound() : kind < 0.53 ? this.editRound() : this.commandRound();
			// Now and then two calls in one round.
			if (this.rand() < 0.1) made.toolCalls.push(...this.commandRound().toolCalls);
			rounds.push(made);
		}
		return rounds;
	}

	private pick<T>(list: readonly T[]): T {
		return list[Math.floor(this.rand() * list.length)];
	}

	private int(lo: number, hi: number): number {
		return lo + Math.floor(this.rand() * (hi - lo + 1));
	}

	private id(): string {
		return `call_${String(++this.callNo).padStart(4, '0')}`;
	}

	private code(path: string, from: number, n: number): string {
		return lines(
			n,
			i =>
				`${String(from + i).padStart(6)}\t${this.pick(['    ', '        ', ''])}${this.pick(['def', 'return', 'if', 'for', 'self.', 'raise'])} ${this.pick(WORDS)}_${this.int(0, 99)}(${this.pick(WORDS)}) # ${path.split('/').pop()}`,
		);
	}

	private bash(command: string, result: string): SessionCall {
		return { id: this.id(), name: 'bash', arguments: JSON.stringify({ command }), result };
	}

	private execute(command: string, result: string): SessionCall {
		return { id: this.id(), name: 'execute_bash', arguments: JSON.stringify({ command }), result };
	}

	private editor(args: Record<string, unknown>, result: string): SessionCall {
		return { id: this.id(), name: 'str_replace_editor', arguments: JSON.stringify(args), result };
	}

	private pytestOutput(node: string, fails: boolean): string {
		const body = lines(
			this.int(8, 30),
			i => `${node.split('::')[0]}::test_${this.pick(WORDS)}_${i} ${fails && i === 3 ? 'FAILED' : 'PASSED'} [${Math.min(100, i * 4)}%]`,
		);
		const tail = fails
			? `\n=================================== FAILURES ===================================\n${lines(this.int(10, 40), i => `E       AssertionError: expected ${this.pick(WORDS)}_${i} == ${this.int(0, 999)}`)}\n=========================== short test summary info ============================\nFAILED ${node} - AssertionError\n========================= 1 failed, ${this.int(5, 40)} passed in ${(this.rand() * 9).toFixed(2)}s =========================`
			: `\n========================= ${this.int(5, 40)} passed in ${(this.rand() * 9).toFixed(2)}s =========================`;
		return body + tail;
	}

	private commandCall(command: string, fails: boolean, output: string): SessionCall {
		this.failing.set(command, fails);
		const style = this.rand();
		// Mostly mini-swe-agent's bash; some OpenHands calls, a few of which report no exit status.
		if (style < 0.7) return this.bash(command, returncode(fails ? this.int(1, 2) : 0, output));
		if (style < 0.92) return this.execute(command, openhands(fails ? 1 : 0, output));
		return this.execute(
			command,
			`${output}\n${fails ? `Error: ${this.pick(WORDS)} ${this.int(1, 99)} failed` : `done: ${this.pick(WORDS)} ${this.int(1, 99)}`}`,
		);
	}

	private readRound(): SessionRound {
		const path = this.pick(this.modules);
		const from = this.int(1, 300);
		const n = this.int(20, 70);
		const style = this.rand();
		if (style < 0.5) {
			return round(
				`Let me look at ${path}.`,
				this.editor({ command: 'view', path: `/testbed/${path}`, view_range: [from, from + n] }, this.code(path, from, n)),
			);
		}
		if (style < 0.8) {
			return round(
				`Reading lines ${from}-${from + n} of ${path}.`,
				this.bash(`sed -n '${from},${from + n}p' /testbed/${path}`, returncode(0, this.code(path, from, n))),
			);
		}
		return round(`Checking ${path} with line numbers.`, this.bash(`cat -n /testbed/${path} | head -${n}`, returncode(0, this.code(path, 1, n))));
	}

	private searchRound(): SessionRound {
		const word = this.pick(WORDS);
		const style = this.rand();
		const hits = lines(this.int(3, 25), i => `${this.pick(this.modules)}:${this.int(1, 400)}:    ${word}_${i} = ${this.pick(WORDS)}(${word})`);
		if (style < 0.5) return round(`Searching for ${word}.`, this.bash(`grep -rn "${word}_" /testbed/src --include=*.py | head -40`, returncode(0, hits)));
		if (style < 0.8) {
			const found = lines(this.int(2, 12), () => `/testbed/${this.pick(this.modules)}`);
			return round('Finding the related files.', this.bash(`find /testbed/src -name "*${word}*.py" -not -path "*/__pycache__/*"`, returncode(0, found)));
		}
		const listCommand = `ls -la /testbed/src/acme/${this.pick(PACKAGES)}`;
		const listing = lines(this.int(5, 15), i => `-rw-r--r-- 1 root root ${this.int(200, 9000)} Jan  1 00:0${i % 10} ${this.pick(WORDS)}_${i}.py`);
		return round('Listing the package.', this.bash(listCommand, returncode(0, listing)));
	}

	private editRound(): SessionRound {
		const style = this.rand();
		const path = this.rand() < 0.75 ? this.pick(this.modules) : testOf(this.pick(this.modules));
		const abs = `/testbed/${path}`;
		if (style < 0.12) {
			// A failed replacement: nothing changes.
			return round(
				`Replacing the ${this.pick(WORDS)} handling in ${path}.`,
				this.editor(
					{ command: 'str_replace', path: abs, old_str: `${this.pick(WORDS)}_${this.int(0, 99)}`, new_str: 'x' },
					`ERROR: No replacement was performed, old_str \`${this.pick(WORDS)}\` did not appear verbatim in ${abs}.`,
				),
			);
		}
		if (style < 0.6) {
			const snippet = this.code(path, this.int(1, 200), this.int(4, 12));
			return round(
				`Updating ${path}.`,
				this.editor(
					{ command: 'str_replace', path: abs, old_str: `${this.pick(WORDS)}_${this.int(0, 99)}`, new_str: snippet },
					`The file ${abs} has been edited. Here's the result of running \`cat -n\` on a snippet of ${abs}:\n${snippet}\nReview the changes and make sure they are as expected.`,
				),
			);
		}
		if (style < 0.75) {
			return round(
				`Creating ${path}.`,
				this.editor({ command: 'create', path: abs, file_text: this.code(path, 1, this.int(10, 40)) }, `File created successfully at: ${abs}`),
			);
		}
		if (style < 0.88) {
			return round(`A quick sed fix in ${path}.`, this.bash(`sed -i 's/${this.pick(WORDS)}_old/${this.pick(WORDS)}_new/g' ${abs}`, returncode(0, '')));
		}
		return round(`Rewriting ${path} with a heredoc.`, this.bash(`cat > ${abs} <<'EOF'\n${this.code(path, 1, this.int(5, 20))}\nEOF`, returncode(0, '')));
	}

	private newCommand(): string {
		const style = this.rand();
		const module = this.pick(this.modules);
		const test = testOf(module);
		if (style < 0.35) {
			return `cd /testbed && python -m pytest ${test}::Test${this.pick(WORDS)[0].toUpperCase()}${this.pick(WORDS)}::test_${this.pick(WORDS)}_${this.int(0, 99)} -x -q`;
		}
		if (style < 0.5) return `python -m pytest ${test} -k "${this.pick(WORDS)} and not slow" -q 2>&1 | tail -30`;
		if (style < 0.65) {
			const mod = module
				.replace(/^src\//, '')
				.replace(/\.py$/, '')
				.replace(/\//g, '.');
			return `cd /testbed && python -c "import ${mod} as m; r = m.${this.pick(WORDS)}_${this.int(0, 99)}(m.${this.pick(WORDS)}('${this.pick(WORDS)}'), strict=True); print(type(r).__name__, r)"`;
		}
		if (style < 0.72) return `python /testbed/reproduce_${this.pick(WORDS)}_${this.int(0, 99)}.py`;
		if (style < 0.78) return `pip install -e /testbed[${this.pick(['dev', 'test', 'docs', 'sqlite'])}] 2>&1 | tail -5`;
		if (style < 0.84) return `flake8 /testbed/${module} --max-line-length=100`;
		if (style < 0.9) return `mypy /testbed/${module} --ignore-missing-imports`;
		if (style < 0.94) return `git -C /testbed stash ${this.pick(['push -m wip', 'pop'])}`;
		return `make -C /testbed ${this.pick(['lint', 'test', 'build', 'docs', 'clean'])} JOBS=${this.int(1, 8)}`;
	}

	private commandRound(): SessionRound {
		// A third of the time, run an earlier command again: its outcome may change.
		const again = this.rerun.length > 0 && this.rand() < 0.33;
		const command = again ? this.pick(this.rerun) : this.newCommand();
		if (!again && this.rand() < 0.5) this.rerun.push(command);
		const fails = again ? (this.failing.get(command) ? this.rand() < 0.4 : this.rand() < 0.1) : this.rand() < 0.45;
		const output = command.includes('pytest')
			? this.pytestOutput(command.split(' ').find(w => w.startsWith('tests/')) ?? 'tests', fails)
			: lines(this.int(3, 25), i => `${this.pick(WORDS)}: ${this.pick(WORDS)} ${i} ${fails && i > 1 ? 'error' : 'ok'}`);
		return round(again ? `Running \`${command.slice(0, 40)}\` again after the change.` : 'Let me run this.', this.commandCall(command, fails, output));
	}
}

export function stressSession(seed = 15): StressSessionJson {
	const builder = new StressBuilder(seed);
	return {
		name: 'synthetic-stress',
		source: 'bench/replay/stressSession.ts (generated, seed ' + seed + ')',
		turns: builder.turns(),
	};
}

if (require.main === module) {
	process.stdout.write(JSON.stringify(stressSession(), null, 1) + '\n');
}
