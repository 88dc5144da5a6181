// `/context`: what the next prompt is made of, in tokens and share of the window, and what
// Longhaul keeps for it: the summary blocks (each a link that opens it), the done-ledger, the
// workspace's pinned instructions, the token ratio, the model that writes summaries.
import * as vscode from 'vscode';
import type { Conversation } from '../common/conversation/conversation';
import { summaryBudget, type PromptBudget } from '../common/tokens/budget';
import { contextFigures, type FigureBlock } from './contextFigures';
import type { LonghaulSettings } from './settings';
import { toChatTools } from './toolCatalog';
import type { DoneLedger } from '../common/ledger/doneLedger';
import { UNCALIBRATED, calibrationRatio, type Calibration } from '../common/tokens/calibration';
import { restoreLink, summaryLink, type SummaryDocuments } from './summaryDocuments';
import { ledgerListing } from '../common/ledger/ledgerListing';
import type { PinnedInstructions } from '../common/instructions/pinnedInstructions';
import type { InstructionFilesRead } from './instructionFiles';
import { localize } from './l10n';
import { message, plural } from '../common/text/message';

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
	/** One line on background summaries (backgroundSummary.ts backgroundLine). */
	readonly backgroundLine?: string;
	/** Where the linked summaries are remembered, so their links open them. */
	readonly documents: Pick<SummaryDocuments, 'remember'>;
}

export async function contextReport(input: ContextInput): Promise<string> {
	const { conversation, model, settings } = input;
	const chatTools = toChatTools(input.tools);
	const calibration = input.calibration ?? UNCALIBRATED;
	// The same figures as the meter's, by the same function (contextFigures.ts).
	const figures = await contextFigures({
		conversation,
		model,
		chatTools,
		settings,
		ratio: calibrationRatio(calibration),
		ledger: input.ledger,
		instructions: input.instructions,
	});
	const { budget, pinned } = figures;
	const system = Math.max(
		0,
		figures.messageTokens -
			figures.summaryTokens -
			figures.setAsideTokens -
			figures.verbatimTokens -
			figures.requestTokens -
			figures.ledgerTokens -
			figures.pinnedTokens,
	);
	const pct = (n: number) => (budget.window ? ((100 * n) / budget.window).toFixed(1) : '0.0') + '%';
	const realBlocks = figures.blocks.filter(b => !b.setAside);
	// The number shown counts the files pinned; the noun agrees with all the files found (as before).
	const pinnedFiles = pinned?.files.filter(f => f.state !== 'left-out').length ?? 0;
	const rows: [string, number][] = [
		[vscode.l10n.t('System instructions and message framing'), system],
		[
			pinned?.files.length === 1
				? vscode.l10n.t('Workspace instructions ({0} file)', pinnedFiles)
				: vscode.l10n.t('Workspace instructions ({0} files)', pinnedFiles),
			figures.pinnedTokens,
		],
		[vscode.l10n.t('Tool definitions ({0} tools)', chatTools.length), budget.toolTokens],
		[localize(plural(realBlocks.length, 'Summaries ({0} block)', 'Summaries ({0} blocks)')), figures.summaryTokens],
		...(figures.setAsideRounds
			? [
					[
						localize(
							plural(figures.setAsideRounds, 'Set aside while its summary is written ({0} round)', 'Set aside while their summary is written ({0} rounds)'),
						),
						figures.setAsideTokens,
					] as [string, number],
				]
			: []),
		[vscode.l10n.t('Done-ledger'), figures.ledgerTokens],
		[vscode.l10n.t('Verbatim rounds ({0})', figures.verbatimRounds), figures.verbatimTokens],
		[
			figures.shortenedRequests ? vscode.l10n.t('User requests ({0} shortened)', figures.shortenedRequests) : vscode.l10n.t('User requests'),
			figures.requestTokens,
		],
		[vscode.l10n.t("Held for the provider's own instructions"), budget.providerTokens],
		[vscode.l10n.t('Reserve (tokenizer difference)'), budget.reserve],
		[vscode.l10n.t('Free'), Math.max(0, budget.window - figures.usedTokens - budget.reserve)],
	];
	const windowSize = budget.window.toLocaleString('en-US');
	const share = `${figures.share}%`;
	return [
		budget.ratio > 1
			? vscode.l10n.t(
					"**Context window of {0}:** {1} tokens by Longhaul's count ({2} by the model's); the next prompt takes **{3}** of it.",
					model.name,
					windowSize,
					model.maxInputTokens.toLocaleString('en-US'),
					share,
				)
			: vscode.l10n.t('**Context window of {0}:** {1} tokens; the next prompt takes **{2}** of it.', model.name, windowSize, share),
		...(figures.overflows
			? [
					'',
					vscode.l10n.t(
						'That is more than the window holds: the next request first summarizes older rounds (or sets them aside while their summary is written) before it sends anything.',
					),
				]
			: []),
		'',
		`| ${vscode.l10n.t('Part')} | ${vscode.l10n.t('Tokens')} | ${vscode.l10n.t('Share of window')} |`,
		'| --- | ---: | ---: |',
		...rows.map(([name, n]) => `| ${name} | ${n.toLocaleString('en-US')} | ${pct(n)} |`),
		'',
		...toolLines(input.toolsLeftOut ?? []),
		...instructionLines(input.instructions, pinned),
		...blockLines(conversation, figures.blocks, summaryBudget(budget), input.documents),
		...ledgerLines(settings, input.ledger, figures.ledgerText),
		calibrationLine(model, budget, calibration),
		'',
		...(input.backgroundLine ? [input.backgroundLine] : []),
		'',
		`${modeLine(settings, model)} ${maskingLine(settings)} ${vscode.l10n.t('Counts are local js-tiktoken estimates.')}`,
		...(input.summarizerLine ? ['', input.summarizerLine] : []),
		...telemetryLines(input.telemetryRecorded),
	].join('\n');
}

/** The summarization mode and when background summaries start, for this model. */
function modeLine(settings: LonghaulSettings, model: vscode.LanguageModelChat): string {
	const halfContext = settings.summarizationMode === 'half-context' ? vscode.l10n.t('on') : vscode.l10n.t('off');
	return settings.backgroundSummarizationThreshold > 0
		? vscode.l10n.t(
				'Summarization mode: **{0}** (`longhaul.halfContextSummarization` is {1}); summaries are prepared in the background when the forecast says so, at the latest from {2}% of the window for this model (family `{3}`, `longhaul.backgroundSummarizationThreshold`).',
				settings.summarizationMode,
				halfContext,
				Math.round(settings.backgroundSummarizationThreshold * 100),
				model.family,
			)
		: vscode.l10n.t(
				'Summarization mode: **{0}** (`longhaul.halfContextSummarization` is {1}); summaries are prepared in the background never (the threshold is 0) for this model (family `{2}`, `longhaul.backgroundSummarizationThreshold`).',
				settings.summarizationMode,
				halfContext,
				model.family,
			);
}

/** Whether old tool results are masked in the prompt (`longhaul.maskOldToolResults`). */
function maskingLine(settings: LonghaulSettings): string {
	return settings.maskOldToolResults
		? vscode.l10n.t(
				'Masking of old tool results is **on** (`longhaul.maskOldToolResults`): when the conversation no longer fits, the outputs of older tool calls are first replaced by a one-line note, and the model summarizes only if that is not enough.',
			)
		: vscode.l10n.t('Masking of old tool results is **off** (`longhaul.maskOldToolResults`).');
}

function toolLines(leftOut: readonly string[]): string[] {
	if (!leftOut.length) return [];
	const names = leftOut.map(n => '`' + n + '`').join(', ');
	const which =
		leftOut.length === 1
			? vscode.l10n.t('{0} tool left out so that tool definitions stay within a quarter of the window: {1}.', leftOut.length, names)
			: vscode.l10n.t('{0} tools left out so that tool definitions stay within a quarter of the window: {1}.', leftOut.length, names);
	return [`${which} ${vscode.l10n.t('Attach one with `#` to offer it anyway.')}`, ''];
}

/** The workspace's instruction files: which are pinned, whole or cut, and which were not read. */
function instructionLines(read: InstructionFilesRead | undefined, pinned: PinnedInstructions | undefined): string[] {
	if (!read) return [];
	const lines: string[] = [];
	if (pinned?.files.length) {
		const state = (f: PinnedInstructions['files'][number]) =>
			f.state === 'whole'
				? vscode.l10n.t('whole')
				: f.state === 'cut'
					? vscode.l10n.t('cut to {0} tokens', f.keptTokens.toLocaleString('en-US'))
					: vscode.l10n.t('left out (no room)');
		lines.push(
			vscode.l10n.t(
				'**Workspace instructions** (pinned word for word in every prompt, never summarized; at most {0} tokens):',
				pinned.maxTokens.toLocaleString('en-US'),
			),
			'',
			...pinned.files.map(f => `- \`${f.path}\`: ${vscode.l10n.t('{0} tokens, {1}', f.tokens.toLocaleString('en-US'), state(f))}`),
			'',
		);
	} else if (!read.untrustedSkipped.length) {
		lines.push(
			vscode.l10n.t(
				'**Workspace instructions:** none found (`AGENTS.md`, `.github/copilot-instructions.md` and the files of `longhaul.instructionFiles` are read at each request).',
			),
			'',
		);
	}
	if (read.untrustedSkipped.length) {
		lines.push(
			vscode.l10n.t(
				'**Workspace instructions not read:** the workspace is not trusted, so {0} stay out of the prompt.',
				read.untrustedSkipped.map(p => '`' + p + '`').join(', '),
			),
			'',
		);
	}
	if (read.problems.length) lines.push(vscode.l10n.t('Instruction files that could not be read: {0}.', read.problems.join('; ')), '');
	return lines;
}

/** The token ratio in use: how the local counts above relate to the model's own. */
function calibrationLine(model: vscode.LanguageModelChat, budget: PromptBudget, calibration: Calibration): string {
	const ratio = calibrationRatio(calibration);
	const comparisons = plural(calibration.samples, '{0} comparison', '{0} comparisons');
	const learned = !(calibration.samples || calibration.rejections)
		? vscode.l10n.t("nothing learned yet: Longhaul compares with the model's own count as the conversation goes")
		: calibration.rejections
			? localize(
					message(
						"learned from {0} with the model's own count and {1} as too long",
						comparisons,
						plural(calibration.rejections, '{0} refusal', '{0} refusals'),
					),
				)
			: localize(message("learned from {0} with the model's own count", comparisons));
	const line = vscode.l10n.t(
		"**Token ratio:** {0} model tokens per local token ({1}); the budget is the model's window of {2} tokens divided by it, {3} local tokens.",
		ratio.toFixed(2),
		learned,
		model.maxInputTokens.toLocaleString('en-US'),
		budget.window.toLocaleString('en-US'),
	);
	return [line, ...sampleLines(calibration)].join(' ');
}

/** What the last comparison counted, and how the model's message count was found to work. */
function sampleLines(calibration: Calibration): string[] {
	const lines: string[] = [];
	const last = calibration.lastSample;
	if (last) {
		const n = (x: number) => x.toLocaleString('en-US');
		const messages = plural(last.messages, '{0} message', '{0} messages');
		const what = [
			last.toolDefinitions ? localize(message('{0} and the tool definitions', messages)) : localize(messages),
			...(last.asText ? [vscode.l10n.t('{0} of them counted as text', last.asText)] : []),
			...(last.uncounted ? [vscode.l10n.t('{0} left out because the model counted almost nothing of them', last.uncounted)] : []),
		].join(', ');
		const ratio = last.localTokens ? ` (${(last.modelTokens / last.localTokens).toFixed(3)})` : '';
		lines.push(vscode.l10n.t('Last comparison: {0}: {1} local tokens, {2} by the model{3}.', what, n(last.localTokens), n(last.modelTokens), ratio));
	}
	if (calibration.counting === 'text-only') {
		lines.push(vscode.l10n.t("The model's count of a message leaves tool results out, so messages with tool results are compared as text."));
	} else if (calibration.counting === 'none') {
		lines.push(vscode.l10n.t("The model's count of a message leaves its text out, so every message is compared as text."));
	}
	return lines;
}

/**
 * Every summary block, in conversation order, one list item each (a table's columns wrap badly in
 * the narrow chat panel): the request and rounds it stands for, named as everywhere else ("request
 * N, round M", the N of `/restore N`), its size in the prompt (the note of a condensed block
 * included), its marks, and links to open (and edit) it or restore it.
 */
function blockLines(conversation: Conversation, all: readonly FigureBlock[], budget: number, documents: ContextInput['documents']): string[] {
	const blocks = all.filter(b => !b.setAside);
	const setAside = all.filter(b => b.setAside);
	if (!all.length) return [];
	const total = blocks.reduce((n, b) => n + b.tokens, 0);
	const rounds = (b: FigureBlock) =>
		b.fromEarlier
			? vscode.l10n.t('request {0}, every round before it through round {1} ({2} rounds; written by Longhaul 0.1.0)', b.request, b.lastRound, b.roundCount)
			: b.firstRound === b.lastRound
				? vscode.l10n.t('request {0}, round {1}', b.request, b.firstRound)
				: vscode.l10n.t('request {0}, rounds {1}–{2} ({3} rounds)', b.request, b.firstRound, b.lastRound, b.roundCount);
	const marks = (b: FigureBlock) => [
		...(b.block.condensed ? [vscode.l10n.t('condensed')] : []),
		...(b.block.edited ? [vscode.l10n.t('edited by you')] : []),
		...(b.block.buildsOnEdit ? [vscode.l10n.t('builds on your edit')] : []),
	];
	const item = (b: FigureBlock) => {
		const document = documents.remember({
			roundId: b.block.roundId,
			text: b.block.text,
			location: b.block.anchor,
			request: conversation.turns[b.block.turnIndex]?.user,
			edited: b.block.edited,
			buildsOnEdit: b.block.buildsOnEdit,
			currentRequest: b.request,
		});
		const size = [vscode.l10n.t('{0} tokens', b.tokens.toLocaleString('en-US')), ...marks(b)].join(', ');
		return `- ${summaryLink(document, rounds(b))}: ${size} · ${restoreLink({ request: b.request }, vscode.l10n.t('Restore'))}`;
	};
	// What the agent sees in place of rounds set aside while their summary is written: opened to read, never restored (nothing was summarized).
	const asideItem = (b: FigureBlock) => {
		const document = documents.remember({
			roundId: b.block.roundId,
			text: b.block.text,
			location: b.block.anchor,
			currentRequest: b.request,
			setAside: true,
		});
		return `- ${summaryLink(document, rounds(b))}: ${vscode.l10n.t('{0} tokens, set aside while their summary is written (not a summary yet)', b.tokens.toLocaleString('en-US'))}`;
	};
	const asideLines = setAside.length
		? [
				vscode.l10n.t(
					'**Set aside:** rounds whose summary is still being written. The agent did not wait: it sees one line per round in their place, with its number and what its tool calls did (open it to read that text), and can bring any of them back word for word by that number; the summary takes that place when it is ready.',
				),
				'',
				...setAside.map(asideItem),
				'',
			]
		: [];
	if (!blocks.length) return asideLines;
	return [
		vscode.l10n.t(
			'**Summary blocks:** {0}, one per request with summarized rounds, each right after its request; {1} of {2} tokens (beyond that the oldest are condensed, never removed). Open one to read (and correct: edit and save) what the model remembers in place of those rounds, or restore it to bring them back word for word (`/restore N` for request N):',
			blocks.length,
			total.toLocaleString('en-US'),
			budget.toLocaleString('en-US'),
		),
		'',
		...blocks.map(item),
		'',
		...asideLines,
	];
}

/** What the done-ledger holds, and whether the next prompt shows it. */
function ledgerLines(settings: LonghaulSettings, ledger: DoneLedger | undefined, text: string | undefined): string[] {
	if (!ledger) return [];
	const edited = ledger.edits.length;
	const facts = localize(
		message(
			'{0}, {1} read, {2} created or edited, {3} run, {4} in all',
			plural(ledger.requests.length, '{0} request', '{0} requests'),
			plural(ledger.reads.length, '{0} file', '{0} files'),
			plural(edited, '{0} file', '{0} files'),
			plural(ledger.commands.length, '{0} command', '{0} commands'),
			plural(ledger.steps, '{0} tool call', '{0} tool calls'),
		),
	);
	const shown = !settings.doneLedger
		? vscode.l10n.t('not shown to the model (`longhaul.doneLedger` is off)')
		: text
			? vscode.l10n.t('shown to the model after the summaries')
			: vscode.l10n.t('shown to the model once the conversation has been summarized (until then every round is verbatim)');
	// Listed as text that wraps at the chat panel's width; the model's own form of it merges old entries to save tokens.
	return [vscode.l10n.t('**Done-ledger:** {0}; {1}.', facts, shown), '', ...ledgerListing(ledger)];
}

function telemetryLines(recorded: boolean | undefined): string[] {
	if (recorded === undefined) return [];
	return [
		'',
		recorded
			? vscode.l10n.t('Statistics: each summarization is recorded in the Longhaul log (`telemetry.telemetryLevel` is `all`; nothing is sent anywhere).')
			: vscode.l10n.t('Statistics: not recorded (`telemetry.telemetryLevel` is below `all`).'),
	];
}
