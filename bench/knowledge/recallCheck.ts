// Can one longhaul_recall call get a detail back? The product's own recall core
// (src/common/recall/recall.ts) answers queries on the
// conversation the agent would search: the stored past turns as they are now, the request in
// progress with its rounds as recorded (as src/agent/agentLoop.ts passes them),
// the answer capped as the agent caps it (recallAnswerTokens). The detail is recalled when one
// answer shows its line whole. Answers are kept for the request they were asked in.
// The rule (recalledFromPrompt): only queries the request's prompt makes possible count, as an
// agent that cannot see the line can only ask with what it sees (promptQueries): the detail's file
// path or its command where the prompt shows them (one search finds only lines holding them), a key term of the line where a summary or the
// done-ledger in the prompt states it, or the round's number where the prompt names the round
// (`round 12`, `round #12`). The old rule (recalledByLineRule: the path, the command and the
// line's own rarest word or phrase, shown or not) is reported beside it for one release.
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { recall, recallAnswerTokens, searchHere } from '../../src/common/recall/recall';
import type { SearchJob, SearchOutcome } from '../../src/common/recall/recallSearch';
import { recallableRounds, type SummarizedRound } from '../../src/common/recall/summarizedRounds';
import type { RecallInput } from '../../src/common/recall/recallInput';
import type { Detail } from './details';
import type { PromptView } from './promptView';

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
	/** Recallable round id → its number as recall shows it. */
	readonly numbers: ReadonlyMap<string, number>;
	readonly answers: Map<string, string>;
	/** Search outcomes of this replay by the rounds searched (SearchCache). */
	readonly searches: SearchCache;
	/** This request's recallable rounds as a SearchCache key (roundsKey). */
	readonly roundsKey: string;
}

/**
 * Recall's search outcomes by the rounds it searched, then by query. Between two summaries the
 * rounds recall searches stay the same from request to request, so a later request's search is an
 * earlier one's: it is run once. (Without this the day-long chat searched its whole past again on
 * every request.) The key names each round by number, request, id and the length of what it
 * holds, so a round that changed is searched again.
 */
export type SearchCache = Map<string, Map<string, SearchOutcome>>;

function roundsKey(rounds: readonly SummarizedRound[]): string {
	return rounds
		.map(
			({ number, request, round }) =>
				`${number}:${request}:${round.id}:${round.response.length}:${round.toolCalls.map(c => `${c.arguments.length}/${c.result?.length ?? -1}`).join(',')}`,
		)
		.join(' ');
}

export function recallContext(
	conversation: Conversation,
	recorded: ReadonlyMap<string, Round>,
	currentRequest: string,
	searches: SearchCache = new Map(),
): RecallContext {
	const summarized = recallableRounds(conversation, currentRequest, recorded).summarized;
	const searched = new Set(summarized.map(r => r.round.id));
	return {
		conversation,
		recorded,
		currentRequest,
		searched,
		numbers: new Map(summarized.map(r => [r.round.id, r.number])),
		answers: new Map(),
		searches,
		roundsKey: roundsKey(summarized),
	};
}

/**
 * The search of `job`, from the cache when the same rounds were searched with the same query before.
 * `job.rounds` are the request's recallable rounds, read by recall with recallableRounds on the
 * context's conversation as recallContext read them: their key is the context's, made once.
 */
function cachedSearch(context: RecallContext, job: SearchJob): Promise<SearchOutcome | undefined> {
	const cache = context.searches;
	const rounds = context.roundsKey;
	let byQuery = cache.get(rounds);
	if (!byQuery) {
		// Only the newest set of rounds is searched again: older sets are gone for good once a summary moves.
		cache.clear();
		cache.set(rounds, (byQuery = new Map()));
	}
	const query = JSON.stringify({ ...job.input, stepLimit: job.stepLimit });
	const known = byQuery.get(query);
	if (known) return Promise.resolve(known);
	return searchHere(job, { now: () => 0 }).then(outcome => {
		if (outcome) byQuery.set(query, outcome);
		return outcome;
	});
}

async function answer(context: RecallContext, input: RecallInput, setting: RecallSetting): Promise<string> {
	const key = JSON.stringify(input);
	let text = context.answers.get(key);
	if (text === undefined) {
		text = await recall(context.conversation, input, {
			maxTokens: recallAnswerTokens(setting.messageBudget),
			countTokens: setting.countTokens,
			currentRequest: context.currentRequest,
			recorded: context.recorded,
			now: () => 0, // no time limit in the benchmark: the answer is the search's, not the machine's
			timeLimitMs: Number.MAX_SAFE_INTEGER,
			runSearch: job => cachedSearch(context, job),
		});
		context.answers.set(key, text);
	}
	return text;
}

async function anyBringsBack(detail: Detail, inputs: readonly RecallInput[], context: RecallContext, setting: RecallSetting): Promise<boolean> {
	// A search looks only at summarized rounds: a detail elsewhere cannot be found (this saves the search, not changes its answer).
	if (!context.searched.has(detail.roundId)) return false;
	for (const input of inputs) {
		if ((await answer(context, input, setting)).includes(detail.line)) return true;
	}
	return false;
}

/** The old rule: one of the detail's line queries (path, command, the line's rarest word or phrase) brings its line back. */
export function recalledByLineRule(detail: Detail, context: RecallContext, setting: RecallSetting): Promise<boolean> {
	return anyBringsBack(
		detail,
		detail.lineQueries.map(query => ({ query })),
		context,
		setting,
	);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The done-ledger's text in a prompt, or ''. */
function ledgerText(view: PromptView): string {
	const m = /<done-ledger>[\s\S]*?<\/done-ledger>/.exec(view.text);
	return m ? m[0] : '';
}

/** `text` has `term` as a word of its own (case-insensitive). */
function hasWord(text: string, term: string): boolean {
	return new RegExp(`(^|[^A-Za-z0-9_])${escapeRegExp(term)}($|[^A-Za-z0-9_])`, 'i').test(text);
}

/** The recall calls this request's prompt makes possible for the detail (`roundNumber`: its number as recall counts rounds). */
export function promptQueries(detail: Detail, view: PromptView, roundNumber: number | undefined): RecallInput[] {
	const inputs: RecallInput[] = [];
	if (detail.path && view.text.includes(detail.path)) inputs.push({ query: detail.path });
	if (detail.command && view.text.includes(detail.command)) inputs.push({ query: detail.command });
	const stated = [...view.summaries, ledgerText(view)];
	for (const term of detail.terms) if (stated.some(s => hasWord(s, term))) inputs.push({ query: term });
	if (roundNumber !== undefined && new RegExp(`\\bround #?${roundNumber}\\b`, 'i').test(view.text)) inputs.push({ round: roundNumber });
	return inputs;
}

/** The detail's round number as recall counts it (undefined when the round is not recallable). */
function numberOf(detail: Detail, context: RecallContext): number | undefined {
	return context.numbers.get(detail.roundId);
}

/** The rule: one recall call that the prompt makes possible brings the detail's line back. */
export function recalledFromPrompt(detail: Detail, view: PromptView, context: RecallContext, setting: RecallSetting): Promise<boolean> {
	return anyBringsBack(detail, promptQueries(detail, view, numberOf(detail, context)), context, setting);
}
