// Times the done-ledger: rendering ledgers of 200, 2,000 and 20,000 facts under the bound of a 16k
// and of a 200k window, and decoding them from stored JSON. Prints medians; asserts nothing
// (timings vary by machine). Target: rendering 20,000 facts in under 50 ms.
// Run: npm run bench:ledger
//
// Two shapes per size: a session mix (reads, edits, commands with outcomes, searches, a few other
// calls; commands long enough to be shortened) and the case, a ledger of reads only.
// 'first' is one render with a fresh token cache (every line counted for the first time); 'again'
// is the median of later renders of the same ledger (the cache holds its lines). 'cpu' is the
// process CPU time of the 'again' renders (user + system), which a busy machine inflates less
// than the wall-clock times.
import { cpus } from 'node:os';
import type { DoneLedger, LedgerCall, LedgerCommand, LedgerEdit, LedgerRead } from '../../src/common/ledger/doneLedger';
import { decodeDoneLedger } from '../../src/common/ledger/doneLedgerCodec';
import { doneLedgerCaps, renderDoneLedger } from '../../src/common/ledger/doneLedgerRender';
import { computeBudget } from '../../src/common/tokens/budget';
import { TiktokenTokenizer } from '../../src/common/tokens/tokenizer';

const SIZES = [200, 2_000, 20_000];
const RUNS = 9;

export function sessionMix(facts: number): DoneLedger {
	const reads: LedgerRead[] = [];
	const edits: LedgerEdit[] = [];
	const commands: LedgerCommand[] = [];
	const searches: LedgerCall[] = [];
	const others: LedgerCall[] = [];
	for (let i = 0; i < facts; i++) {
		const stamp = { last: i + 1, round: `r${Math.floor(i / 3)}` };
		const dir = `src/pkg${i % 23}/sub${i % 7}`;
		switch (i % 10) {
			case 0:
			case 1:
			case 2:
			case 3:
				reads.push({ path: `${dir}/module_${i}.py`, count: 1 + (i % 4), ...stamp });
				break;
			case 4:
			case 5:
				edits.push({ path: `${dir}/edited_${i}.py`, count: 1 + (i % 3), failed: i % 11 === 0 ? 1 : 0, created: i % 13 === 0, ...stamp });
				break;
			case 6:
			case 7:
				commands.push({
					command:
						i % 4 === 2
							? `python -m pytest tests/${dir}/test_module_${i}.py::TestCase${i % 17}::test_behaviour_${i} -x -q --tb=short`
							: `python -c "import pkg${i % 23}; print(pkg${i % 23}.run(${i}, verbose=True))"`,
					count: 1 + (i % 5),
					outcome: i % 9 === 0 ? `no exit status; last line: Traceback (most recent call last): error ${i}` : `exit ${i % 3 === 0 ? 1 : 0}`,
					failed: i % 3 === 0,
					...stamp,
				});
				break;
			case 8:
				searches.push({ tool: 'search', digest: `search "def handler_${i}" in ${dir}`, count: 1, ...stamp });
				break;
			default:
				others.push({ tool: `mcp_tool_${i % 5}`, digest: `id=${i} mode="fast"`, count: 1, ...stamp });
		}
	}
	return { requests: ['Make the failing tests pass.', 'Now clean up the module layout.'], reads, edits, commands, searches, others, steps: facts };
}

export function readsOnly(facts: number): DoneLedger {
	return {
		requests: ['Read through the code base.'],
		reads: Array.from({ length: facts }, (_, i) => ({ path: `src/m${i % 50}/f${i}.ts`, count: 1 + (i % 3), last: i + 1, round: `r${i}` })),
		edits: [],
		commands: [],
		searches: [],
		others: [],
		steps: facts,
	};
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms`;

function main(): void {
	// The encoder itself is built once per process (about half a second): not part of any render.
	new TiktokenTokenizer().countTokens('warm up the encoder');
	const windows = [16_000, 200_000];
	console.log(`done-ledger render and decode, node ${process.version}, ${cpus().length} cpus, medians of ${RUNS}`);
	console.log('shape        facts   window  bound  tokens   first    again      cpu   decode');
	for (const [name, make] of [
		['session mix', sessionMix],
		['reads only', readsOnly],
	] as const) {
		for (const facts of SIZES) {
			const ledger = make(facts);
			const stored = JSON.parse(JSON.stringify(ledger)) as unknown;
			for (const window of windows) {
				const caps = doneLedgerCaps(computeBudget(window, 0).messages);
				const bound = caps.maxTokens;
				const firsts: number[] = [];
				const agains: number[] = [];
				const cpus: number[] = [];
				let text: string;
				let tokens = 0;
				for (let run = 0; run < RUNS; run++) {
					const tokenizer = new TiktokenTokenizer();
					const countTokens = (t: string) => tokenizer.countTokens(t);
					let t0 = performance.now();
					text = renderDoneLedger(ledger, { ...caps, countTokens });
					firsts.push(performance.now() - t0);
					t0 = performance.now();
					const cpu0 = process.cpuUsage();
					renderDoneLedger(ledger, { ...caps, countTokens });
					const cpu = process.cpuUsage(cpu0);
					agains.push(performance.now() - t0);
					cpus.push((cpu.user + cpu.system) / 1000);
					tokens = countTokens(text);
				}
				const decodes: number[] = [];
				for (let run = 0; run < RUNS; run++) {
					const t0 = performance.now();
					const decoded = decodeDoneLedger(stored, 'doneLedger');
					decodes.push(performance.now() - t0);
					if (!decoded.ledger) throw new Error(`decoding failed: ${decoded.issue?.message}`);
				}
				console.log(
					`${name.padEnd(11)} ${String(facts).padStart(6)} ${String(window).padStart(8)} ${String(bound).padStart(6)} ${String(tokens).padStart(7)} ${ms(median(firsts)).padStart(8)} ${ms(median(agains)).padStart(8)} ${ms(median(cpus)).padStart(8)} ${ms(median(decodes)).padStart(8)}`,
				);
			}
		}
	}
}

if (require.main === module) main();
