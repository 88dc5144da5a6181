// The replay benchmark's command line (`npm run bench -- --help` prints USAGE below):
//   npm run bench                      replay the whole corpus: table on stdout, bench/results/latest.json, one SVG per session
//   npm run bench -- --session FILE --window N --strategy NAME --json
//                                      one replay; exactly one JSON object on stdout
// See bench/RESULTS.md for what the numbers mean.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { renderResults, type LatestRun } from './resultsDoc';
import { replaySession, STRATEGIES, WINDOWS, type ReplayMetrics, type StrategyName } from './replay';
import { benchBudget, concatSessions, loadSession, type Session } from './session';
import { stressSession } from './stressSession';
import { sessionVariant, VARIANTS } from './sessionVariants';
import { conversationFromSessionJson } from '../../src/common/persistence/corpusFormat';
import { sessionChart, type ChartSeries } from './svg';
import { checkGoals, DAY_LONG_STRATEGIES, formatGoals, RECOMMENDED } from './targets';
import { formatContinuity, ledgerOffComparison, summarizeContinuity } from './continuity';
import { formatCurves, formatKnowledge, summarizeCurves, summarizeKnowledge } from '../knowledge/knowledgeTable';
import { formatLabelCheck, labelCheck } from '../knowledge/labelCheck';
import { compareMasking, formatMasking } from './masking';
import { formatRealModels, summarizeRealModels } from './realModels';
import { TiktokenTokenizer } from '../../src/common/tokens/tokenizer';
import { DEFAULT_SUMMARY_INFORMATION, SUMMARY_INFORMATION_LEVELS } from './informationSummary';
import { CLOCKS, type ClockName } from './clock';
import { PROVIDERS, type ProviderModel } from './providerQueue';
import { formatTime, summarizeTime } from './timeTable';
import { formatFaults, formatRules, summarizeRules } from './rulesTable';
import { EXIT_OK, parseTokenCount, readCommandLine, stopMessage, UsageError } from '../../src/cli/commandLine';

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
	/** --summarizer-faults P (replay.ts ReplayOptions.summarizerFaults). */
	readonly summarizerFaults: number;
	/** --no-calibration: the product modes do not sample the model's count. */
	readonly calibrate: boolean;
	readonly out: string;
	/** --concat: all sessions as one chat. */
	readonly concat: boolean;
	/** --half-split: half-context's split rule. */
	readonly halfSplit?: 'tokens' | 'rounds';
	/** --clock: the virtual clock and background summaries (default field; none: no clock, no background work). */
	readonly clock: ClockName;
	/** --summary-information N|copying: the stand-in summarizer (default 30: a share of 30 % of the facts). */
	readonly summaryInformation: number | 'copying';
	/** --rate-limits P: the share of model calls that meet a rate-limit pause (default 0.02). */
	readonly rateLimits: number;
	/** --provider cloud|single-slot: the provider model (providerQueue.ts; default cloud). */
	readonly provider: ProviderModel;
	/** --no-background: the product modes without background summaries. */
	readonly background: boolean;
}

export const DEFAULT_RATE_LIMITS = 0.02;
/** The information levels of the knowledge curves the full run adds to the default level's run. */
export const CURVE_LEVELS: readonly (number | 'copying')[] = [...SUMMARY_INFORMATION_LEVELS.filter(n => n !== DEFAULT_SUMMARY_INFORMATION), 'copying'];

export const USAGE = `Usage: npm run bench -- [options]   (or node out/bench/replay/main.js [options])

Replays the corpus sessions through Longhaul's context management and prints the measurements
(bench/RESULTS.md explains them). Without options: every session, window and strategy; a table on
stdout, bench/results/latest.json and one SVG chart per session. Options take their value as
--name value or --name=value.
  --corpus DIR              the corpus (default $LONGHAUL_CORPUS, else ../shared/corpus)
  --session FILE            one session file instead of the corpus
  --window N                one window in tokens (16000 or 16k)
  --strategy NAME           one of ${STRATEGIES.join(', ')}
  --json                    one replay (needs --session or --concat, --window, --strategy): one JSON object on stdout
  --no-ledger               the product strategies without the done-ledger (default: with it, plus a
                            ledger-off run of legacy and half-context for comparison)
  --ledger-live             the ledger rendered again for every request, not only at each summary
  --model-token-ratio R     the stand-in model counts about R times the local tokens (0.5 to 4) and refuses
                            a request over the window by its count. The count follows content, line by line
                            (bench/replay/standInModel.ts): a code-like line (indented, dense in symbols, or
                            one long path or hash) counts R × 1.064, a prose line R × 0.936, so R is their
                            mean (1.175 is the test model's realistic profile); the same prompt always gets
                            the same count. The product modes learn the ratio; the reference strategies
                            count a refusal as a rejection and re-fit once as their agents do
  --summarizer-faults P     a share P (0 to 1, default 0) of summarizer replies fail as real ones do: an
                            error, an empty reply, no <summary> tags, twice the cap, cut off mid-sentence;
                            chosen by a hash of the session and the call's index (bench/replay/summarizerFaults.ts).
                            The replies go through the product's own reading and fallbacks; the output
                            counts the faults and how each ended
  --no-calibration          with --model-token-ratio: no sampled counts, only recovery from refusals
  --concat                  the day-long chat: every session of the corpus, in file-name order, as consecutive
                            turns of one chat (session name concat); with --window, --strategy and --json
                            one JSON object, otherwise a table
  --half-split tokens|rounds  half-context's split rule (default tokens, the product's; rounds: the pure
                            round rule, for comparison)
  --stress                  the synthetic stress session (bench/replay/stressSession.ts) instead of the corpus
  --variants                harder copies of every corpus session (bench/replay/sessionVariants.ts): tool
                            outputs of 240,000 characters, tool calls that write whole files
  --clock NAME              the virtual clock: field (default), fast, slow, test or none. Model and tool time,
                            the user's waits at compactions, and background summaries through the product's
                            rule; none: no clock and no background work
  --summary-information N   the stand-in summarizer: a summary of the length the prompt asks holding a share N
                            (0 to 100, default ${DEFAULT_SUMMARY_INFORMATION}) of the facts of what it absorbs, in its own words, filler
                            for the rest (bench/replay/informationSummary.ts); copying: the old stand-in that
                            copies response lines, arguments and result lines (for comparison only). The full
                            run also replays the summarizing strategies at ${CURVE_LEVELS.join(', ')} for the knowledge curves
  --rate-limits P           a share P (0 to 1, default ${DEFAULT_RATE_LIMITS}) of model calls meets a rate limit and pauses 20-60 s
  --provider NAME           cloud (default): a hosted API, calls run concurrently, sharing one rate-limit budget
                            (a pause the agent's call meets holds background calls too); single-slot: a local
                            model server, one request at a time, a started request runs to its end and the
                            agent's call waits behind it (bench/replay/providerQueue.ts). The full run replays
                            the product modes on both
  --no-background           the product modes without background summaries (the full run replays legacy and
                            half-context so as well, for comparison)
  --out DIR                 where the full run writes latest.json and the charts (default bench/results)
  --help, -h                this text
LONGHAUL_BENCH_DEBUG=1 prints each fit's events on stderr; =prompt also the prompt when the loop breaker fires.
Exit codes: 0 done, 1 failure, 2 invalid arguments.`;

export function parseWindow(text: string): number {
	return parseTokenCount('--window', text);
}

const OPTIONS = {
	corpus: 'string',
	session: 'string',
	window: 'string',
	strategy: 'string',
	json: 'boolean',
	'no-ledger': 'boolean',
	'ledger-live': 'boolean',
	stress: 'boolean',
	variants: 'boolean',
	'model-token-ratio': 'string',
	'no-calibration': 'boolean',
	'summarizer-faults': 'string',
	out: 'string',
	concat: 'boolean',
	'half-split': 'string',
	clock: 'string',
	'summary-information': 'string',
	'rate-limits': 'string',
	provider: 'string',
	'no-background': 'boolean',
} as const;

function parseInformation(text: string | undefined): number | 'copying' {
	if (text === undefined) return DEFAULT_SUMMARY_INFORMATION;
	if (text === 'copying') return 'copying';
	const n = Number(text);
	if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) {
		throw new UsageError(`--summary-information must be a number between 0 and 100, or copying; got ${JSON.stringify(text)}`);
	}
	return n;
}

function parseShare(name: string, text: string | undefined, fallback: number): number {
	const n = text === undefined ? fallback : Number(text);
	if (!Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`--${name} must be a number between 0 and 1; got ${JSON.stringify(text)}`);
	return n;
}

function parseProvider(text: string | undefined): ProviderModel {
	if (text === undefined) return 'cloud';
	if (!(PROVIDERS as readonly string[]).includes(text)) throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}; got ${JSON.stringify(text)}`);
	return text as ProviderModel;
}

/** The options, or 'help'. Throws UsageError saying what is wrong with them. */
export function parseArgs(argv: readonly string[]): CliArgs | 'help' {
	const given = readCommandLine(argv, OPTIONS);
	if (given === 'help') return 'help';
	const strategy = given.strategy;
	if (strategy !== undefined && !(STRATEGIES as readonly string[]).includes(strategy)) {
		throw new UsageError(`--strategy must be one of ${STRATEGIES.join(', ')}; got ${JSON.stringify(strategy)}`);
	}
	let modelTokenRatio: number | undefined;
	if (given['model-token-ratio'] !== undefined) {
		modelTokenRatio = Number(given['model-token-ratio']);
		if (!Number.isFinite(modelTokenRatio) || modelTokenRatio < 0.5 || modelTokenRatio > 4) {
			throw new UsageError(`--model-token-ratio must be a number between 0.5 and 4; got ${JSON.stringify(given['model-token-ratio'])}`);
		}
	}
	const summarizerFaults = given['summarizer-faults'] === undefined ? 0 : Number(given['summarizer-faults']);
	if (!Number.isFinite(summarizerFaults) || summarizerFaults < 0 || summarizerFaults > 1) {
		throw new UsageError(`--summarizer-faults must be a number between 0 and 1; got ${JSON.stringify(given['summarizer-faults'])}`);
	}
	const clock = (given.clock ?? 'field') as ClockName;
	if (!(CLOCKS as readonly string[]).includes(clock)) throw new UsageError(`--clock must be one of ${CLOCKS.join(', ')}; got ${JSON.stringify(clock)}`);
	const halfSplit = given['half-split'];
	if (halfSplit !== undefined && halfSplit !== 'tokens' && halfSplit !== 'rounds') {
		throw new UsageError(`--half-split must be tokens or rounds; got ${JSON.stringify(halfSplit)}`);
	}
	const args: CliArgs = {
		corpus: given.corpus !== undefined ? resolve(given.corpus) : (process.env.LONGHAUL_CORPUS ?? resolve('../shared/corpus')),
		session: given.session !== undefined ? resolve(given.session) : undefined,
		window: given.window !== undefined ? parseWindow(given.window) : undefined,
		strategy: strategy as StrategyName | undefined,
		json: given.json === true,
		out: resolve(given.out ?? 'bench/results'),
		ledger: given['no-ledger'] !== true,
		ledgerLive: given['ledger-live'] === true,
		stress: given.stress === true,
		variants: given.variants === true,
		concat: given.concat === true,
		...(halfSplit ? { halfSplit } : {}),
		modelTokenRatio,
		calibrate: given['no-calibration'] !== true,
		summarizerFaults,
		clock,
		summaryInformation: parseInformation(given['summary-information']),
		rateLimits: parseShare('rate-limits', given['rate-limits'], DEFAULT_RATE_LIMITS),
		provider: parseProvider(given.provider),
		background: given['no-background'] !== true,
	};
	if (args.concat && args.session) throw new UsageError('--concat plays the whole corpus; it takes --corpus DIR, not --session');
	if (args.json && ((!args.session && !args.concat) || args.window === undefined || !args.strategy)) {
		throw new UsageError('--json needs --session FILE (or --concat), --window N and --strategy NAME');
	}
	if (!args.calibrate && args.modelTokenRatio === undefined) throw new UsageError('--no-calibration needs --model-token-ratio R');
	return args;
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
	['intact', 'intactHorizonRounds'],
	['horizon*', 'verbatimHorizonRounds'],
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
	['drop', 'droppedRounds'],
	['masked', 'maskedToolResults'],
	['rej', 'modelRejections'],
	['recov', 'recoveries'],
	['lost', 'requestsLost'],
	['cond', 'condensePasses'],
	['tooLg', 'summaryTooLarge'],
	['truncF', 'truncationsAfterFailedSummary'],
	['cont', 'continuity'],
	['reach', 'detailsReachable'],
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
	['sumLost', 'summariesLost'],
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

/** The options every replay of one run shares. */
function sharedReplayOptions(args: CliArgs) {
	return {
		doneLedger: args.ledger,
		ledgerRefresh: args.ledgerLive ? ('every-request' as const) : ('at-summary' as const),
		...(args.halfSplit ? { halfContextSplit: args.halfSplit } : {}),
		modelTokenRatio: args.modelTokenRatio,
		calibrate: args.calibrate,
		clock: args.clock,
		summarizerFaults: args.summarizerFaults,
		summaryInformation: args.summaryInformation,
		rateLimits: args.rateLimits,
		provider: args.provider,
		background: args.background,
	};
}

/** What one run plays: the session files, the windows and strategies, and the shared replay options. */
interface RunPlan {
	readonly args: CliArgs;
	readonly files: readonly string[];
	readonly windows: readonly number[];
	readonly strategies: readonly StrategyName[];
	readonly replayOptions: ReturnType<typeof sharedReplayOptions>;
}

function runPlan(args: CliArgs): RunPlan {
	const files = args.session
		? [args.session]
		: readdirSync(args.corpus)
				.filter(f => f.endsWith('.json'))
				.sort()
				.map(f => join(args.corpus, f));
	const windows = args.window !== undefined ? [args.window] : [...WINDOWS];
	const strategies = args.strategy ? [args.strategy] : [...STRATEGIES];
	return { args, files, windows, strategies, replayOptions: sharedReplayOptions(args) };
}

/** --json: one replay of one session (or of the day-long chat), one JSON object on stdout. */
async function playOneAsJson({ args, files, windows, strategies, replayOptions }: RunPlan): Promise<number> {
	const session = args.concat ? concatSessions(files.map(loadSession)) : loadSession(files[0]);
	const { metrics } = await replaySession(session, { window: windows[0], strategy: strategies[0], ...replayOptions });
	process.stdout.write(JSON.stringify(metrics) + '\n');
	if (metrics.summarizerFaults > 0) process.stderr.write(formatFaults({ ...metrics, summariesLost: metrics.summariesLost ?? 0 }).trim() + '\n');
	return 0;
}

/** --concat without --json: the day-long chat at every window and strategy asked for, as one table. */
async function playConcat({ files, windows, strategies, replayOptions }: RunPlan): Promise<number> {
	const chat = concatSessions(files.map(loadSession));
	const rows: ReplayMetrics[] = [];
	for (const window of windows) {
		for (const strategy of strategies) {
			const t0 = performance.now();
			rows.push((await replaySession(chat, { window, strategy, ...replayOptions })).metrics);
			process.stderr.write(`concat ${window} ${strategy}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
		}
	}
	process.stdout.write(formatTable(rows, CONCAT_COLUMNS) + '\n');
	process.stdout.write(`\nSame rules for every strategy:\n${formatRules(summarizeRules(rows))}\n`);
	return 0;
}

/** The sessions to replay, each loaded only when its turn comes: the stress session, the variants, or the files. */
function sessionLoaders({ args, files }: RunPlan): (() => Session)[] {
	return args.stress
		? [() => ({ name: 'synthetic-stress', conversation: conversationFromSessionJson(JSON.parse(JSON.stringify(stressSession()))) })]
		: args.variants
			? files.flatMap(file => VARIANTS.map(variant => () => sessionVariant(loadSession(file), variant)))
			: files.map(file => () => loadSession(file));
}

/** One session at every window and strategy: its metrics are added to `results`; returns its chart's series. */
async function replayEveryWay(session: Session, plan: RunPlan, results: ReplayMetrics[]): Promise<ChartSeries[]> {
	const { args, windows, strategies, replayOptions } = plan;
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
			const noBackground = await backgroundOffRun(session, plan, window, strategy, metrics);
			results.push({ ...metrics, ...(off ? { ledgerOff: ledgerOffComparison(off.metrics) } : {}), ...(noBackground ? { backgroundOff: noBackground } : {}) });
			series.push({ strategy, window, records: perRequest });
			process.stderr.write(`${session.name} ${window} ${strategy}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
		}
	}
	return series;
}

/** The strategies whose summaries the information curves follow (the product modes and keep-head-tail). */
const CURVE_STRATEGIES: readonly StrategyName[] = ['legacy', 'half-context', 'half-context+mask', 'keep-head-tail'];
/** The windows where the corpus summarizes (at 64k nothing is). */
const CURVE_WINDOWS: readonly number[] = [16_000, 32_000];

/** legacy and half-context again with background summaries off, where a clock runs them and the window fills: the waits. */
async function backgroundOffRun(session: Session, { args, replayOptions }: RunPlan, window: number, strategy: StrategyName, on: ReplayMetrics) {
	if (!args.background || !on.background || (strategy !== 'legacy' && strategy !== 'half-context') || !CURVE_WINDOWS.includes(window)) return undefined;
	const { metrics } = await replaySession(session, { window, strategy, ...replayOptions, background: false });
	const { compactionOverflows, waitMsP50, waitMsP95, waitMsTotal, sessionMs, summarizerInputTokens } = metrics;
	return { compactionOverflows, waitMsP50, waitMsP95, waitMsTotal, sessionMs, summarizerInputTokens };
}

/** The full run's knowledge curves: the summarizing strategies again at the other information levels. */
async function replayCurves(session: Session, { windows, strategies, replayOptions }: RunPlan, rows: ReplayMetrics[]): Promise<void> {
	for (const window of windows.filter(w => CURVE_WINDOWS.includes(w))) {
		for (const strategy of strategies.filter(s => CURVE_STRATEGIES.includes(s))) {
			const t0 = performance.now();
			for (const summaryInformation of CURVE_LEVELS) {
				rows.push((await replaySession(session, { window, strategy, ...replayOptions, summaryInformation })).metrics);
			}
			process.stderr.write(`${session.name} ${window} ${strategy} at N = ${CURVE_LEVELS.join(', ')}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
		}
	}
}

/** The full run's day-long chat at 16k, for the goals that name it. */
async function replayDayLong({ files, replayOptions }: RunPlan): Promise<ReplayMetrics[]> {
	const chat = concatSessions(files.map(loadSession));
	const rows: ReplayMetrics[] = [];
	for (const strategy of DAY_LONG_STRATEGIES) {
		const t0 = performance.now();
		rows.push((await replaySession(chat, { window: 16_000, strategy, ...replayOptions })).metrics);
		process.stderr.write(`concat 16000 ${strategy}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
	}
	return rows;
}

function writeChart(out: string, session: Session, series: ChartSeries[], windows: readonly number[], budgetTokenizer: TiktokenTokenizer): void {
	const budgets = new Map(windows.map(w => [w, benchBudget(w, budgetTokenizer).messages]));
	writeFileSync(join(out, `${session.name}.svg`), sessionChart(session.name, series, budgets));
}

/** What the full run replays besides the main table: the information curves and the day-long chat. */
interface Extras {
	readonly curves: readonly ReplayMetrics[];
	readonly dayLong: readonly ReplayMetrics[];
}

/** The tables under the main one, each printed only when it has rows; returned for latest.json. */
function printSummaries(results: ReplayMetrics[], args: CliArgs, extras: Extras) {
	const out = (title: string, table: string) => process.stdout.write(`\n${title}\n${table}\n`);
	const goals = checkGoals(results, extras.dayLong);
	out(`Targets: issue 31's goals in these measures (recommended configuration: ${RECOMMENDED}):`, formatGoals(goals));
	const knowledge = summarizeKnowledge(results);
	if (knowledge.length) {
		out(
			`What the agent can still know (summaries: ${informationName(args.summaryInformation)}; intact horizon: rounds with every result whole; continuity: oracle facts named, every request from the first compaction on; details: visible, in a summary, recalled by a query the prompt makes possible, lost; the old line-word recall rule beside it):`,
			formatKnowledge(knowledge),
		);
	}
	const curves = summarizeCurves([...results.filter(r => CURVE_WINDOWS.includes(r.window) && CURVE_STRATEGIES.includes(r.strategy)), ...extras.curves]);
	if (extras.curves.length) {
		out("Knowledge over the summaries' information N (share of facts the stand-in states; copying: the old stand-in):", formatCurves(curves));
	}
	const labels = labelCheck();
	out('The fact oracle against the hand labels (bench/knowledge/labels):', formatLabelCheck(labels));
	const continuity = summarizeContinuity(results);
	if (continuity.length) out('Continuity, done-ledger on vs off (corpus):', formatContinuity(continuity));
	const masking = compareMasking(results);
	if (masking.length) out('Cheap-first compaction (without → with masking, sums over the sessions):', formatMasking(masking));
	const rules = summarizeRules(results);
	out('Same rules for every strategy (sums over the sessions):', formatRules(rules));
	const time = summarizeTime([...results, ...backgroundOffRows(results)]);
	if (time.length) {
		out(`Time (clock ${args.clock}, rate limits ${args.rateLimits}, provider ${args.provider}; sums and shares over the sessions):`, formatTime(time));
	}
	const dayLong = extras.dayLong.map(dayLongRow);
	if (dayLong.length) out('The day-long chat at 16k (all sessions as one chat):', formatTable(extras.dayLong, DAY_LONG_COLUMNS));
	const realModels = summarizeRealModels(results);
	if (realModels.length) {
		out('Real models (refusals after recovery, overflows, truncations after a failed summary; sums over the sessions):', formatRealModels(realModels));
	}
	return { goals, knowledge, curves: extras.curves.length ? curves : [], labels, continuity, masking, time, dayLong, realModels, rules };
}

const informationName = (n: number | 'copying') => (n === 'copying' ? 'the copying stand-in' : `information-limited, N = ${n}`);

/** The background-off replays as rows of their own for the time table (strategy "S (background off)"). */
function backgroundOffRows(results: readonly ReplayMetrics[]): ReplayMetrics[] {
	return results.flatMap(r =>
		r.backgroundOff
			? [
					{
						...r,
						strategy: `${r.strategy} (background off)` as StrategyName,
						...r.backgroundOff,
						preparedAtOverflow: null,
						waitShare: r.backgroundOff.sessionMs ? r.backgroundOff.waitMsTotal / r.backgroundOff.sessionMs : 0,
						backgroundDiscardedTokens: 0,
						backgroundTokensAtEnd: 0,
					},
				]
			: [],
	);
}

const DAY_LONG_COLUMNS: [string, keyof ReplayMetrics][] = [
	['strategy', 'strategy'],
	['req', 'requests'],
	['summ', 'summarizations'],
	['sumIn', 'summarizerInputTokens'],
	['ovf', 'overflows'],
	['intact', 'intactHorizonRounds'],
	['horizon*', 'verbatimHorizonRounds'],
	['cont', 'continuity'],
	['reach', 'detailsReachable'],
	['compactions', 'compactionOverflows'],
	['prepared', 'preparedAtOverflow'],
	['waitP95', 'waitMsP95'],
	['waitTotal', 'waitMsTotal'],
];

/** The day-long chat's figures kept in latest.json. */
function dayLongRow(m: ReplayMetrics) {
	return Object.fromEntries(DAY_LONG_COLUMNS.map(([, key]) => [key, m[key]]));
}

/** bench/results/latest.json: the full run's settings, summaries and sorted results. */
function writeLatest(plan: RunPlan, durationMs: number, summaries: ReturnType<typeof printSummaries>, sorted: ReplayMetrics[]): void {
	const { args, files, windows, strategies } = plan;
	const report = {
		generatedAt: new Date().toISOString(),
		node: process.version,
		cpus: cpus().length,
		durationMs,
		corpus: args.corpus,
		windows,
		strategies,
		recommended: RECOMMENDED,
		summaryInformation: args.summaryInformation,
		curveLevels: CURVE_LEVELS,
		modelTokenRatio: args.modelTokenRatio ?? null,
		calibrate: args.calibrate,
		summarizerFaults: args.summarizerFaults,
		clock: args.clock,
		rateLimits: args.rateLimits,
		provider: args.provider,
		...summaries,
		results: sorted,
	};
	const json = JSON.stringify(report, null, 2) + '\n';
	writeFileSync(join(args.out, 'latest.json'), json);
	// The document is rendered from the JSON as written, as the check in the unit tests reads it.
	const doc = join(dirname(args.out), 'RESULTS.md');
	writeFileSync(doc, renderResults(JSON.parse(json) as LatestRun));
	process.stdout.write(`wrote ${join(args.out, 'latest.json')}, ${files.length} SVG charts and ${doc}\n`);
}

/** The corpus (or --stress, --variants): the table and its summaries; the full run also writes latest.json and one chart per session. */
async function playCorpus(plan: RunPlan): Promise<number> {
	const { args, windows } = plan;
	const started = performance.now();
	const results: ReplayMetrics[] = [];
	const sessions = sessionLoaders(plan);
	const full = !args.session && args.window === undefined && !args.strategy && !args.stress && !args.variants;
	if (full) mkdirSync(args.out, { recursive: true });
	const budgetTokenizer = new TiktokenTokenizer();
	const curves: ReplayMetrics[] = [];
	for (const load of sessions) {
		const session = load();
		const series = await replayEveryWay(session, plan, results);
		if (full) {
			writeChart(args.out, session, series, windows, budgetTokenizer);
			await replayCurves(session, plan, curves);
		}
	}
	const dayLong = full ? await replayDayLong(plan) : [];
	const durationMs = Math.round(performance.now() - started);
	const sorted = [...results].sort(
		(a, b) => a.window - b.window || a.session.localeCompare(b.session) || STRATEGIES.indexOf(a.strategy) - STRATEGIES.indexOf(b.strategy),
	);
	process.stdout.write(formatTable(sorted) + '\n');
	const summaries = printSummaries(results, args, { curves, dayLong });
	process.stdout.write(`\n${results.length} replays in ${(durationMs / 1000).toFixed(1)} s\n`);
	if (full) writeLatest(plan, durationMs, summaries, sorted);
	return 0;
}

async function main(): Promise<number> {
	const parsed = parseArgs(process.argv.slice(2));
	if (parsed === 'help') {
		process.stdout.write(USAGE + '\n');
		return EXIT_OK;
	}
	const plan = runPlan(parsed);
	if (plan.args.json) return playOneAsJson(plan);
	if (plan.args.concat) return playConcat(plan);
	return playCorpus(plan);
}

if (require.main === module) {
	main().then(
		code => process.exit(code),
		error => {
			// A UsageError exits 2 with its message; anything else is a failure (1).
			const stop = stopMessage('bench', error, 'npm run bench -- --help');
			process.stderr.write(stop.stderr);
			process.exit(stop.exitCode);
		},
	);
}
