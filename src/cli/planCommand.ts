// `longhaul-plan`: prints the summarization plan of a session file. Pure except for the
// injected file reader, so it is unit-tested without spawning a process.
import { SessionFormatError, conversationFromSessionJson } from '../common/persistence/corpusFormat';
import { NothingToSummarizeError, type SummarizationMode, type SummarizationPlan } from '../common/planning/plan';
import { planSummarization } from '../common/planning/planners';
import type { Conversation } from '../common/conversation/conversation';
import { explainPlan } from './explain';

export const EXIT_OK = 0;
export const EXIT_INVALID = 1;
export const EXIT_NOTHING_TO_SUMMARIZE = 2;

export const USAGE = `Usage: longhaul-plan --input <conversation.json> [--mode half|legacy] [--explain]

Prints which rounds Longhaul would summarize and which it would keep verbatim.
  --input    a session file: {"turns":[{"user","rounds":[{"response","toolCalls":[...]}]}],"activeRounds"?:[...]}
  --mode     half (half-context, the default) or legacy
  --explain  describe the plan for people instead of printing JSON
Exit codes: 0 plan printed, 1 invalid arguments or input, 2 nothing to summarize.`;

export interface CliArgs {
	readonly input: string;
	readonly mode: SummarizationMode;
	readonly explain: boolean;
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
	return input ? { input, mode, explain } : { error: '--input is required' };
}

/** The JSON the CLI prints: the fields of the documented output, nothing internal. */
export function planToJson(plan: SummarizationPlan): object {
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
		},
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
		plan = planSummarization(conversation, args.mode);
	} catch (error) {
		if (!(error instanceof NothingToSummarizeError)) throw error;
		const stdout = args.explain
			? `Nothing to summarize (${args.mode}): every round is already covered by a summary or must stay verbatim.\n`
			: JSON.stringify({ error: 'nothing-to-summarize' }) + '\n';
		return { stdout, stderr: '', exitCode: EXIT_NOTHING_TO_SUMMARIZE };
	}
	const stdout = args.explain ? explainPlan(plan, conversation, args.input) : JSON.stringify(planToJson(plan), null, 2) + '\n';
	return { stdout, stderr: '', exitCode: EXIT_OK };
}

function invalid(message: string): CliResult {
	return { stdout: '', stderr: `longhaul-plan: ${message}\n`, exitCode: EXIT_INVALID };
}
