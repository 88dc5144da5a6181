// `longhaul-plan`: prints the summarization plan of a session file. Pure except for the
// injected file reader, so it is unit-tested without spawning a process.
import { SessionFormatError, conversationFromSessionJson } from '../common/persistence/corpusFormat';
import { NothingToSummarizeError, type SummarizationMode, type SummarizationPlan } from '../common/planning/plan';
import { planSummarization, type PlanOptions } from '../common/planning/planners';
import type { Conversation } from '../common/conversation/conversation';
import { blockSegments, type BlockSegment } from '../common/summaries/applySummary';
import { computeBudget } from '../common/tokens/budget';
import { countTokens } from '../common/tokens/tokenizer';
import { MIN_RECENT_ROUNDS } from '../common/planning/halfContextPlanner';
import { explainPlan } from './explain';
import { EXIT_FAILURE, EXIT_OK, parseTokenCount, readCommandLine, stopMessage, UsageError } from './commandLine';

const PROGRAM = 'longhaul-plan';

/** Exit code when the input is fine but every round is already summarized or must stay verbatim. */
export const EXIT_NOTHING_TO_SUMMARIZE = 3;

export const USAGE = `Usage: longhaul-plan --input <conversation.json> [--mode half|legacy] [--window N] [--min-keep N] [--explain]

Prints which rounds Longhaul would summarize, which it would keep verbatim, and the summary
blocks the summarized rounds become (one per turn). Options take their value as --name value
or --name=value.
  --input     a session file: {"turns":[{"user","rounds":[{"response","toolCalls":[...]}]}],"activeRounds"?:[...]}
  --mode      half (half-context, the default) or legacy
  --window N  the model's window in tokens (16000 or 16k): half-context keeps at most half of
              Longhaul's message budget for that window verbatim (without tool definitions);
              without it, the pure round rule
  --min-keep N  the fewest rounds half-context keeps verbatim (default ${MIN_RECENT_ROUNDS}, at least ${MIN_RECENT_ROUNDS})
  --explain   describe the plan for people instead of printing JSON
  --help, -h  this text
Exit codes: 0 plan printed, 1 unreadable or invalid input, 2 invalid arguments, 3 nothing to summarize.`;

export interface CliArgs {
	readonly input: string;
	readonly mode: SummarizationMode;
	readonly explain: boolean;
	/** --window: the model's window; the planner then applies the token-aware rule. */
	readonly window?: number;
	readonly minRecentRounds?: number;
}

export interface CliResult {
	readonly stdout: string;
	readonly stderr: string;
	readonly exitCode: number;
}

const OPTIONS = { input: 'string', mode: 'string', window: 'string', 'min-keep': 'string', explain: 'boolean' } as const;

/** The arguments, or 'help'. Throws UsageError saying what is wrong with them. */
export function parseArgs(argv: readonly string[]): CliArgs | 'help' {
	const given = readCommandLine(argv, OPTIONS);
	if (given === 'help') return 'help';
	if (given.input === undefined) throw new UsageError('--input is required');
	let mode: SummarizationMode = 'half-context';
	if (given.mode === 'legacy') mode = 'legacy';
	else if (given.mode !== undefined && given.mode !== 'half' && given.mode !== 'half-context') {
		throw new UsageError(`--mode must be "half" or "legacy", got ${JSON.stringify(given.mode)}`);
	}
	const window = given.window === undefined ? undefined : parseTokenCount('--window', given.window);
	let minRecentRounds: number | undefined;
	if (given['min-keep'] !== undefined) {
		const text = given['min-keep'];
		minRecentRounds = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
		if (!(minRecentRounds >= MIN_RECENT_ROUNDS)) {
			throw new UsageError(`--min-keep must be a whole number of at least ${MIN_RECENT_ROUNDS}; got ${JSON.stringify(text)}`);
		}
	}
	return {
		input: given.input,
		mode,
		explain: given.explain === true,
		...(window !== undefined ? { window } : {}),
		...(minRecentRounds !== undefined ? { minRecentRounds } : {}),
	};
}

/** The planner options the arguments ask for: with --window, the token-aware rule at Longhaul's message budget for it. */
export function planOptions(args: Pick<CliArgs, 'window' | 'minRecentRounds'>): PlanOptions {
	return {
		...(args.minRecentRounds !== undefined ? { minRecentRounds: args.minRecentRounds } : {}),
		...(args.window !== undefined ? { countTokens, messageBudget: computeBudget(args.window, 0).messages } : {}),
	};
}

/** The JSON the CLI prints: the fields of the documented output, nothing internal. */
export function planToJson(plan: SummarizationPlan, segments: readonly BlockSegment[]): object {
	const tokenAware = plan.stats.tokenAware;
	return {
		mode: plan.mode,
		...(plan.fallbackReason ? { fallbackReason: plan.fallbackReason } : {}),
		summarizeRoundIds: plan.summarizeRoundIds,
		keepRoundIds: plan.keepRoundIds,
		anchorRoundId: plan.anchorRoundId,
		isContinuation: plan.isContinuation,
		stats: {
			totalRoundCount: plan.stats.totalRoundCount,
			summarizedRoundCount: plan.stats.summarizedRoundCount,
			keptRoundCount: plan.stats.keptRoundCount,
			...(plan.stats.tokens ? { keptTokens: plan.stats.tokens.kept } : {}),
			...(tokenAware ? { splitMoved: tokenAware.moved, roundRuleKeptCount: tokenAware.roundRuleKeptCount, keptTokensLimit: tokenAware.limitTokens } : {}),
		},
		summaryBlocks: segments.map(s => ({ turnIndex: s.turnIndex, roundIds: s.roundIds, ...(s.absorbs ? { absorbs: s.absorbs.roundId } : {}) })),
	};
}

export function runPlanCommand(argv: readonly string[], readFile: (path: string) => string): CliResult {
	let args: CliArgs | 'help';
	try {
		args = parseArgs(argv);
	} catch (error) {
		if (!(error instanceof UsageError)) throw error;
		return { stdout: '', ...stopMessage(PROGRAM, error) };
	}
	if (args === 'help') return { stdout: USAGE + '\n', stderr: '', exitCode: EXIT_OK };

	let conversation: Conversation;
	try {
		// Editors on Windows often save JSON with a UTF-8 byte-order mark, which JSON.parse refuses.
		conversation = conversationFromSessionJson(JSON.parse(readFile(args.input).replace(/^\uFEFF/, '')));
	} catch (error) {
		if (error instanceof SessionFormatError) return invalid(`${args.input}: invalid session: ${error.message}`);
		if (error instanceof SyntaxError) return invalid(`${args.input}: not valid JSON: ${error.message}`);
		return invalid(`${args.input}: ${error instanceof Error ? error.message : String(error)}`);
	}

	let plan: SummarizationPlan;
	try {
		plan = planSummarization(conversation, args.mode, planOptions(args));
	} catch (error) {
		if (!(error instanceof NothingToSummarizeError)) throw error;
		const stdout = args.explain
			? `Nothing to summarize (${args.mode}): every round is already covered by a summary or must stay verbatim.\n`
			: JSON.stringify({ error: 'nothing-to-summarize' }) + '\n';
		return { stdout, stderr: '', exitCode: EXIT_NOTHING_TO_SUMMARIZE };
	}
	const segments = blockSegments(conversation, plan);
	const stdout = args.explain ? explainPlan(plan, segments, conversation, args.input) : JSON.stringify(planToJson(plan, segments), null, 2) + '\n';
	return { stdout, stderr: '', exitCode: EXIT_OK };
}

/** The input could not be read or is not a session: exit 1 with a message naming the file. */
function invalid(message: string): CliResult {
	return { stdout: '', stderr: `${PROGRAM}: ${message}\n`, exitCode: EXIT_FAILURE };
}
