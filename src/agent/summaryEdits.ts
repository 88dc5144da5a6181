// Summary edits the user saved and the next request has not used yet. A save happens outside any
// chat request, so the edit waits here (the workspace's storage, so a window reload keeps it) until
// the next request of the chat that holds the block applies it and stores it in that turn's record,
// like any block (src/common/summaries/summaryEdit.ts); then it is forgotten here.
import * as vscode from 'vscode';
import type { Conversation } from '../common/conversation/conversation';
import type { StoredSummaryBlock } from '../common/summaries/applySummary';
import { applySummaryEdit, type SummaryEdit } from '../common/summaries/summaryEdit';

const STORAGE_KEY = 'longhaul.pendingSummaryEdits';

export class SummaryEditStore {
	constructor(private readonly memento: vscode.Memento) {}

	all(): SummaryEdit[] {
		const stored = this.memento.get<unknown>(STORAGE_KEY);
		return Array.isArray(stored) ? stored.filter(isEdit) : [];
	}

	/** The edit waiting for the block anchored on `roundId`, if any. */
	pendingFor(roundId: string): SummaryEdit | undefined {
		return this.all().find(e => e.roundId === roundId);
	}

	async save(edit: SummaryEdit): Promise<void> {
		await this.memento.update(STORAGE_KEY, [...this.all().filter(e => e.roundId !== edit.roundId), edit]);
	}

	private async forget(roundIds: ReadonlySet<string>): Promise<void> {
		if (roundIds.size) {
			await this.memento.update(
				STORAGE_KEY,
				this.all().filter(e => !roundIds.has(e.roundId)),
			);
		}
	}

	/**
	 * Applies the edits that belong to `conversation` (their block is in it): each in use from now on
	 * or dropped with a message. Edits for other chats stay.
	 */
	async applyTo(
		conversation: Conversation,
		maxTokens: number,
		countTokens: (text: string) => number,
	): Promise<{ conversation: Conversation; blocks: StoredSummaryBlock[]; applied: { roundId: string; text: string; where: string }[]; messages: string[] }> {
		let current = conversation;
		const blocks: StoredSummaryBlock[] = [];
		const applied: { roundId: string; text: string; where: string }[] = [];
		const messages: string[] = [];
		const done = new Set<string>();
		for (const edit of this.all()) {
			const outcome = applySummaryEdit(current, edit, maxTokens, countTokens);
			if (outcome.kind === 'elsewhere') continue;
			done.add(edit.roundId);
			if (outcome.kind === 'dropped') {
				messages.push(outcome.message);
				continue;
			}
			current = outcome.conversation;
			blocks.push(outcome.block);
			applied.push({ roundId: edit.roundId, text: edit.text, where: outcome.where });
			messages.push(vscode.l10n.t('Your edit of the summary up to {0} is what the model remembers from this request on.', outcome.where));
		}
		await this.forget(done);
		return { conversation: current, blocks, applied, messages };
	}
}

function isEdit(value: unknown): value is SummaryEdit {
	const v = value as Partial<SummaryEdit> | null;
	return typeof v === 'object' && v !== null && typeof v.roundId === 'string' && typeof v.base === 'string' && typeof v.text === 'string';
}
