// `/context`: what the next prompt is made of, in tokens and share of the window, and what
// Longhaul keeps for it: the summary blocks (each a link that opens it), the done-ledger, the
// workspace's pinned instructions, the token ratio, the model that writes summaries.
import type * as vscode from 'vscode';
import { roundText, type Conversation } from '../common/conversation/conversation';
import { layoutPrompt, olderRequestsBudget } from '../common/conversation/promptLayout';
import { blockRows, type BlockRow } from '../common/conversation/blockListing';
import { blockTokens } from '../common/summaries/condenseBlocks';
import { summaryBudget, windowTokensUsed, type PromptBudget } from '../common/tokens/budget';
import { budgetFor } from './agentLoop';
import { countTokens } from '../common/tokens/tokenizer';
import { backgroundLine } from './backgroundSummary';
import { nextLedgerText, nextPromptTokens } from './nextPrompt';
import type { LonghaulSettings } from './settings';
import { toChatTools } from './toolCatalog';
import type { DoneLedger } from '../common/ledger/doneLedger';
import { UNCALIBRATED, calibrationRatio, type Calibration } from '../common/tokens/calibration';
import { rememberSummary, restoreLink, summaryLink } from './summaryDocuments';
import { describeLocation } from '../common/summaries/summaryDocument';
import type { PinnedInstructions } from '../common/instructions/pinnedInstructions';
import { pinnedFor, type InstructionFilesRead } from './instructionFiles';

export interface ContextInput {
	readonly conversation: Conversation;
	readonly model: vscode.LanguageModelChat;
	readonly tools: readonly vscode.LanguageModelToolInformation[];
	readonly settings: LonghaulSettings;
	readonly toolsLeftOut?: readonly string[];
	readonly ledger?: DoneLedger;
	/** What Longhaul has learned of this model's token count (its ratio scales the budget). */
	readonly calibration?: Calibration;
	/** Whether telemetry events are recorded now (VS Code's telemetry level allows usage data). */
	readonly telemetryRecorded?: boolean;
	/** The workspace's instruction files as read for this request. */
	readonly instructions?: InstructionFilesRead;
	/** One line on the model that writes summaries (`longhaul.summarizerModel`). */
	readonly summarizerLine?: string;
}

/** The verbatim parts of the prompt layout, in tokens, and the links that open its summary blocks. */
interface LayoutTally {
	readonly rounds: number;
	readonly roundCount: number;
	readonly requests: number;
	readonly shortened: number;
	readonly summaryLinks: string[];
}

export async function contextReport(input: ContextInput): Promise<string> {
	const { conversation, model, settings } = input;
	const chatTools = toChatTools(input.tools);
	const calibration = input.calibration ?? UNCALIBRATED;
	const budget = budgetFor(model, chatTools, calibrationRatio(calibration));
	const tally = tallyLayout(conversation, budget);
	const blocks = blockRows(conversation, block => blockTokens(block, countTokens));
	const summaries = blocks.reduce((n, b) => n + b.tokens, 0);
	const pinned = input.instructions ? pinnedFor(input.instructions, budget.messages) : undefined;
	const next = { conversation, chatTools, budget, settings, ledger: input.ledger, pinnedInstructions: pinned?.text };
	const ledgerText = nextLedgerText(next);
	const ledgerTokens = ledgerText ? countTokens(ledgerText) : 0;
	const pinnedTokens = pinned?.text ? countTokens(pinned.text) : 0;
	const total = await nextPromptTokens(next, ledgerText);
	const system = Math.max(0, total - summaries - tally.rounds - tally.requests - ledgerTokens - pinnedTokens);
	const used = windowTokensUsed(total, budget);
	const pct = (n: number) => (budget.window ? ((100 * n) / budget.window).toFixed(1) : '0.0') + '%';
	const rows: [string, number][] = [
		['System instructions and message framing', system],
		[`Workspace instructions (${pinned?.files.filter(f => f.state !== 'left-out').length ?? 0} file${pinned?.files.length === 1 ? '' : 's'})`, pinnedTokens],
		['Tool definitions (' + chatTools.length + ' tools)', budget.toolTokens],
		[`Summaries (${blocks.length} block${blocks.length === 1 ? '' : 's'})`, summaries],
		['Done-ledger', ledgerTokens],
		[`Verbatim rounds (${tally.roundCount})`, tally.rounds],
		[`User requests${tally.shortened ? ` (${tally.shortened} shortened)` : ''}`, tally.requests],
		["Held for the provider's own instructions", budget.providerTokens],
		['Reserve (tokenizer difference)', budget.reserve],
		['Free', Math.max(0, budget.window - used - budget.reserve)],
	];
	return [
		`**Context window of ${model.name}:** ${budget.window.toLocaleString('en-US')} tokens${budget.ratio > 1 ? ` by Longhaul's count (${model.maxInputTokens.toLocaleString('en-US')} by the model's)` : ''}, ${pct(used)} used by the next prompt.`,
		'',
		'| Part | Tokens | Share of window |',
		'| --- | ---: | ---: |',
		...rows.map(([name, n]) => `| ${name} | ${n.toLocaleString('en-US')} | ${pct(n)} |`),
		'',
		...toolLines(input.toolsLeftOut ?? []),
		...instructionLines(input.instructions, pinned),
		...blockLines(blocks, summaryBudget(budget)),
		...(tally.summaryLinks.length
			? [
					'Open a summary block to read (and correct: edit and save) what the model remembers in place of the older rounds, or restore it to bring those rounds back word for word (`/restore N` for request N):',
					'',
					...tally.summaryLinks,
					'',
				]
			: []),
		...ledgerLines(settings, input.ledger, ledgerText),
		calibrationLine(model, budget, calibration),
		'',
		backgroundLine(model.id),
		'',
		`Summarization mode: **${settings.summarizationMode}** (\`longhaul.halfContextSummarization\` is ${settings.summarizationMode === 'half-context' ? 'on' : 'off'}); summaries are prepared in the ${settings.backgroundSummarizationThreshold > 0 ? `background when the forecast says so, at the latest from ${Math.round(settings.backgroundSummarizationThreshold * 100)}% of the window` : 'background never (the threshold is 0)'} for this model (family \`${model.family}\`, \`longhaul.backgroundSummarizationThreshold\`). Counts are local js-tiktoken estimates.`,
		...(input.summarizerLine ? ['', input.summarizerLine] : []),
		...telemetryLines(input.telemetryRecorded),
	].join('\n');
}

function tallyLayout(conversation: Conversation, budget: PromptBudget): LayoutTally {
	const tally = { rounds: 0, roundCount: 0, requests: 0, shortened: 0, summaryLinks: [] as string[] };
	for (const entry of layoutPrompt(conversation, { olderRequestsMaxTokens: olderRequestsBudget(budget.messages), countTokens })) {
		if (entry.kind === 'summary') {
			const request = entry.location.source === 'history' ? conversation.turns[entry.location.turnIndex]?.user : undefined;
			const document = rememberSummary({ roundId: entry.roundId, text: entry.text, location: entry.location, request, edited: entry.edited });
			tally.summaryLinks.push(
				`- ${summaryLink(document, `Summary up to ${describeLocation(entry.location)}`)}: ${countTokens(entry.text).toLocaleString('en-US')} tokens${entry.edited ? ' (edited by you)' : ''} · ${restoreLink({ roundId: entry.roundId }, 'Restore')}`,
			);
		} else if (entry.kind === 'round') {
			tally.rounds += countTokens(roundText(entry.round));
			tally.roundCount++;
		} else if (entry.kind === 'user') {
			tally.requests += countTokens(entry.text);
			if (entry.shortened) tally.shortened++;
		}
	}
	return tally;
}

function toolLines(leftOut: readonly string[]): string[] {
	if (!leftOut.length) return [];
	return [
		`${leftOut.length} tool${leftOut.length === 1 ? '' : 's'} left out so that tool definitions stay within a quarter of the window: ${leftOut.map(n => '`' + n + '`').join(', ')}. Attach one with \`#\` to offer it anyway.`,
		'',
	];
}

/** The workspace's instruction files: which are pinned, whole or cut, and which were not read. */
function instructionLines(read: InstructionFilesRead | undefined, pinned: PinnedInstructions | undefined): string[] {
	if (!read) return [];
	const lines: string[] = [];
	if (pinned?.files.length) {
		const state = (f: PinnedInstructions['files'][number]) =>
			f.state === 'whole' ? 'whole' : f.state === 'cut' ? `cut to ${f.keptTokens.toLocaleString('en-US')} tokens` : 'left out (no room)';
		lines.push(
			`**Workspace instructions** (pinned word for word in every prompt, never summarized; at most ${pinned.maxTokens.toLocaleString('en-US')} tokens):`,
			'',
			...pinned.files.map(f => `- \`${f.path}\`: ${f.tokens.toLocaleString('en-US')} tokens, ${state(f)}`),
			'',
		);
	} else if (!read.untrustedSkipped.length) {
		lines.push(
			'**Workspace instructions:** none found (`AGENTS.md`, `.github/copilot-instructions.md` and the files of `longhaul.instructionFiles` are read at each request).',
			'',
		);
	}
	if (read.untrustedSkipped.length) {
		lines.push(
			`**Workspace instructions not read:** the workspace is not trusted, so ${read.untrustedSkipped.map(p => '`' + p + '`').join(', ')} stay out of the prompt.`,
			'',
		);
	}
	if (read.problems.length) lines.push(`Instruction files that could not be read: ${read.problems.join('; ')}.`, '');
	return lines;
}

/** The token ratio in use: how the local counts above relate to the model's own. */
function calibrationLine(model: vscode.LanguageModelChat, budget: PromptBudget, calibration: Calibration): string {
	const ratio = calibrationRatio(calibration);
	const learned =
		calibration.samples || calibration.rejections
			? `learned from ${calibration.samples} comparison${calibration.samples === 1 ? '' : 's'} with the model's own count${calibration.rejections ? ` and ${calibration.rejections} refusal${calibration.rejections === 1 ? '' : 's'} as too long` : ''}`
			: "nothing learned yet: Longhaul compares with the model's own count as the conversation goes";
	const line = `**Token ratio:** ${ratio.toFixed(2)} model tokens per local token (${learned}); the budget is the model's window of ${model.maxInputTokens.toLocaleString('en-US')} tokens divided by it, ${budget.window.toLocaleString('en-US')} local tokens.`;
	return [line, ...sampleLines(calibration)].join(' ');
}

/** What the last comparison counted, and how the model's message count was found to work. */
function sampleLines(calibration: Calibration): string[] {
	const lines: string[] = [];
	const last = calibration.lastSample;
	if (last) {
		const n = (x: number) => x.toLocaleString('en-US');
		const what = `${last.messages} message${last.messages === 1 ? '' : 's'}${last.toolDefinitions ? ' and the tool definitions' : ''}`;
		const asText = last.asText ? `, ${last.asText} of them counted as text` : '';
		const uncounted = last.uncounted ? `, ${last.uncounted} left out because the model counted almost nothing of them` : '';
		const ratio = last.localTokens ? ` (${(last.modelTokens / last.localTokens).toFixed(3)})` : '';
		lines.push(`Last comparison: ${what}${asText}${uncounted}: ${n(last.localTokens)} local tokens, ${n(last.modelTokens)} by the model${ratio}.`);
	}
	if (calibration.counting === 'text-only') {
		lines.push("The model's count of a message leaves tool results out, so messages with tool results are compared as text.");
	} else if (calibration.counting === 'none') {
		lines.push("The model's count of a message leaves its text out, so every message is compared as text.");
	}
	return lines;
}

/** Every summary block, in conversation order: its request, the rounds it stands for, its size. */
function blockLines(blocks: readonly BlockRow[], budget: number): string[] {
	if (!blocks.length) return [];
	const total = blocks.reduce((n, b) => n + b.tokens, 0);
	const rounds = (b: BlockRow) =>
		b.fromEarlier
			? `every round before it, through round ${b.lastRound} (${b.roundCount}; written by Longhaul 0.1.0)`
			: b.firstRound === b.lastRound
				? `round ${b.firstRound}`
				: `rounds ${b.firstRound}–${b.lastRound} (${b.roundCount})`;
	return [
		`**Summary blocks:** ${blocks.length}, one per request with summarized rounds, each right after its request; ${total.toLocaleString('en-US')} of ${budget.toLocaleString('en-US')} tokens (beyond that the oldest are condensed, never removed).`,
		'',
		'| Request | Rounds it stands for | Tokens | |',
		'| ---: | --- | ---: | --- |',
		...blocks.map(
			b =>
				`| ${b.request}${b.current ? ' (this one)' : ''} | ${rounds(b)} | ${b.tokens.toLocaleString('en-US')} | ${[b.block.condensed ? 'condensed' : '', b.block.edited ? 'edited by you' : ''].filter(Boolean).join(', ')} |`,
		),
		'',
	];
}

/** What the done-ledger holds, and whether the next prompt shows it. */
function ledgerLines(settings: LonghaulSettings, ledger: DoneLedger | undefined, text: string | undefined): string[] {
	if (!ledger) return [];
	const edited = ledger.edits.length;
	const facts = `${ledger.requests.length} request${ledger.requests.length === 1 ? '' : 's'}, ${ledger.reads.length} file${ledger.reads.length === 1 ? '' : 's'} read, ${edited} file${edited === 1 ? '' : 's'} created or edited, ${ledger.commands.length} command${ledger.commands.length === 1 ? '' : 's'} run, ${ledger.steps} tool call${ledger.steps === 1 ? '' : 's'} in all`;
	const shown = !settings.doneLedger
		? 'not shown to the model (`longhaul.doneLedger` is off)'
		: text
			? 'shown to the model after the summaries'
			: 'shown to the model once the conversation has been summarized (until then every round is verbatim)';
	// The fence is longer than any run of backticks in the ledger (a request may quote code), so the block cannot end early.
	const fence = '`'.repeat(Math.max(3, ...[...(text ?? '').matchAll(/`+/g)].map(m => m[0].length + 1)));
	return [`**Done-ledger:** ${facts}; ${shown}.`, ...(text ? ['', `${fence}text`, text, fence] : []), ''];
}

function telemetryLines(recorded: boolean | undefined): string[] {
	if (recorded === undefined) return [];
	return [
		'',
		recorded
			? 'Statistics: each summarization is recorded in the Longhaul log (`telemetry.telemetryLevel` is `all`; nothing is sent anywhere).'
			: 'Statistics: not recorded (`telemetry.telemetryLevel` is below `all`).',
	];
}
