// The context meter in the status bar (stable API only: a status bar item). VS Code does not tell an
// extension which chat is on screen, so the meter shows the chat of the newest @longhaul request
// from its first request on: the share of the window its next prompt takes, its summary blocks,
// and a spinning icon while a summary is written (at an overflow, or prepared in the background).
// While a request runs it follows every prompt fitted and every summary made; a request of another
// chat first clears the figures of the previous one, and a minute after a request ended the meter
// says its figures are the last chat's (docs/decisions.md decision 41: no stable API tells which
// chat is on screen, so a new chat cannot be told apart from the last one until it sends a
// request). The figures are those of /context (the same conversation, the same token ratio), so
// both show the same share. The tooltip gives the /context figures; a click runs /context.
import { jobsUnderWay } from '../common/background/backgroundJob';
import * as vscode from 'vscode';
import type { Conversation } from '../common/conversation/conversation';
import { chatKey } from './chatMemory';
import { contextFigures } from './contextFigures';
import { meterText, meterTooltip, type MeterActivity, type MeterFigures, type MeterStaleness } from '../common/stats/contextMeter';
import type { RequestContext } from './commands/requestContext';
import type { RequestState } from './requestState';
import { toChatTools } from './toolCatalog';

export const SHOW_CONTEXT_COMMAND = 'longhaul.showContext';
/** How often a running request's figures are looked at (they are recomputed only when a prompt or a summary changed them). */
const POLL_MS = 250;
/**
 * Recomputing the figures renders the next prompt: at most one at a time, and after each a pause of
 * at least this many times its duration (and half a second), so the meter takes at most a fifth of
 * the time of a request whose rounds come fast (a replay).
 */
const REFRESH_PAUSE_FACTOR = 4;
const MIN_REFRESH_MS = 500;
/**
 * After this long without a request the figures may be another chat's than the one on screen: long
 * enough to read an answer under figures that are surely its own, short enough that a chat opened
 * afterwards is not shown another chat's figures as its own for long (decision 41).
 */
const LAST_CHAT_AFTER_MS = 60_000;

export class ContextMeter implements vscode.Disposable {
	private readonly item = vscode.window.createStatusBarItem('longhaul.contextMeter', vscode.StatusBarAlignment.Right, 100);
	private readonly command = vscode.commands.registerCommand(SHOW_CONTEXT_COMMAND, () =>
		vscode.commands.executeCommand('workbench.action.chat.open', { query: '@longhaul /context' }),
	);
	private figures: MeterFigures | undefined;
	private activity: MeterActivity = 'idle';
	/** The chat the figures are of (chatKey). */
	private chat: string | undefined;
	/** Set a while after the last request ended: the figures are the last chat's, maybe not the one on screen. */
	private stale: MeterStaleness | undefined;
	private staleTimer: ReturnType<typeof setTimeout> | undefined;

	constructor() {
		this.item.name = vscode.l10n.t('Longhaul context');
		this.item.command = SHOW_CONTEXT_COMMAND;
		this.item.accessibilityInformation = { label: vscode.l10n.t('Longhaul context meter: how full the chat model’s window is. Click for /context.') };
	}

	/**
	 * While a request runs: follows its background summaries, its summarizing progress, and its
	 * figures, recomputed whenever a fitted prompt or a summary changed them (`figuresNow`). A request
	 * of another chat than the figures' (or of a new chat) clears them first.
	 */
	watch(state: RequestState, summarizing: () => boolean, figuresNow: () => Promise<MeterReading>): vscode.Disposable {
		this.freshen();
		const chat = chatKey(state.conversation);
		if (chat === undefined || chat !== this.chat) this.figures = undefined;
		this.chat = chat;
		let seen: unknown[] = [];
		let computing = false;
		let stopped = false;
		let nextAt = 0;
		const refresh = () => {
			const now = [state.lastPromptTokens, state.conversation, state.newSummaries.length];
			if (computing || Date.now() < nextAt || now.every((x, i) => x === seen[i])) return;
			seen = now;
			computing = true;
			const started = Date.now();
			const done = () => {
				computing = false;
				nextAt = Date.now() + Math.max(MIN_REFRESH_MS, REFRESH_PAUSE_FACTOR * (Date.now() - started));
			};
			figuresNow().then(reading => {
				done();
				if (stopped) return;
				this.figures = reading.figures;
				this.chat = reading.chat;
				update();
			}, done);
		};
		const update = () => {
			const background = jobsUnderWay(state.background) > 0;
			this.setActivity(summarizing() ? 'summarizing' : background ? 'background' : 'working');
		};
		update();
		const timer = setInterval(() => {
			// Before the request's first prompt there is nothing of its own to show.
			if (state.lastPromptTokens !== undefined || state.conversation.turns.length > 0) refresh();
			update();
		}, POLL_MS);
		return new vscode.Disposable(() => {
			stopped = true;
			clearInterval(timer);
		});
	}

	/** The chat's figures after a request. */
	show(reading: MeterReading): void {
		this.figures = reading.figures;
		this.chat = reading.chat;
		this.freshen();
		const since = new Date().toLocaleTimeString(vscode.env.language, { hour: '2-digit', minute: '2-digit' });
		this.staleTimer = setTimeout(() => {
			this.stale = { since };
			this.setActivity(this.activity);
		}, LAST_CHAT_AFTER_MS);
		this.setActivity('idle');
	}

	/** The figures are the chat's of the request now running or just ended. */
	private freshen(): void {
		clearTimeout(this.staleTimer);
		this.staleTimer = undefined;
		this.stale = undefined;
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
		this.item.text = meterText(this.figures, this.activity, this.stale);
		const tooltip = new vscode.MarkdownString(meterTooltip(this.figures, this.activity, this.stale));
		this.item.tooltip = tooltip;
		this.item.show();
	}

	/** What the status bar shows now (for tests). */
	get shown(): { readonly text: string; readonly tooltip: string; readonly visible: boolean } {
		const tooltip = this.item.tooltip;
		return {
			text: this.item.text,
			tooltip: typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? ''),
			visible: this.figures !== undefined || this.activity !== 'idle',
		};
	}

	dispose(): void {
		clearTimeout(this.staleTimer);
		this.item.dispose();
		this.command.dispose();
	}
}

/**
 * The conversation the chat's next request will rebuild from its history: this request's rounds
 * become a turn of their own (a slash command's turn holds none and is left out, as participant.ts
 * leaves it out).
 */
function afterThisRequest(ctx: RequestContext): Conversation {
	const { turns, activeRounds } = ctx.state.conversation;
	if (ctx.request.command && activeRounds.length === 0) return { turns, activeRounds: [] };
	return { turns: [...turns, { user: ctx.request.prompt, rounds: activeRounds }], activeRounds: [] };
}

/** What the meter shows, and the chat it is of. */
export interface MeterReading {
	readonly figures: MeterFigures;
	readonly chat: string | undefined;
}

/**
 * The /context figures of the chat's next prompt as the request leaves it (also while it runs):
 * the same conversation and token ratio /context would use at that moment.
 */
export async function meterReading(ctx: RequestContext): Promise<MeterReading> {
	const conversation = afterThisRequest(ctx);
	return { figures: await meterFigures(ctx, conversation), chat: chatKey(conversation) };
}

async function meterFigures(ctx: RequestContext, conversation: Conversation): Promise<MeterFigures> {
	const { state, request, settings } = ctx;
	const figures = await contextFigures({
		conversation: ctx.chats.asLeft(conversation),
		model: request.model,
		chatTools: toChatTools(ctx.tools),
		settings,
		ratio: ctx.calibration.ratio(request.model),
		ledger: state.ledger,
		instructions: ctx.instructions,
	});
	const real = figures.blocks.filter(b => !b.setAside);
	return {
		modelName: request.model.name,
		windowTokens: figures.budget.window,
		usedTokens: figures.usedTokens,
		summaryBlocks: real.length,
		summaryTokens: figures.summaryTokens,
		editedBlocks: real.filter(b => b.block.edited).length,
		buildsOnEditBlocks: real.filter(b => b.block.buildsOnEdit).length,
		setAsideRounds: figures.setAsideRounds,
		setAsideTokens: figures.setAsideTokens,
		overflows: figures.overflows,
		ledgerTokens: figures.ledgerTokens,
		instructionTokens: figures.pinnedTokens,
		verbatimRounds: figures.verbatimRounds,
		verbatimTokens: figures.verbatimTokens,
		toolTokens: figures.budget.toolTokens,
	};
}
