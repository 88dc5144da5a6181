// Times the summarization planners on conversations of 50, 1,000 and 10,000 rounds.
// Prints medians of many runs after a warm-up; it asserts nothing (timings vary by machine).
// Run: npm run bench:plan      Target: 10,000 rounds in under 10 ms.
import { cpus } from 'node:os';
import type { Conversation, Round, Turn } from '../../src/common/conversation/conversation';
import { flattenRounds } from '../../src/common/conversation/flatten';
import { planHalfContext } from '../../src/common/planning/halfContextPlanner';
import { planLegacy } from '../../src/common/planning/legacyPlanner';

/** Past turns of up to 150 rounds (like the corpus sessions), 5 active rounds, and one summary at 20%. */
function makeConversation(totalRounds: number): Conversation {
	const active = Math.min(5, totalRounds);
	const historyRounds = totalRounds - active;
	const summaryAt = Math.floor(totalRounds * 0.2);
	let n = 0;
	const round = (id: string): Round => {
		const r: Round = {
			id,
			response: `Round ${n}: reading the next file and checking the failing test.`,
			toolCalls: [{ id: `call-${id}`, name: 'runCommand', arguments: '{"command":"npm test"}', result: 'x'.repeat(400) }],
			...(n === summaryAt ? { summary: 'Earlier work: the parser was fixed and the tests were run.' } : {}),
		};
		n++;
		return r;
	};
	const turns: Turn[] = [];
	for (let t = 0; t * 150 < historyRounds; t++) {
		const count = Math.min(150, historyRounds - t * 150);
		turns.push({ user: `request ${t}`, rounds: Array.from({ length: count }, (_, r) => round(`t${t}r${r}`)), ...(t % 3 === 2 ? { cancelled: true } : {}) });
	}
	return { turns, activeRounds: Array.from({ length: active }, (_, r) => round(`a${r}`)) };
}

interface Case {
	readonly name: string;
	readonly run: (c: Conversation) => unknown;
}

const approxTokens = (text: string) => Math.ceil(text.length / 4);
const cases: Case[] = [
	{ name: 'flattenRounds', run: c => flattenRounds(c) },
	{ name: 'planLegacy', run: c => planLegacy(c) },
	{ name: 'planHalfContext', run: c => planHalfContext(c) },
	{ name: 'planHalfContext + countTokens (chars/4)', run: c => planHalfContext(c, { countTokens: approxTokens }) },
];

/** Milliseconds as microseconds, three significant digits at most. */
const us = (ms: number) => `${Number((ms * 1000).toPrecision(3))} µs`;

let sink = 0;
/** Median and 90th percentile in milliseconds of `samples` timed batches, after `warmup` untimed calls. */
function measure(run: () => unknown, batch: number, samples: number, warmup: number): { median: number; p90: number } {
	for (let i = 0; i < warmup; i++) sink += run() ? 1 : 0;
	const times: number[] = [];
	for (let s = 0; s < samples; s++) {
		const start = process.hrtime.bigint();
		for (let i = 0; i < batch; i++) sink += run() ? 1 : 0;
		times.push(Number(process.hrtime.bigint() - start) / 1e6 / batch);
	}
	times.sort((a, b) => a - b);
	return { median: times[Math.floor(times.length / 2)], p90: times[Math.floor(times.length * 0.9)] };
}

const sizes = [50, 1_000, 10_000];
console.log(`Planner benchmark: node ${process.version}, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'})`);
console.log('Time per call in microseconds: median (p90) of timed batches after warm-up.\n');
const header = ['case', ...sizes.map(s => `${s.toLocaleString('en-US')} rounds`)];
const rows: string[][] = [];
for (const c of cases) {
	const row = [c.name];
	for (const size of sizes) {
		const conversation = makeConversation(size);
		// Batches long enough for the timer, about the same total work per size.
		const batch = Math.max(1, Math.round(2_000 / size));
		const { median, p90 } = measure(() => c.run(conversation), batch, size >= 10_000 ? 150 : 300, Math.max(20, Math.round(20_000 / size)));
		row.push(`${us(median)} (${us(p90)})`);
	}
	rows.push(row);
}
const widths = header.map((h, i) => Math.max(h.length, ...rows.map(r => r[i].length)));
const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
console.log(line(header));
for (const row of rows) console.log(line(row));
console.log(`\nTarget: planHalfContext on 10,000 rounds under 10 ms (10,000 µs): median ${rows[2][3].split(' (')[0]}. [checksum ${sink % 7}]`);
