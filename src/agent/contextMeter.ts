// The context meter in the status bar (stable API only: a status bar item). VS Code does not tell an
// extension which chat is on screen, so the meter shows the chat of the newest @longhaul request
// from its first request on: the share of the window its next prompt takes, its summary blocks,
// and a spinning icon while a summary is written (at an overflow, or prepared in the background).
// The tooltip gives the /context figures; a click runs /context.
import { windowTokensUsed } from '../common/tokens/budget';
import { jobsUnderWay } from '../common/background/backgroundJob';
import * as vscode from 'vscode';
import { blockRows } from '../common/conversation/blockListing';
import { roundText } from '../common/conversation/conversation';
import { layoutPrompt, olderRequestsBudget } from '../common/conversation/promptLayout';
import { meterText, meterTooltip, type MeterActivity, type MeterFigures } from '../common/stats/contextMeter';
import { blockTokens } from '../common/summaries/condenseBlocks';
import { budgetFor } from './requestBudget';
import type { RequestContext } from './commands/requestContext';
import { pinnedFor } from './instructionFiles';
import { nextLedgerText, nextPromptTokens } from './nextPrompt';
import { countTokens } from '../common/tokens/tokenizer';
import type { RequestState } from './requestState';
import { toChatTools } from './toolCatalog';

export const SHOW_CONTEXT_COMMAND = 'longhaul.showContext';
const POLL_MS = 500;

export class ContextMeter implements vscode.Disposable {
	private readonly item = vscode.window.createStatusBarItem('longhaul.contextMeter', vscode.StatusBarAlignment.Right, 100);
	private readonly command = vscode.commands.registerCommand(SHOW_CONTEXT_COMMAND, () =>
		vscode.commands.executeCommand('workbench.action.chat.open', { query: '@longhaul /context' }),
	);
	private figures: MeterFigures | undefined;
	private activity: MeterActivity = 'idle';

	constructor() {
		this.item.name = vscode.l10n.t('Longhaul context');
		this.item.command = SHOW_CONTEXT_COMMAND;
		this.item.accessibilityInformation = { label: vscode.l10n.t('Longhaul context meter: how full the chat model’s window is. Click for /context.') };
	}

	/** While a request runs: follows its background summaries and its summarizing progress. */
	watch(state: RequestState, summarizing: () => boolean): vscode.Disposable {
		const update = () => {
			const background = jobsUnderWay(state.background) > 0;
			this.setActivity(summarizing() ? 'summarizing' : background ? 'background' : 'working');
		};
		update();
		const timer = setInterval(update, POLL_MS);
		return new vscode.Disposable(() => clearInterval(timer));
	}

	/** The chat's figures after a request. */
	show(figures: MeterFigures): void {
		this.figures = figures;
		this.setActivity('idle');
	}

	private setActivity(activity: MeterActivity): void {
		this.activity = activity;
		if (!this.figures) {
			if (activity === 'idle') return;
			this.item.text = activity === 'working' ? '$(layers) Longhaul' : `$(sync~spin) ${vscode.l10n.t('Longhaul · summarizing')}`;
			this.item.tooltip = vscode.l10n.t('Longhaul: the first request of this chat is running.');
			this.item.show();
			return;
		}
		this.item.text = meterText(this.figures, this.activity);
		const tooltip = new vscode.MarkdownString(meterTooltip(this.figures, this.activity));
		this.item.tooltip = tooltip;
		this.item.show();
	}

	/** What the status bar shows now (for tests). */
	get shown(): { readonly text: string; readonly visible: boolean } {
		return { text: this.item.text, visible: this.figures !== undefined || this.activity !== 'idle' };
	}

	dispose(): void {
		this.item.dispose();
		this.command.dispose();
	}
}

/** The /context figures of the chat's next prompt after this request. */
export async function meterFigures(ctx: RequestContext): Promise<MeterFigures> {
	const { state, request, settings } = ctx;
	const chatTools = toChatTools(ctx.tools);
	const budget = budgetFor(request.model, chatTools, ctx.ratio);
	const pinned = pinnedFor(ctx.instructions, budget.messages).text;
	const next = { conversation: state.conversation, chatTools, budget, settings, ledger: state.ledger, pinnedInstructions: pinned };
	const ledger = nextLedgerText(next);
	const total = await nextPromptTokens(next, ledger);
	const blocks = blockRows(state.conversation, block => blockTokens(block, countTokens));
	const rounds = layoutPrompt(state.conversation, { olderRequestsMaxTokens: olderRequestsBudget(budget.messages), countTokens }).flatMap(e =>
		e.kind === 'round' ? [e.round] : [],
	);
	return {
		modelName: request.model.name,
		windowTokens: budget.window,
		usedTokens: windowTokensUsed(total, budget),
		summaryBlocks: blocks.length,
		summaryTokens: blocks.reduce((n, b) => n + b.tokens, 0),
		editedBlocks: blocks.filter(b => b.block.edited).length,
		ledgerTokens: ledger ? countTokens(ledger) : 0,
		instructionTokens: pinned ? countTokens(pinned) : 0,
		verbatimRounds: rounds.length,
		verbatimTokens: rounds.reduce((n, r) => n + countTokens(roundText(r)), 0),
		toolTokens: budget.toolTokens,
	};
}
