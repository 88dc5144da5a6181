// `longhaul-plan`: prints the summarization plan of a session file. Pure except for the
// injected file reader, so it is unit-tested without spawning a process.
import { SessionFormatError, conversationFromSessionJson } from '../common/persistence/corpusFormat';
import { NothingToSummarizeError, type SummarizationMode, type SummarizationPlan } from '../common/planning/plan';
import { planSummarization, type PlanOptions } from '../common/planning/planners';
import type { Conversation } from '../common/conversation/conversation';
import { blockSegments, type BlockSegment } from '../common/summaries/applySummary';
import { computeBudget } from '../common/tokens/budget';
import { countTokens } from '../common/tokens/tokenizer';
import { MIN_KEPT_ROUNDS } from '../common/planning/halfContextPlanner';
import { explainPlan } from './explain';

export const EXIT_OK = 0;
export const EXIT_INVALID = 1;
export const EXIT_NOTHING_TO_SUMMARIZE = 2;

export const USAGE = `Usage: longhaul-plan --input <conversation.json> [--mode half|legacy] [--window N] [--min-keep N] [--explain]

Prints which rounds Longhaul would summarize, which it would keep verbatim, and the summary
blocks the summarized rounds become (one per turn).
  --input     a session file: {"turns":[{"user","rounds":[{"response","toolCalls":[...]}]}],"activeRounds"?:[...]}
  --mode      half (half-context, the default) or legacy
  --window N  the model's window in tokens (16000 or 16k): half-context keeps at most half of
              Longhaul's message budget for that window verbatim (without tool definitions);
              without it, the pure round rule
  --min-keep N  the fewest rounds half-context keeps verbatim (default ${MIN_KEPT_ROUNDS}, at least ${MIN_KEPT_ROUNDS})
  --explain   describe the plan for people instead of printing JSON
Exit codes: 0 plan printed, 1 invalid arguments or input, 2 nothing to summarize.`;

export interface CliArgs {
	readonly input: string;
	readonly mode: SummarizationMode;
	readonly explain: boolean;
	/** --window: the model's window; the planner then applies the token-aware rule. */
	readonly window?: number;
	readonly minKeep?: number;
}

export interface CliResult {
	readonly stdout: string;
	readonly stderr: string;
	readonly exitCode: number;
}

/** The arguments, or a message saying what is wrong with them. */
export function parseArgs(argv: readonly string[]): CliArgs | { readonly error: string } | 'help' {
	let input: string | undefined;
	let mode: SummarizationMode = 'half-context';
	let explain = false;
	let window: number | undefined;
	let minKeep: number | undefined;
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
		const value = () => inline ?? argv[++i];
		switch (flag) {
			case '--input': {
				input = value();
				if (!input) return { error: '--input needs a file path' };
				break;
			}
			case '--mode': {
				const m = value();
				if (m === 'half' || m === 'half-context') mode = 'half-context';
				else if (m === 'legacy') mode = 'legacy';
				else return { error: `--mode must be "half" or "legacy", got ${m === undefined ? 'nothing' : JSON.stringify(m)}` };
				break;
			}
			case '--window': {
				const w = value();
				const m = w === undefined ? null : /^(\d+(?:\.\d+)?)(k)?$/i.exec(w.trim());
				const n = m ? Math.round(Number(m[1]) * (m[2] ? 1000 : 1)) : NaN;
				if (!(n >= 1000)) {
					return {
						error: `--window must be a number of tokens of at least 1000, such as 16000 or 16k; got ${w === undefined ? 'nothing' : JSON.stringify(w)}`,
					};
				}
				window = n;
				break;
			}
			case '--min-keep': {
				const k = value();
				const n = k !== undefined && /^\d+$/.test(k.trim()) ? Number(k) : NaN;
				if (!(n >= MIN_KEPT_ROUNDS)) {
					return { error: `--min-keep must be a whole number of at least ${MIN_KEPT_ROUNDS}; got ${k === undefined ? 'nothing' : JSON.stringify(k)}` };
				}
				minKeep = n;
				break;
			}
			case '--explain':
				explain = true;
				break;
			case '--help':
			case '-h':
				return 'help';
			default:
				return { error: `unknown argument ${JSON.stringify(arg)}` };
		}
	}
	if (!input) return { error: '--input is required' };
	return { input, mode, explain, ...(window !== undefined ? { window } : {}), ...(minKeep !== undefined ? { minKeep } : {}) };
}

/** The planner options the arguments ask for: with --window, the token-aware rule at Longhaul's message budget for it. */
export function planOptions(args: Pick<CliArgs, 'window' | 'minKeep'>): PlanOptions {
	return {
		...(args.minKeep !== undefined ? { minKeep: args.minKeep } : {}),
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
	const args = parseArgs(argv);
	if (args === 'help') return { stdout: USAGE + '\n', stderr: '', exitCode: EXIT_OK };
	if ('error' in args) return invalid(`${args.error}\n\n${USAGE}`);

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

function invalid(message: string): CliResult {
	return { stdout: '', stderr: `longhaul-plan: ${message}\n`, exitCode: EXIT_INVALID };
}
