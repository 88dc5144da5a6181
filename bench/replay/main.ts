// npm run bench                      replay the whole corpus: table on stdout, bench/results/latest.json, one SVG per session
// npm run bench -- --session FILE --window N --strategy NAME --json
//                                    one replay; exactly one JSON object on stdout
// --no-ledger                        the product strategies without the done-ledger (default: with it, plus a
//                                    ledger-off run of legacy and half-context for comparison)
// --ledger-live                      the ledger rendered again for every request, not only at each summary
// --model-token-ratio R              the stand-in model counts R× the local tokens and refuses a request over
//                                    the window by its count; the product modes learn the ratio and recover
// --no-calibration                   with --model-token-ratio: no sampled counts, only recovery from refusals
// --concat                           the day-long chat: every session of the corpus, in file-name order, as
//                                    consecutive turns of one chat (session name `concat`); with --window,
//                                    --strategy and --json one JSON object, otherwise a table
// --half-split rounds|tokens         half-context's split rule (default tokens, the product's; rounds: the
//                                    pure round rule, for comparison)
// --stress                           replay the synthetic stress session (bench/replay/stressSession.ts) instead of the corpus
// --clock field|fast|slow|test|none  the virtual clock (default field): model and tool time, the user's waits at
//                                    compactions, and background summaries through the product's rule; none: no clock
//                                    and no background work (the numbers of the replay before the clock)
// --variants                         replay harder copies of every corpus session instead (bench/replay/sessionVariants.ts):
//                                    tool outputs of 240,000 characters, tool calls that write whole files
// LONGHAUL_BENCH_DEBUG=1                each fit's events on stderr; =prompt also the prompt's messages and sizes when the loop breaker fires
// Options: --corpus DIR (default ../shared/corpus, or $LONGHAUL_CORPUS), --session FILE, --window N|16k,
// --strategy legacy|half-context|truncate-half|keep-head-tail|legacy+mask|half-context+mask, --json. See bench/RESULTS.md.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { replaySession, STRATEGIES, WINDOWS, type ReplayMetrics, type StrategyName } from './replay';
import { benchBudget, concatSessions, loadSession, type Session } from './session';
import { stressSession } from './stressSession';
import { sessionVariant, VARIANTS } from './sessionVariants';
import { conversationFromSessionJson } from '../../src/common/persistence/corpusFormat';
import { sessionChart, type ChartSeries } from './svg';
import { checkTargets, formatTargets } from './targets';
import { formatContinuity, ledgerOffComparison, summarizeContinuity } from './continuity';
import { compareMasking, formatMasking } from './masking';
import { formatRealModels, summarizeRealModels } from './realModels';
import { TiktokenTokenizer } from '../../src/common/tokens/tokenizer';
import { CLOCKS, type ClockName } from './clock';
import { formatTime, summarizeTime } from './timeTable';

export interface CliArgs {
	readonly corpus: string;
	readonly session?: string;
	readonly window?: number;
	readonly strategy?: StrategyName;
	readonly json: boolean;
	/** --no-ledger: the product strategies without the done-ledger (and no ledger-off comparison run). */
	readonly ledger: boolean;
	/** --ledger-live: the ledger rendered again for every request instead of at each summary. */
	readonly ledgerLive: boolean;
	/** --stress: the synthetic stress session instead of the corpus. */
	readonly stress: boolean;
	/** --variants: harder copies of the corpus sessions instead of the corpus. */
	readonly variants: boolean;
	/** --model-token-ratio R (replay.ts ReplayOptions.modelTokenRatio). */
	readonly modelTokenRatio?: number;
	/** --no-calibration: the product modes do not sample the model's count. */
	readonly calibrate: boolean;
	readonly out: string;
	/** --concat: all sessions as one chat. */
	readonly concat: boolean;
	/** --half-split: half-context's split rule. */
	readonly halfSplit?: 'tokens' | 'rounds';
	/** --clock: the virtual clock and background summaries (default field; none: no clock, no background work). */
	readonly clock: ClockName;
}

export class UsageError extends Error {}

export function parseWindow(text: string): number {
	const m = /^(\d+(?:\.\d+)?)(k)?$/i.exec(text.trim());
	if (!m) throw new UsageError(`--window: expected a number of tokens such as 16000 or 16k, got "${text}"`);
	const n = Math.round(Number(m[1]) * (m[2] ? 1000 : 1));
	if (n < 1000) throw new UsageError(`--window: at least 1000 tokens, got ${n}`);
	return n;
}

export function parseArgs(argv: readonly string[]): CliArgs {
	let corpus = process.env.LONGHAUL_CORPUS ?? resolve('../shared/corpus');
	let session: string | undefined;
	let window: number | undefined;
	let strategy: StrategyName | undefined;
	let json = false;
	let ledger = true;
	let ledgerLive = false;
	let stress = false;
	let variants = false;
	let modelTokenRatio: number | undefined;
	let calibrate = true;
	let out = resolve('bench/results');
	let concat = false;
	let halfSplit: 'tokens' | 'rounds' | undefined;
	let clock: ClockName = 'field';
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const value = () => {
			const v = argv[++i];
			if (v === undefined) throw new UsageError(`${arg} needs a value`);
			return v;
		};
		switch (arg) {
			case '--corpus':
				corpus = resolve(value());
				break;
			case '--session':
				session = resolve(value());
				break;
			case '--window':
				window = parseWindow(value());
				break;
			case '--strategy': {
				const v = value();
				if (!(STRATEGIES as readonly string[]).includes(v)) throw new UsageError(`--strategy: one of ${STRATEGIES.join(', ')}; got "${v}"`);
				strategy = v as StrategyName;
				break;
			}
			case '--json':
				json = true;
				break;
			case '--no-ledger':
				ledger = false;
				break;
			case '--ledger-live':
				ledgerLive = true;
				break;
			case '--stress':
				stress = true;
				break;
			case '--variants':
				variants = true;
				break;
			case '--model-token-ratio': {
				const v = value();
				const r = Number(v);
				if (!Number.isFinite(r) || r < 0.5 || r > 4) throw new UsageError(`--model-token-ratio: a number between 0.5 and 4, got "${v}"`);
				modelTokenRatio = r;
				break;
			}
			case '--no-calibration':
				calibrate = false;
				break;
			case '--out':
				out = resolve(value());
				break;
			case '--concat':
				concat = true;
				break;
			case '--half-split': {
				const v = value();
				if (v !== 'tokens' && v !== 'rounds') throw new UsageError(`--half-split: tokens or rounds; got "${v}"`);
				halfSplit = v;
				break;
			}
			case '--clock': {
				const v = value();
				if (!(CLOCKS as readonly string[]).includes(v)) throw new UsageError(`--clock: one of ${CLOCKS.join(', ')}; got "${v}"`);
				clock = v as ClockName;
				break;
			}
			default:
				throw new UsageError(`unknown argument "${arg}"`);
		}
	}
	if (concat && session) throw new UsageError('--concat plays the whole corpus; it takes --corpus DIR, not --session');
	if (json && ((!session && !concat) || window === undefined || !strategy)) {
		throw new UsageError('--json needs --session FILE (or --concat), --window N and --strategy NAME');
	}
	if (!calibrate && modelTokenRatio === undefined) throw new UsageError('--no-calibration needs --model-token-ratio R');
	return {
		corpus,
		session,
		window,
		strategy,
		json,
		out,
		ledger,
		ledgerLive,
		stress,
		variants,
		concat,
		...(halfSplit ? { halfSplit } : {}),
		modelTokenRatio,
		calibrate,
		clock,
	};
}

const COLUMNS: [string, keyof ReplayMetrics][] = [
	['session', 'session'],
	['window', 'window'],
	['strategy', 'strategy'],
	['req', 'requests'],
	['summ', 'summarizations'],
	['sumIn', 'summarizerInputTokens'],
	['mainIn', 'mainInputTokens'],
	['ovf', 'overflows'],
	['horizon', 'verbatimHorizonRounds'],
	['afterSum', 'verbatimAfterSummaryRounds'],
	['limit', 'verbatimLimitRounds'],
	['fill', 'fillRatioMean'],
	['fillMin', 'fillRatioMin'],
	['reuse', 'prefixReuse'],
	['rP50', 'renderMsP50'],
	['rP95', 'renderMsP95'],
	['planP50', 'planMsP50'],
	['tok/new', 'tokenizedPerNewToken'],
	['tok/new*', 'tokenizedPerNewTokenOutsideCompaction'],
	['elided', 'elidedToolResults'],
	['masked', 'maskedToolResults'],
	['rej', 'modelRejections'],
	['recov', 'recoveries'],
	['cond', 'condensePasses'],
	['tooLg', 'summaryTooLarge'],
	['truncF', 'truncationsAfterFailedSummary'],
];

function cell(v: unknown): string {
	if (v === null || v === undefined) return '-';
	if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(2);
	return String(v);
}

/** The day-long chat's table: the table's columns plus the summary blocks. */
const CONCAT_COLUMNS: [string, keyof ReplayMetrics][] = [
	...COLUMNS.filter(([, key]) => key !== 'maskedToolResults'),
	['blocks', 'summaryBlocks'],
	['order!', 'orderViolations'],
	['lost', 'summariesLost'],
	['condensed', 'condensedBlocks'],
	['multiTurn', 'multiTurnSummarizations'],
];

export function formatTable(rows: readonly ReplayMetrics[], columns: readonly [string, keyof ReplayMetrics][] = COLUMNS): string {
	const header = columns.map(c => c[0]);
	const body = rows.map(r => columns.map(([, key]) => cell(r[key])));
	const widths = header.map((h, i) => Math.max(h.length, ...body.map(b => b[i].length)));
	const line = (cells: string[]) => cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
	return [line(header), ...body.map(line)].join('\n');
}

async function main(): Promise<number> {
	let args: CliArgs;
	try {
		args = parseArgs(process.argv.slice(2));
	} catch (error) {
		if (error instanceof UsageError) {
			process.stderr.write(`bench: ${error.message}\n`);
			return 1;
		}
		throw error;
	}
	const files = args.session
		? [args.session]
		: readdirSync(args.corpus)
				.filter(f => f.endsWith('.json'))
				.sort()
				.map(f => join(args.corpus, f));
	const windows = args.window !== undefined ? [args.window] : [...WINDOWS];
	const strategies = args.strategy ? [args.strategy] : [...STRATEGIES];

	const replayOptions = {
		doneLedger: args.ledger,
		ledgerRefresh: args.ledgerLive ? ('every-request' as const) : ('at-summary' as const),
		...(args.halfSplit ? { halfContextSplit: args.halfSplit } : {}),
		modelTokenRatio: args.modelTokenRatio,
		calibrate: args.calibrate,
		clock: args.clock,
	};
	const sessionsToPlay = (): Session[] => (args.concat ? [concatSessions(files.map(loadSession))] : []);

	if (args.json) {
		const { metrics } = await replaySession(args.concat ? sessionsToPlay()[0] : loadSession(files[0]), {
			window: windows[0],
			strategy: strategies[0],
			...replayOptions,
		});
		process.stdout.write(JSON.stringify(metrics) + '\n');
		return 0;
	}

	if (args.concat) {
		const [chat] = sessionsToPlay();
		const rows: ReplayMetrics[] = [];
		for (const window of windows) {
			for (const strategy of strategies) {
				const t0 = performance.now();
				rows.push((await replaySession(chat, { window, strategy, ...replayOptions })).metrics);
				process.stderr.write(`concat ${window} ${strategy}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
			}
		}
		process.stdout.write(formatTable(rows, CONCAT_COLUMNS) + '\n');
		return 0;
	}

	const started = performance.now();
	const results: ReplayMetrics[] = [];
	const sessions: (() => Session)[] = args.stress
		? [() => ({ name: 'synthetic-stress', conversation: conversationFromSessionJson(JSON.parse(JSON.stringify(stressSession()))) })]
		: args.variants
			? files.flatMap(file => VARIANTS.map(variant => () => sessionVariant(loadSession(file), variant)))
			: files.map(file => () => loadSession(file));
	const full = !args.session && args.window === undefined && !args.strategy && !args.stress && !args.variants;
	if (full) mkdirSync(args.out, { recursive: true });
	const budgetTokenizer = new TiktokenTokenizer();
	for (const load of sessions) {
		const session = load();
		const series: ChartSeries[] = [];
		for (const window of windows) {
			for (const strategy of strategies) {
				const t0 = performance.now();
				const { metrics, perRequest } = await replaySession(session, { window, strategy, ...replayOptions });
				// The done-ledger's effect: the same replay without it (bench/replay/continuity.ts).
				const off =
					args.ledger && (strategy === 'legacy' || strategy === 'half-context')
						? await replaySession(session, { window, strategy, ...replayOptions, doneLedger: false })
						: undefined;
				results.push(off ? { ...metrics, ledgerOff: ledgerOffComparison(off.metrics) } : metrics);
				series.push({ strategy, window, records: perRequest });
				process.stderr.write(`${session.name} ${window} ${strategy}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
			}
		}
		if (full) {
			const budgets = new Map(windows.map(w => [w, benchBudget(w, budgetTokenizer).messages]));
			writeFileSync(join(args.out, `${session.name}.svg`), sessionChart(session.name, series, budgets));
		}
	}
	const durationMs = Math.round(performance.now() - started);
	const sorted = [...results].sort(
		(a, b) => a.window - b.window || a.session.localeCompare(b.session) || STRATEGIES.indexOf(a.strategy) - STRATEGIES.indexOf(b.strategy),
	);
	process.stdout.write(formatTable(sorted) + '\n');
	const targets = checkTargets(results);
	if (targets.length) process.stdout.write(`\nTargets at 16k (half-context vs legacy):\n${formatTargets(targets)}\n`);
	const continuity = summarizeContinuity(results);
	if (continuity.length) process.stdout.write(`\nContinuity after compaction (done-ledger on vs off, corpus):\n${formatContinuity(continuity)}\n`);
	const masking = compareMasking(results);
	if (masking.length) process.stdout.write(`\nCheap-first compaction (without → with masking, sums over the sessions):\n${formatMasking(masking)}\n`);
	const time = summarizeTime(results);
	if (time.length) process.stdout.write(`\nTime (clock ${args.clock}; sums and shares over the sessions):\n${formatTime(time)}\n`);
	const realModels = summarizeRealModels(results);
	if (realModels.length) {
		process.stdout.write(
			`\nReal models (refusals after recovery, overflows, truncations after a failed summary; sums over the sessions):\n${formatRealModels(realModels)}\n`,
		);
	}
	process.stdout.write(`\n${results.length} replays in ${(durationMs / 1000).toFixed(1)} s\n`);
	if (full) {
		const report = {
			generatedAt: new Date().toISOString(),
			node: process.version,
			cpus: cpus().length,
			durationMs,
			corpus: args.corpus,
			windows,
			strategies,
			targets,
			continuity,
			masking,
			modelTokenRatio: args.modelTokenRatio ?? null,
			calibrate: args.calibrate,
			realModels,
			clock: args.clock,
			time,
			results: sorted,
		};
		writeFileSync(join(args.out, 'latest.json'), JSON.stringify(report, null, 2) + '\n');
		process.stdout.write(`wrote ${join(args.out, 'latest.json')} and ${files.length} SVG charts\n`);
	}
	return 0;
}

if (require.main === module) {
	main().then(
		code => process.exit(code),
		error => {
			process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
			process.exit(2);
		},
	);
}
