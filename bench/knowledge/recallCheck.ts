// Can one longhaul_recall call get a detail back? The product's own recall core
// (src/common/recall/recall.ts) answers each of the detail's queries (details.ts) on the
// conversation the agent would search: the stored past turns as they are now, the request in
// progress with its rounds as recorded (as src/agent/agentLoop.ts passes them),
// the answer capped as the agent caps it (recallAnswerTokens). The detail is recalled when one
// answer shows its line whole. Answers are kept for the request they were asked in.
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { recall, recallAnswerTokens } from '../../src/common/recall/recall';
import { recallableRounds } from '../../src/common/recall/summarizedRounds';
import type { Detail } from './details';

export interface RecallSetting {
	readonly messageBudget: number;
	readonly countTokens: (text: string) => number;
}

/** One request's recall: its conversation, and the answers given so far. */
export interface RecallContext {
	readonly conversation: Conversation;
	/** The rounds as recorded, by id (recall reads the request's own in place of masked or elided ones). */
	readonly recorded: ReadonlyMap<string, Round>;
	readonly currentRequest: string;
	/** Round ids a search looks at (the summarized, masked or elided ones). */
	readonly searched: ReadonlySet<string>;
	readonly answers: Map<string, string>;
}

export function recallContext(conversation: Conversation, recorded: ReadonlyMap<string, Round>, currentRequest: string): RecallContext {
	const searched = new Set(recallableRounds(conversation, currentRequest, recorded).summarized.map(r => r.round.id));
	return { conversation, recorded, currentRequest, searched, answers: new Map() };
}

async function answer(context: RecallContext, query: string, setting: RecallSetting): Promise<string> {
	let text = context.answers.get(query);
	if (text === undefined) {
		text = await recall(
			context.conversation,
			{ query },
			{
				maxTokens: recallAnswerTokens(setting.messageBudget),
				countTokens: setting.countTokens,
				currentRequest: context.currentRequest,
				recorded: context.recorded,
				now: () => 0, // no time limit in the benchmark: the answer is the search's, not the machine's
				timeLimitMs: Number.MAX_SAFE_INTEGER,
			},
		);
		context.answers.set(query, text);
	}
	return text;
}

/** True when one of the detail's queries brings its line back. */
export async function recalled(detail: Detail, context: RecallContext, setting: RecallSetting): Promise<boolean> {
	// A search looks only at summarized rounds: a detail elsewhere cannot be found (this saves the search, not changes its answer).
	if (!context.searched.has(detail.roundId)) return false;
	for (const query of detail.queries) {
		if ((await answer(context, query, setting)).includes(detail.line)) return true;
	}
	return false;
}
