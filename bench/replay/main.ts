// The replay benchmark's command line (`npm run bench -- --help` prints USAGE below):
//   npm run bench                      replay the whole corpus: table on stdout, bench/results/latest.json, one SVG per session
//   npm run bench -- --session FILE --window N --strategy NAME --json
//                                      one replay; exactly one JSON object on stdout
// See bench/RESULTS.md for what the numbers mean.
import { appendFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { renderResults, type LatestRun } from './resultsDoc';
import { replaySession, STRATEGIES, WINDOWS, type ReplayMetrics, type ReplayOptions, type StrategyName } from './replay';
import { withRecall } from './replayTypes';
import { benchBudget, concatSessions, loadSession } from './session';
import { VARIANTS, type VariantName } from './sessionVariants';
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
import { defaultWorkers, runTasks, type ReplayTask, type TaskResult } from './pool';
import { SWEEPABLE, type SweepableName } from './constantOverride';
import { formatTime, summarizeTime } from './timeTable';
import { formatFaults, formatRules, summarizeRules } from './rulesTable';
import { EXIT_OK, parseTokenCount, readCommandLine, stopMessage, UsageError } from '../../src/cli/commandLine';

export interface CliArgs {
	/** --corpus DIR (repeatable, or DIR,DIR): the corpus folders; the full run reports each and all together. */
	readonly corpora: readonly string[];
	/** --workers N: replays at once in the full run (default: the machine's cores; 1: in this thread). */
	readonly workers: number;
	/** --window A,B: several windows. */
	readonly windows?: readonly number[];
	/** --no-comparisons: no ledger-off and background-off replays. */
	readonly comparisons: boolean;
	/** --strategy A,B: several strategies (a sweep compares the first two). */
	readonly strategies?: readonly StrategyName[];
	/** --sweep NAME=v1,v2: a constant's curve (constantOverride.ts). */
	readonly sweep?: { readonly name: SweepableName; readonly values: readonly number[] };
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
  --corpus DIR              a corpus folder; repeat it (or give DIR,DIR) for several (default $LONGHAUL_CORPUS,
                            else ../shared/corpus and ../shared/corpus-wide where it exists). The run reports
                            each corpus and all of them together; the targets are judged on all
  --sweep NAME=V1,V2,...    a constant's curve on each corpus: the replays again with NAME at each value
                            (${Object.keys(SWEEPABLE).join(', ')}; bench/replay/constantOverride.ts), printing
                            per corpus and window each strategy's intact horizon and the first minus the
                            second (e.g. --sweep summaryShare=0.05,0.1,0.2 --window 16k
                            --strategy half-context,truncate-half); --strategy takes a comma list here
  --workers N               replays at once, on worker threads (default: the machine's cores; 1: in this
                            thread). The figures are the same whatever N
  --session FILE            one session file instead of the corpus
  --window N                one window in tokens (16000 or 16k), or several: 16k,32k
  --strategy NAME           one of ${STRATEGIES.join(', ')}; or several, joined by commas
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
  --no-comparisons          no ledger-off and background-off replays of the product modes
  --no-background           the product modes without background summaries (the full run replays legacy and
                            half-context so as well, for comparison)
  --out DIR                 where the full run writes latest.json and the charts (default bench/results)
  --help, -h                this text
LONGHAUL_BENCH_ROWS=FILE appends each replay's figures to FILE as it ends (one JSON line).
LONGHAUL_BENCH_DEBUG=1 prints each fit's events on stderr; =prompt also the prompt when the loop breaker fires.
Exit codes: 0 done, 1 failure, 2 invalid arguments.`;

export function parseWindow(text: string): number {
	return parseTokenCount('--window', text);
}

const OPTIONS = {
	corpus: 'string',
	workers: 'string',
	sweep: 'string',
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
	'no-comparisons': 'boolean',
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

/** Every --corpus value, in order (the option may be repeated, each value a folder or folders joined by commas). */
function corpusOptions(argv: readonly string[]): string[] {
	const values: string[] = [];
	argv.forEach((arg, i) => {
		if (arg === '--corpus' && argv[i + 1] !== undefined) values.push(argv[i + 1]);
		else if (arg.startsWith('--corpus=')) values.push(arg.slice('--corpus='.length));
	});
	return values.flatMap(v => v.split(',')).filter(v => v !== '');
}

/** $LONGHAUL_CORPUS (folders joined by commas), else shared/corpus and shared/corpus-wide where it exists. */
function defaultCorpora(): string[] {
	if (process.env.LONGHAUL_CORPUS) return process.env.LONGHAUL_CORPUS.split(',').map(dir => resolve(dir));
	return [resolve('../shared/corpus'), ...(existsSync(resolve('../shared/corpus-wide')) ? [resolve('../shared/corpus-wide')] : [])];
}

function parseSweep(text: string): { name: SweepableName; values: number[] } {
	const m = /^([A-Za-z]+)=(.+)$/.exec(text);
	const values = m ? m[2].split(',').map(Number) : [];
	if (!m || !(m[1] in SWEEPABLE) || !values.length || values.some(v => !Number.isFinite(v))) {
		throw new UsageError(`--sweep must be NAME=V1,V2,... with NAME one of ${Object.keys(SWEEPABLE).join(', ')}; got ${JSON.stringify(text)}`);
	}
	return { name: m[1] as SweepableName, values };
}

function parseWorkers(text: string | undefined): number {
	const n = text === undefined ? defaultWorkers() : Number(text);
	if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError(`--workers must be a whole number from 1 to 64; got ${JSON.stringify(text)}`);
	return n;
}

/** The options, or 'help'. Throws UsageError saying what is wrong with them. */
export function parseArgs(argv: readonly string[]): CliArgs | 'help' {
	const given = readCommandLine(argv, OPTIONS);
	if (given === 'help') return 'help';
	const corpora = corpusOptions(argv);
	const sweep = given.sweep !== undefined ? parseSweep(given.sweep) : undefined;
	const strategyList = given.strategy?.split(',');
	for (const name of strategyList ?? []) {
		if (!(STRATEGIES as readonly string[]).includes(name)) {
			throw new UsageError(`--strategy must be one of ${STRATEGIES.join(', ')}; got ${JSON.stringify(name)}`);
		}
	}
	const strategy = strategyList?.[0];
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
		corpora: corpora.length ? corpora.map(dir => resolve(dir)) : defaultCorpora(),
		workers: parseWorkers(given.workers),
		...(strategyList && strategyList.length > 1 ? { strategies: strategyList as StrategyName[] } : {}),
		...(sweep ? { sweep } : {}),
		session: given.session !== undefined ? resolve(given.session) : undefined,
		window: given.window !== undefined ? parseWindow(given.window.split(',')[0]) : undefined,
		...(given.window?.includes(',') ? { windows: given.window.split(',').map(parseWindow) } : {}),
		comparisons: given['no-comparisons'] !== true,
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

/** One corpus folder: its name (the folder's) and its session files in name order. */
interface Corpus {
	readonly name: string;
	readonly files: readonly string[];
}

/** What one run plays: the corpora and their session files, the windows and strategies, and the shared replay options. */
interface RunPlan {
	readonly args: CliArgs;
	readonly corpora: readonly Corpus[];
	readonly files: readonly string[];
	readonly windows: readonly number[];
	readonly strategies: readonly StrategyName[];
	readonly replayOptions: ReturnType<typeof sharedReplayOptions>;
	/** Everything: every session, window and strategy, with the curves, the day-long chats and latest.json. */
	readonly full: boolean;
}

const sessionFiles = (dir: string) =>
	readdirSync(dir)
		.filter(f => f.endsWith('.json'))
		.sort()
		.map(f => join(dir, f));

function runPlan(args: CliArgs): RunPlan {
	const corpora: Corpus[] = args.session
		? [{ name: basename(dirname(args.session)), files: [args.session] }]
		: args.corpora.map(dir => ({ name: basename(dir), files: sessionFiles(dir) }));
	const windows = args.windows ?? (args.window !== undefined ? [args.window] : [...WINDOWS]);
	const strategies = args.strategies ?? (args.strategy ? [args.strategy] : [...STRATEGIES]);
	const full = !args.session && args.window === undefined && !args.strategy && !args.stress && !args.variants && !args.sweep;
	return { args, corpora, files: corpora.flatMap(c => c.files), windows, strategies, replayOptions: sharedReplayOptions(args), full };
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
async function playConcat({ args, files, windows, strategies, replayOptions }: RunPlan): Promise<number> {
	const tasks: ReplayTask[] = windows.flatMap(window =>
		strategies.map(strategy => ({ files, chatName: 'concat', options: { window, strategy, ...replayOptions } })),
	);
	const done = await runTasks(tasks, args.workers, (task, result) =>
		process.stderr.write(`concat ${task.options.window} ${task.options.strategy}: ${result.seconds.toFixed(1)} s\n`),
	);
	const rows = done.map(d => d.metrics);
	process.stdout.write(formatTable(rows, CONCAT_COLUMNS) + '\n');
	process.stdout.write(`\nSame rules for every strategy:\n${formatRules(summarizeRules(rows))}\n`);
	return 0;
}

/** The strategies whose summaries the information curves follow (the product modes). */
const CURVE_STRATEGIES: readonly StrategyName[] = ['legacy', 'half-context'];
/** The windows where the corpus summarizes (at 64k nothing is). */
const CURVE_WINDOWS: readonly number[] = [16_000, 32_000];
/**
 * The knowledge curves' fixed subset: the sessions of the first corpus (shared/corpus, the eight the
 * curves were always drawn on) at 16k, so the full run stays within its time on two cores.
 */
const curveSubset = (plan: RunPlan): ReadonlySet<string> => new Set(plan.corpora[0]?.files ?? []);
/** The comparison replays (ledger off, background off, single-slot) are of these two. */
const PRODUCT_MODES: readonly StrategyName[] = ['legacy', 'half-context'];

/**
 * Sessions per day-long chat: a corpus of more is played as several days of this many sessions in
 * name order (the knowledge probe checks every detail on every later request, so one chat of all
 * 24 sessions of corpus-wide would cost the square of its length).
 */
const DAY_SESSIONS = 8;

function dayChunks(files: readonly string[]): string[][] {
	const days: string[][] = [];
	for (let i = 0; i < files.length; i += DAY_SESSIONS) days.push(files.slice(i, i + DAY_SESSIONS));
	return days;
}

/** What a task of the run is for. */
type TaskKind = 'main' | 'ledgerOff' | 'backgroundOff' | 'singleSlot' | 'curve' | 'dayLong';
interface RunTask extends ReplayTask {
	readonly kind: TaskKind;
	readonly corpus: string;
}

/** Every replay of the run, the longest first (the day-long chats, then the sessions by size). */
function runTasksOf(plan: RunPlan): RunTask[] {
	const { args, corpora, windows, strategies, replayOptions, full } = plan;
	const clocked = args.clock !== 'none';
	const curves = curveSubset(plan);
	const tasks: RunTask[] = [];
	const sized: { size: number; tasks: RunTask[] }[] = [];
	for (const corpus of corpora) {
		if (full) {
			const days = dayChunks(corpus.files);
			days.forEach((files, day) => {
				// half-context+mask on the first day of the first corpus only (time on two cores).
				const dayStrategies = corpus === corpora[0] && day === 0 ? DAY_LONG_STRATEGIES : [RECOMMENDED];
				const chatName = corpora.length === 1 && days.length === 1 ? 'concat' : `concat-${corpus.name}-${day + 1}`;
				for (const strategy of dayStrategies) {
					tasks.push({ kind: 'dayLong', corpus: corpus.name, files, chatName, options: { window: 16_000, strategy, ...replayOptions } });
				}
			});
		}
		const sources: { files: string[]; variant?: VariantName; stress?: boolean; size: number }[] = args.stress
			? [{ files: [], stress: true, size: 0 }]
			: corpus.files.flatMap(file =>
					(args.variants ? VARIANTS.map(variant => ({ variant })) : [{}]).map(extra => ({ files: [file], ...extra, size: statSync(file).size })),
				);
		for (const { size, ...source } of sources) {
			const own: RunTask[] = [];
			const add = (kind: TaskKind, options: ReplayOptions, perRequest = false) =>
				own.push({ kind, corpus: corpus.name, ...source, options, ...(perRequest ? { perRequest } : {}) });
			for (const window of windows) {
				// The full run replays 64k (where nothing is left out) on the first corpus only (time on two cores).
				if (full && !CURVE_WINDOWS.includes(window) && corpus !== corpora[0]) continue;
				for (const strategy of strategies) {
					// The full run's +recall references at the windows where something is left out (at 64k nothing is).
					if (full && withRecall(strategy) && !CURVE_WINDOWS.includes(window)) continue;
					const options = { window, strategy, ...replayOptions };
					add('main', options, full);
					if (!PRODUCT_MODES.includes(strategy)) continue;
					// The full run compares ledger and background off at 16k only, where they matter most (time on two cores).
					const compared = !full || window === 16_000;
					if (args.comparisons && args.ledger && compared) add('ledgerOff', { ...options, doneLedger: false });
					if (args.comparisons && args.background && clocked && compared && CURVE_WINDOWS.includes(window)) {
						add('backgroundOff', { ...options, background: false });
					}
					// Both provider models: the main table's, and the product modes on a single-slot one where the window fills.
					if (!args.json && args.background && clocked && args.provider !== 'single-slot' && CURVE_WINDOWS.includes(window)) {
						add('singleSlot', { ...options, provider: 'single-slot' });
					}
				}
			}
			if (full && curves.has(source.files[0])) {
				// At 16k, where the corpus summarizes most (time on two cores).
				for (const window of windows.filter(w => w === 16_000)) {
					for (const strategy of strategies.filter(s => CURVE_STRATEGIES.includes(s))) {
						for (const summaryInformation of CURVE_LEVELS) add('curve', { window, strategy, ...replayOptions, summaryInformation });
					}
				}
			}
			sized.push({ size, tasks: own });
		}
	}
	sized.sort((a, b) => b.size - a.size);
	return [...tasks, ...sized.flatMap(s => s.tasks)];
}

/** What every replay of the run gave, sorted so that sums and charts do not depend on the order replays finished in. */
interface RunRows {
	/** The main table (provider as asked), each row with its ledger-off and background-off comparisons. */
	readonly results: ReplayMetrics[];
	readonly singleSlot: ReplayMetrics[];
	readonly curves: ReplayMetrics[];
	readonly dayLong: ReplayMetrics[];
	/** Per session, its chart's series (full run only). */
	readonly series: Map<string, ChartSeries[]>;
}

const rowOrder = (a: ReplayMetrics, b: ReplayMetrics) =>
	a.window - b.window ||
	(a.corpus ?? '').localeCompare(b.corpus ?? '') ||
	a.session.localeCompare(b.session) ||
	STRATEGIES.indexOf(a.strategy) - STRATEGIES.indexOf(b.strategy) ||
	String(a.summaryInformation).localeCompare(String(b.summaryInformation));

function assemble(tasks: readonly RunTask[], done: readonly TaskResult[]): RunRows {
	const key = (m: ReplayMetrics) => `${m.corpus}\u0000${m.session}\u0000${m.window}\u0000${m.strategy}`;
	const tagged = tasks.map((task, i) => ({ task, metrics: { ...done[i].metrics, corpus: task.corpus } as ReplayMetrics, perRequest: done[i].perRequest }));
	const of = (kind: TaskKind) => tagged.filter(t => t.task.kind === kind);
	const ledgerOff = new Map(of('ledgerOff').map(t => [key(t.metrics), t.metrics]));
	const backgroundOff = new Map(of('backgroundOff').map(t => [key(t.metrics), t.metrics]));
	const results = of('main').map(({ metrics }) => {
		const off = ledgerOff.get(key(metrics));
		const noBackground = backgroundOff.get(key(metrics));
		return {
			...metrics,
			...(off ? { ledgerOff: ledgerOffComparison(off) } : {}),
			...(noBackground && metrics.background ? { backgroundOff: backgroundOffFigures(noBackground) } : {}),
		};
	});
	const series = new Map<string, ChartSeries[]>();
	for (const { metrics, perRequest } of of('main')) {
		if (!perRequest) continue;
		const list = series.get(metrics.session) ?? [];
		list.push({ strategy: metrics.strategy, window: metrics.window, records: perRequest });
		series.set(metrics.session, list);
	}
	const sorted = (kind: TaskKind) =>
		of(kind)
			.map(t => t.metrics)
			.sort(rowOrder);
	return { results: results.sort(rowOrder), singleSlot: sorted('singleSlot'), curves: sorted('curve'), dayLong: sorted('dayLong'), series };
}

/** The waits of the same replay with background summaries off. */
function backgroundOffFigures(metrics: ReplayMetrics) {
	const { compactionOverflows, waitMsP50, waitMsP95, waitMsTotal, sessionMs, summarizerInputTokens } = metrics;
	return { compactionOverflows, waitMsP50, waitMsP95, waitMsTotal, sessionMs, summarizerInputTokens };
}

function writeCharts(out: string, series: Map<string, ChartSeries[]>, windows: readonly number[]): void {
	const budgetTokenizer = new TiktokenTokenizer();
	const budgets = new Map(windows.map(w => [w, benchBudget(w, budgetTokenizer).messages]));
	for (const [session, list] of series) writeFileSync(join(out, `${session}.svg`), sessionChart(session, list, budgets));
}

/** What the full run replays besides the main table: the information curves, the day-long chats and the single-slot replays. */
interface Extras {
	readonly curves: readonly ReplayMetrics[];
	readonly dayLong: readonly ReplayMetrics[];
	readonly singleSlot: readonly ReplayMetrics[];
}

/** The scopes the run reports: each corpus, and all of them together when there are several. */
function scopesOf(corpora: readonly Corpus[]): { name: string; has: (m: ReplayMetrics) => boolean }[] {
	const each = corpora.map(c => ({ name: c.name, has: (m: ReplayMetrics) => m.corpus === c.name }));
	return corpora.length > 1 ? [...each, { name: `all ${corpora.length} corpora`, has: () => true }] : each;
}

/** The tables under the main one, each printed only when it has rows; returned for latest.json. */
function printSummaries(results: ReplayMetrics[], plan: RunPlan, extras: Extras) {
	const { args } = plan;
	const out = (title: string, table: string) => process.stdout.write(`\n${title}\n${table}\n`);
	const scopes = scopesOf(plan.corpora).map(scope => {
		const sessions = new Set(results.filter(scope.has).map(r => r.session)).size;
		const goals = checkGoals(results.filter(scope.has), extras.dayLong.filter(scope.has), extras.singleSlot.filter(scope.has));
		return { scope: scope.name, sessions, goals, knowledge: summarizeKnowledge(results.filter(scope.has)) };
	});
	for (const s of scopes) {
		out(`Targets on ${s.scope} (${s.sessions} sessions; issue 39's goals; recommended configuration: ${RECOMMENDED}):`, formatGoals(s.goals));
	}
	const goals = scopes[scopes.length - 1].goals;
	const knowledge = summarizeKnowledge(results);
	if (knowledge.length) {
		out(
			`What the agent can still know (summaries: ${informationName(args.summaryInformation)}; intact horizon: rounds with every result whole; continuity: oracle facts named, every request from the first compaction on; details: visible, in a summary, recalled by a query the prompt makes possible, lost; the old line-word recall rule beside it):`,
			formatKnowledge(knowledge),
		);
	}
	const curves = summarizeCurves([
		...results.filter(r => CURVE_WINDOWS.includes(r.window) && CURVE_STRATEGIES.includes(r.strategy) && curveSubset(plan).has(fileOf(plan, r))),
		...extras.curves,
	]);
	if (extras.curves.length) {
		out(
			"Knowledge over the summaries' information N (share of facts the stand-in states; copying: the old stand-in; the first corpus only):",
			formatCurves(curves),
		);
	}
	const labels = labelCheck();
	out('The fact oracle against the hand labels (bench/knowledge/labels):', formatLabelCheck(labels));
	const continuity = summarizeContinuity(results);
	if (continuity.length) out('Continuity, done-ledger on vs off (16k and 32k):', formatContinuity(continuity));
	const masking = compareMasking(results);
	if (masking.length) out('Cheap-first compaction (without → with masking, sums over the sessions):', formatMasking(masking));
	const rules = summarizeRules(results);
	out('Same rules for every strategy (sums over the sessions):', formatRules(rules));
	const time = summarizeTime([
		...results,
		...backgroundOffRows(results),
		...extras.singleSlot.map(r => ({ ...r, strategy: `${r.strategy} (single-slot)` as StrategyName })),
	]);
	if (time.length) {
		out(
			`Time (clock ${args.clock}, rate limits ${args.rateLimits}, provider ${args.provider} unless marked; sums and shares over the sessions):`,
			formatTime(time),
		);
	}
	const dayLong = extras.dayLong.map(dayLongRow);
	if (dayLong.length) out(`The day-long chats at 16k (${DAY_SESSIONS} sessions each, in name order):`, formatTable(extras.dayLong, DAY_LONG_COLUMNS));
	const realModels = summarizeRealModels(results);
	if (realModels.length) {
		out('Real models (refusals after recovery, overflows, truncations after a failed summary; sums over the sessions):', formatRealModels(realModels));
	}
	const byScope = scopes.map(({ scope, sessions, goals: g, knowledge: k }) => ({ scope, sessions, goals: g, knowledge: k }));
	return { goals, scopes: byScope, knowledge, curves: extras.curves.length ? curves : [], labels, continuity, masking, time, dayLong, realModels, rules };
}

/** The session file a row was replayed from (for the curves' subset). */
function fileOf(plan: RunPlan, row: ReplayMetrics): string {
	return plan.corpora.find(c => c.name === row.corpus)?.files.find(f => basename(f, '.json') === row.session) ?? '';
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
						userWaits: 0,
						userWaitMsTotal: r.backgroundOff.waitMsTotal,
						userWaitMsMax: 0,
						userWaitMsP95: r.backgroundOff.waitMsP95,
						slotWaits: 0,
						slotWaitMsTotal: 0,
					},
				]
			: [],
	);
}

const DAY_LONG_COLUMNS: [string, keyof ReplayMetrics][] = [
	['corpus', 'corpus'],
	['chat', 'session'],
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
function writeLatest(plan: RunPlan, durationMs: number, summaries: ReturnType<typeof printSummaries>, rows: RunRows): void {
	const { args, corpora, windows, strategies } = plan;
	const report = {
		generatedAt: new Date().toISOString(),
		node: process.version,
		cpus: cpus().length,
		workers: args.workers,
		durationMs,
		corpora: corpora.map(c => ({ name: c.name, sessions: c.files.length })),
		curveSessions: curveSubset(plan).size,
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
		singleSlot: rows.singleSlot.map(singleSlotRow),
		results: rows.results,
	};
	const json = JSON.stringify(report, null, 2) + '\n';
	writeFileSync(join(args.out, 'latest.json'), json);
	// The document is rendered from the JSON as written, as the check in the unit tests reads it.
	const doc = join(dirname(args.out), 'RESULTS.md');
	writeFileSync(doc, renderResults(JSON.parse(json) as LatestRun));
	process.stdout.write(`wrote ${join(args.out, 'latest.json')}, ${rows.series.size} SVG charts and ${doc}\n`);
}

/** The figures of a single-slot replay that latest.json keeps. */
const SINGLE_SLOT_FIELDS = [
	'corpus',
	'session',
	'window',
	'strategy',
	'userWaits',
	'userWaitMsTotal',
	'userWaitMsP95',
	'userWaitMsMax',
	'slotWaits',
	'slotWaitMsTotal',
	'waitMsTotal',
	'summarizerTokens',
] as const;

/** A single-slot replay's figures kept in latest.json. */
function singleSlotRow(m: ReplayMetrics): Pick<ReplayMetrics, (typeof SINGLE_SLOT_FIELDS)[number]> {
	return Object.fromEntries(SINGLE_SLOT_FIELDS.map(field => [field, m[field]])) as Pick<ReplayMetrics, (typeof SINGLE_SLOT_FIELDS)[number]>;
}

/** The corpora (or --stress, --variants): the table and its summaries; the full run also writes latest.json and one chart per session. */
async function playCorpus(plan: RunPlan): Promise<number> {
	const { args, windows, full } = plan;
	const started = performance.now();
	if (full) mkdirSync(args.out, { recursive: true });
	const tasks = runTasksOf(plan);
	process.stderr.write(`${tasks.length} replays on ${args.workers} worker${args.workers === 1 ? '' : 's'}\n`);
	const rowsFile = process.env.LONGHAUL_BENCH_ROWS;
	const done = await runTasks(tasks, args.workers, (task, result) => {
		const m = result.metrics;
		// Each replay's figures as it ends, one JSON line (a run cut short still leaves what it measured).
		if (rowsFile) appendFileSync(rowsFile, JSON.stringify({ kind: task.kind, ...m, corpus: task.corpus }) + '\n');
		const what = task.kind === 'curve' ? `at N = ${m.summaryInformation}` : task.kind === 'main' ? '' : `(${task.kind})`;
		process.stderr.write(`${m.session} ${m.window} ${m.strategy} ${what}: ${result.seconds.toFixed(1)} s\n`);
	});
	const rows = assemble(tasks, done);
	if (full) writeCharts(args.out, rows.series, windows);
	const durationMs = Math.round(performance.now() - started);
	process.stdout.write(formatTable(rows.results) + '\n');
	const summaries = printSummaries(rows.results, plan, rows);
	process.stdout.write(
		`\n${tasks.length} replays (${rows.results.length} in the main table) in ${(durationMs / 1000).toFixed(1)} s on ${args.workers} worker(s)\n`,
	);
	if (full) writeLatest(plan, durationMs, summaries, rows);
	return 0;
}

/** Request-weighted intact horizon of `rows`, or null. */
function horizonOf(rows: readonly ReplayMetrics[]): number | null {
	const requests = rows.reduce((n, r) => n + r.requests, 0);
	return requests ? rows.reduce((n, r) => n + r.intactHorizonRounds * r.requests, 0) / requests : null;
}

/** --sweep: the replays again at each value of one constant; per value, window and corpus (and all), each strategy's intact horizon and the first minus the second. */
async function playSweep(plan: RunPlan, sweep: NonNullable<CliArgs['sweep']>): Promise<number> {
	const { args, corpora, windows, strategies, replayOptions } = plan;
	const tasks: RunTask[] = corpora.flatMap(corpus =>
		corpus.files.flatMap(file =>
			windows.flatMap(window =>
				strategies.map(strategy => ({ kind: 'main' as const, corpus: corpus.name, files: [file], options: { window, strategy, ...replayOptions } })),
			),
		),
	);
	const head = [
		'value',
		'window',
		'corpus',
		'sessions',
		...strategies.map(s => `${s} horizon`),
		...(strategies.length > 1 ? [`${strategies[0]} − ${strategies[1]}`] : []),
		`${strategies[0]} continuity`,
		`${strategies[0]} reachable`,
	];
	const lines: string[][] = [];
	for (const value of sweep.values) {
		const started = performance.now();
		const done = await runTasks(tasks, args.workers, undefined, { [sweep.name]: value });
		const rows = tasks.map((task, i) => ({ ...done[i].metrics, corpus: task.corpus }) as ReplayMetrics);
		process.stderr.write(`${sweep.name} = ${value}: ${tasks.length} replays in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
		for (const window of windows) {
			for (const scope of scopesOf(corpora)) {
				const scoped = rows.filter(r => r.window === window && scope.has(r));
				const horizons = strategies.map(s => horizonOf(scoped.filter(r => r.strategy === s)));
				const knowledge = summarizeKnowledge(scoped.filter(r => r.strategy === strategies[0]))[0];
				const continuity = knowledge?.continuity ?? null;
				const reachable = knowledge?.detailsReachable ?? null;
				const cellOf = (x: number | null, sign = false) => (x === null ? '-' : `${sign && x >= 0 ? '+' : ''}${x.toFixed(2)}`);
				lines.push([
					String(value),
					String(window),
					scope.name,
					String(new Set(scoped.map(r => r.session)).size),
					...horizons.map(h => cellOf(h)),
					...(strategies.length > 1 ? [horizons[0] !== null && horizons[1] !== null ? cellOf(horizons[0] - horizons[1], true) : '-'] : []),
					continuity === null ? '-' : continuity.toFixed(3),
					reachable === null ? '-' : reachable.toFixed(3),
				]);
			}
		}
	}
	const widths = head.map((h, i) => Math.max(h.length, ...lines.map(l => l[i].length)));
	const line = (cells: string[]) => cells.map((c, i) => (i === 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
	process.stdout.write(
		`${sweep.name} (${SWEEPABLE[sweep.name].module}: ${SWEEPABLE[sweep.name].name}), intact horizon by corpus:\n${[line(head), ...lines.map(line)].join('\n')}\n`,
	);
	return 0;
}

async function main(): Promise<number> {
	const parsed = parseArgs(process.argv.slice(2));
	if (parsed === 'help') {
		process.stdout.write(USAGE + '\n');
		return EXIT_OK;
	}
	const plan = runPlan(parsed);
	if (plan.args.sweep) return playSweep(plan, plan.args.sweep);
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
