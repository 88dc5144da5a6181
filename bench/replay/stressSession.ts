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

export function stressSession(seed = 15): StressSessionJson {
	const rand = prng(seed);
	const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
	const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
	let callNo = 0;
	const id = () => `call_${String(++callNo).padStart(4, '0')}`;

	// The project: modules under src/acme/<package>/<sub>/, tests mirroring them.
	const modules: string[] = [];
	for (const pkg of PACKAGES) {
		for (let m = 0; m < 7; m++) {
			const sub = m < 3 ? '' : `${pick(['internal', 'backends', 'formats'])}/`;
			modules.push(`src/acme/${pkg}/${sub}${pick(WORDS)}_${pkg}_${m}.py`);
		}
	}
	const testOf = (module: string) => module.replace(/^src\/acme\//, 'tests/unit/').replace(/([^/]+)\.py$/, 'test_$1.py');

	const lines = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i)).join('\n');
	const code = (path: string, from: number, n: number) =>
		lines(
			n,
			i =>
				`${String(from + i).padStart(6)}\t${pick(['    ', '        ', ''])}${pick(['def', 'return', 'if', 'for', 'self.', 'raise'])} ${pick(WORDS)}_${int(0, 99)}(${pick(WORDS)}) # ${path.split('/').pop()}`,
		);
	const returncode = (code: number, output: string) => `<returncode>${code}</returncode>\n<output>\n${output}\n</output>`;
	const openhands = (code: number, output: string) => `${output}\n[The command completed with exit code ${code}.]`;

	const session: StressSessionJson = {
		name: 'synthetic-stress',
		source: 'bench/replay/stressSession.ts (generated, seed ' + seed + ')',
		turns: [],
	};
	const requests = [
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

	const editedFiles = new Set<string>();
	const commandsRun = new Set<string>();
	/** Commands to run again later (possibly with another outcome). */
	const rerun: string[] = [];
	const failing = new Map<string, boolean>();

	const round = (response: string, ...toolCalls: SessionCall[]): SessionRound => ({ response, toolCalls });
	const bash = (command: string, result: string): SessionCall => ({ id: id(), name: 'bash', arguments: JSON.stringify({ command }), result });
	const execute = (command: string, result: string): SessionCall => ({ id: id(), name: 'execute_bash', arguments: JSON.stringify({ command }), result });
	const editor = (args: Record<string, unknown>, result: string): SessionCall => ({
		id: id(),
		name: 'str_replace_editor',
		arguments: JSON.stringify(args),
		result,
	});

	const pytestOutput = (node: string, fails: boolean) => {
		const body = lines(
			int(8, 30),
			i => `${node.split('::')[0]}::test_${pick(WORDS)}_${i} ${fails && i === 3 ? 'FAILED' : 'PASSED'} [${Math.min(100, i * 4)}%]`,
		);
		const tail = fails
			? `\n=================================== FAILURES ===================================\n${lines(int(10, 40), i => `E       AssertionError: expected ${pick(WORDS)}_${i} == ${int(0, 999)}`)}\n=========================== short test summary info ============================\nFAILED ${node} - AssertionError\n========================= 1 failed, ${int(5, 40)} passed in ${(rand() * 9).toFixed(2)}s =========================`
			: `\n========================= ${int(5, 40)} passed in ${(rand() * 9).toFixed(2)}s =========================`;
		return body + tail;
	};

	const commandCall = (command: string, fails: boolean, output: string): SessionCall => {
		commandsRun.add(command);
		failing.set(command, fails);
		const style = rand();
		// Mostly mini-swe-agent's bash; some OpenHands calls, a few of which report no exit status.
		if (style < 0.7) return bash(command, returncode(fails ? int(1, 2) : 0, output));
		if (style < 0.92) return execute(command, openhands(fails ? 1 : 0, output));
		return execute(command, `${output}\n${fails ? `Error: ${pick(WORDS)} ${int(1, 99)} failed` : `done: ${pick(WORDS)} ${int(1, 99)}`}`);
	};

	const readRound = (): SessionRound => {
		const path = pick(modules);
		const from = int(1, 300);
		const n = int(20, 70);
		const style = rand();
		if (style < 0.5) {
			return round(`Let me look at ${path}.`, editor({ command: 'view', path: `/testbed/${path}`, view_range: [from, from + n] }, code(path, from, n)));
		}
		if (style < 0.8) {
			return round(`Reading lines ${from}-${from + n} of ${path}.`, bash(`sed -n '${from},${from + n}p' /testbed/${path}`, returncode(0, code(path, from, n))));
		}
		return round(`Checking ${path} with line numbers.`, bash(`cat -n /testbed/${path} | head -${n}`, returncode(0, code(path, 1, n))));
	};

	const searchRound = (): SessionRound => {
		const word = pick(WORDS);
		const style = rand();
		const hits = lines(int(3, 25), i => `${pick(modules)}:${int(1, 400)}:    ${word}_${i} = ${pick(WORDS)}(${word})`);
		if (style < 0.5) return round(`Searching for ${word}.`, bash(`grep -rn "${word}_" /testbed/src --include=*.py | head -40`, returncode(0, hits)));
		if (style < 0.8) {
			return round(
				'Finding the related files.',
				bash(
					`find /testbed/src -name "*${word}*.py" -not -path "*/__pycache__/*"`,
					returncode(
						0,
						lines(int(2, 12), () => `/testbed/${pick(modules)}`),
					),
				),
			);
		}
		return round(
			'Listing the package.',
			bash(
				`ls -la /testbed/src/acme/${pick(PACKAGES)}`,
				returncode(
					0,
					lines(int(5, 15), i => `-rw-r--r-- 1 root root ${int(200, 9000)} Jan  1 00:0${i % 10} ${pick(WORDS)}_${i}.py`),
				),
			),
		);
	};

	const editRound = (): SessionRound => {
		const style = rand();
		const path = rand() < 0.75 ? pick(modules) : testOf(pick(modules));
		const abs = `/testbed/${path}`;
		if (style < 0.12) {
			// A failed replacement: nothing changes.
			return round(
				`Replacing the ${pick(WORDS)} handling in ${path}.`,
				editor(
					{ command: 'str_replace', path: abs, old_str: `${pick(WORDS)}_${int(0, 99)}`, new_str: 'x' },
					`ERROR: No replacement was performed, old_str \`${pick(WORDS)}\` did not appear verbatim in ${abs}.`,
				),
			);
		}
		editedFiles.add(path);
		if (style < 0.6) {
			const snippet = code(path, int(1, 200), int(4, 12));
			return round(
				`Updating ${path}.`,
				editor(
					{ command: 'str_replace', path: abs, old_str: `${pick(WORDS)}_${int(0, 99)}`, new_str: snippet },
					`The file ${abs} has been edited. Here's the result of running \`cat -n\` on a snippet of ${abs}:\n${snippet}\nReview the changes and make sure they are as expected.`,
				),
			);
		}
		if (style < 0.75) {
			return round(
				`Creating ${path}.`,
				editor({ command: 'create', path: abs, file_text: code(path, 1, int(10, 40)) }, `File created successfully at: ${abs}`),
			);
		}
		if (style < 0.88) return round(`A quick sed fix in ${path}.`, bash(`sed -i 's/${pick(WORDS)}_old/${pick(WORDS)}_new/g' ${abs}`, returncode(0, '')));
		return round(`Rewriting ${path} with a heredoc.`, bash(`cat > ${abs} <<'EOF'\n${code(path, 1, int(5, 20))}\nEOF`, returncode(0, '')));
	};

	const newCommand = (): string => {
		const style = rand();
		const module = pick(modules);
		const test = testOf(module);
		if (style < 0.35) {
			return `cd /testbed && python -m pytest ${test}::Test${pick(WORDS)[0].toUpperCase()}${pick(WORDS)}::test_${pick(WORDS)}_${int(0, 99)} -x -q`;
		}
		if (style < 0.5) return `python -m pytest ${test} -k "${pick(WORDS)} and not slow" -q 2>&1 | tail -30`;
		if (style < 0.65) {
			const mod = module
				.replace(/^src\//, '')
				.replace(/\.py$/, '')
				.replace(/\//g, '.');
			return `cd /testbed && python -c "import ${mod} as m; r = m.${pick(WORDS)}_${int(0, 99)}(m.${pick(WORDS)}('${pick(WORDS)}'), strict=True); print(type(r).__name__, r)"`;
		}
		if (style < 0.72) return `python /testbed/reproduce_${pick(WORDS)}_${int(0, 99)}.py`;
		if (style < 0.78) return `pip install -e /testbed[${pick(['dev', 'test', 'docs', 'sqlite'])}] 2>&1 | tail -5`;
		if (style < 0.84) return `flake8 /testbed/${module} --max-line-length=100`;
		if (style < 0.9) return `mypy /testbed/${module} --ignore-missing-imports`;
		if (style < 0.94) return `git -C /testbed stash ${pick(['push -m wip', 'pop'])}`;
		return `make -C /testbed ${pick(['lint', 'test', 'build', 'docs', 'clean'])} JOBS=${int(1, 8)}`;
	};

	const commandRound = (): SessionRound => {
		// A third of the time, run an earlier command again: its outcome may change.
		const again = rerun.length > 0 && rand() < 0.33;
		const command = again ? pick(rerun) : newCommand();
		if (!again && rand() < 0.5) rerun.push(command);
		const fails = again ? (failing.get(command) ? rand() < 0.4 : rand() < 0.1) : rand() < 0.45;
		const output = command.includes('pytest')
			? pytestOutput(command.split(' ').find(w => w.startsWith('tests/')) ?? 'tests', fails)
			: lines(int(3, 25), i => `${pick(WORDS)}: ${pick(WORDS)} ${i} ${fails && i > 1 ? 'error' : 'ok'}`);
		return round(again ? `Running \`${command.slice(0, 40)}\` again after the change.` : 'Let me run this.', commandCall(command, fails, output));
	};

	for (const user of requests) {
		const rounds: SessionRound[] = [];
		const count = int(40, 48);
		for (let r = 0; r < count; r++) {
			const kind = rand();
			const made = kind < 0.2 ? readRound() : kind < 0.32 ? searchRound() : kind < 0.53 ? editRound() : commandRound();
			// Now and then two calls in one round.
			if (rand() < 0.1) made.toolCalls.push(...commandRound().toolCalls);
			rounds.push(made);
		}
		session.turns.push({ user, rounds });
	}
	return session;
}

/** What the session holds, for the printed report. */
export function stressStats(session: StressSessionJson): { calls: number; commands: number; editedFiles: number; turns: number } {
	const calls = session.turns.flatMap(t => t.rounds.flatMap(r => r.toolCalls));
	const commands = new Set<string>();
	const edited = new Set<string>();
	for (const c of calls) {
		const args = JSON.parse(c.arguments) as { command?: string; path?: string };
		if (c.name === 'str_replace_editor' && args.command !== 'view' && !c.result.startsWith('ERROR')) edited.add(args.path!);
		else if (typeof args.command === 'string' && c.name !== 'str_replace_editor') {
			const sed = /^sed -i .* (\S+)$/.exec(args.command);
			const heredoc = /^cat > (\S+) <</.exec(args.command);
			if (sed) edited.add(sed[1]);
			else if (heredoc) edited.add(heredoc[1]);
			else if (!/^(sed -n|cat -n|grep|find|ls) /.test(args.command)) commands.add(args.command);
		}
	}
	return { calls: calls.length, commands: commands.size, editedFiles: edited.size, turns: session.turns.length };
}

if (require.main === module) {
	process.stdout.write(JSON.stringify(stressSession(), null, 1) + '\n');
}
