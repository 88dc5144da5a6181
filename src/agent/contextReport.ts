import * as vscode from 'vscode';
import { roundText, type Conversation } from '../common/conversation/conversation';
import { layoutPrompt, olderRequestsBudget } from '../common/conversation/promptLayout';
import { blockRows, type BlockRow } from '../common/conversation/blockListing';
import { blockTokens } from '../common/summaries/condenseBlocks';
import { summaryBudget, toolResultBudget, type PromptBudget } from '../common/tokens/budget';
import { budgetFor } from './agentLoop';
import { measureAgent } from './promptRendering';
import { countTokens } from '../common/tokens/tokenizer';
import type { LonghaulSettings } from './settings';
import { toChatTools } from './toolCatalog';
import type { DoneLedger } from '../common/ledger/doneLedger';
import { doneLedgerForPrompt } from './doneLedgerPrompt';
import { UNCALIBRATED, calibrationRatio, type Calibration } from '../common/tokens/calibration';
import { rememberSummary, summaryLink } from './summaryDocuments';
import { backgroundLine } from './backgroundSummary';
import { describeLocation } from '../common/summaries/summaryDocument';

/** `/context`: what the next prompt is made of, in tokens and share of the window. */
export async function contextReport(
	conversation: Conversation,
	model: vscode.LanguageModelChat,
	tools: readonly vscode.LanguageModelToolInformation[],
	settings: LonghaulSettings,
	toolsLeftOut: readonly string[] = [],
	ledger?: DoneLedger,
	/** What Longhaul has learned of this model's token count (its ratio scales the budget). */
	calibration: Calibration = UNCALIBRATED,
	/** Whether telemetry events are recorded now (VS Code's telemetry level allows usage data). */
	telemetryRecorded?: boolean,
): Promise<string> {
	const chatTools = toChatTools(tools);
	const ratio = calibrationRatio(calibration);
	const budget = budgetFor(model, chatTools, ratio);
	let rounds = 0;
	let roundCount = 0;
	let requests = 0;
	let shortened = 0;
	const summaryLinks: string[] = [];
	for (const entry of layoutPrompt(conversation, { olderRequestsMaxTokens: olderRequestsBudget(budget.messages), countTokens })) {
		if (entry.kind === 'summary') {
			const request = entry.location.source === 'history' ? conversation.turns[entry.location.turnIndex]?.user : undefined;
			const document = rememberSummary({ roundId: entry.roundId, text: entry.text, location: entry.location, request });
			summaryLinks.push(
				`- ${summaryLink(document, `Summary up to ${describeLocation(entry.location)}`)}: ${countTokens(entry.text).toLocaleString('en-US')} tokens`,
			);
		} else if (entry.kind === 'round') {
			rounds += countTokens(roundText(entry.round));
			roundCount++;
		} else if (entry.kind === 'user') {
			requests += countTokens(entry.text);
			if (entry.shortened) shortened++;
		}
	}
	const blocks = blockRows(conversation, block => blockTokens(block, countTokens));
	const summaries = blocks.reduce((n, b) => n + b.tokens, 0);
	const ledgerText = ledger ? doneLedgerForPrompt(settings.doneLedger, conversation, ledger, undefined, budget.messages)?.text : undefined;
	const ledgerTokens = ledgerText ? countTokens(ledgerText) : 0;
	const total = (
		await measureAgent({
			conversation,
			request: '',
			references: [],
			toolNames: chatTools.map(t => t.name),
			maxToolResultTokens: toolResultBudget(budget),
			olderRequestsMaxTokens: olderRequestsBudget(budget.messages),
			doneLedger: ledgerText,
		})
	).tokenCount;
	const system = Math.max(0, total - summaries - rounds - requests - ledgerTokens);
	const used = total + budget.toolTokens + budget.providerTokens;
	const pct = (n: number) => (budget.window ? ((100 * n) / budget.window).toFixed(1) : '0.0') + '%';
	const rows: [string, number][] = [
		['System instructions and message framing', system],
		['Tool definitions (' + chatTools.length + ' tools)', budget.toolTokens],
		["Held for the provider's own instructions", budget.providerTokens],
		[`Summaries (${blocks.length} block${blocks.length === 1 ? '' : 's'})`, summaries],
		['Done-ledger', ledgerTokens],
		[`Verbatim rounds (${roundCount})`, rounds],
		[`User requests${shortened ? ` (${shortened} shortened)` : ''}`, requests],
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
		...(toolsLeftOut.length
			? [
					`${toolsLeftOut.length} tool${toolsLeftOut.length === 1 ? '' : 's'} left out so that tool definitions stay within a quarter of the window: ${toolsLeftOut.map(n => '`' + n + '`').join(', ')}. Attach one with \`#\` to offer it anyway.`,
					'',
				]
			: []),
		...blockLines(blocks, summaryBudget(budget)),
		...(summaryLinks.length ? [`Open a summary block to read what the model remembers in place of the older rounds:`, '', ...summaryLinks, ''] : []),
		...ledgerLines(settings, ledger, ledgerText),
		calibrationLine(model, budget, calibration),
		'',
		backgroundLine(model.id),
		'',
		`Summarization mode: **${settings.summarizationMode}** (\`longhaul.halfContextSummarization\` is ${settings.summarizationMode === 'half-context' ? 'on' : 'off'}). Counts are local js-tiktoken estimates.`,
		...(telemetryRecorded === undefined
			? []
			: [
					'',
					telemetryRecorded
						? 'Statistics: each summarization is recorded in the Longhaul log (`telemetry.telemetryLevel` is `all`; nothing is sent anywhere).'
						: 'Statistics: not recorded (`telemetry.telemetryLevel` is below `all`).',
				]),
	].join('\n');
}

/** The token ratio in use: how the local counts above relate to the model's own, and what it was learned from. */
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
			b => `| ${b.request}${b.current ? ' (this one)' : ''} | ${rounds(b)} | ${b.tokens.toLocaleString('en-US')} | ${b.block.condensed ? 'condensed' : ''} |`,
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
