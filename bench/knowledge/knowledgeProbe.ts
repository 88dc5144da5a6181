// The knowledge probe: what the agent can still know on each request of a replay, for every
// strategy. Two measures (bench/RESULTS.md has the table):
//   continuity  from the first request after a compaction on (or the first whose prompt leaves out
//               a round or a result, as masking does), every request: the share of the
//               oracle's facts (factOracle.ts) the prompt as sent names (factCheck.ts); the mean
//               over those requests. null when nothing was compacted.
//   details     on every request after a sampled detail's round (details.ts): the detail is
//               visible (word for word in the prompt outside summaries), inSummary (one line of a
//               summary in the prompt states all the line's key terms, details.ts keyTerms: a
//               summary holds the detail in its own words, or copies it), recalled (one
//               longhaul_recall call the prompt makes possible brings it back, recallCheck.ts
//               recalledFromPrompt; only where the prompt offers recall: the product modes) or lost.
//               Shares over all request × detail checks; detailsReachable = the first three.
//               Beside it for one release, the old rule's recall (the line's own rarest word
//               as a query, recalledByLineRule): detailsRecalledLineRule, detailsReachableLineRule.
// LONGHAUL_BENCH_DEBUG=knowledge prints what each request misses.
import type { Raw } from '@vscode/prompt-tsx';
import type { Conversation, Round } from '../../src/common/conversation/conversation';
import { factOracle, type Fact, type FactKind } from './factOracle';
import { factSeen } from './factCheck';
import { sampleDetails, type Detail } from './details';
import { promptView, type PromptView } from './promptView';
import { recallContext, recalledByLineRule, recalledFromPrompt, type RecallContext, type RecallSetting, type SearchCache } from './recallCheck';

export interface KnowledgeMetrics {
	/** Mean share of oracle facts named in the prompt, over the requests from the first compaction (or masking) on; null without. */
	readonly continuity: number | null;
	/** Requests probed for continuity, facts checked over them and how many were named. */
	readonly continuityRequests: number;
	readonly continuityFacts: number;
	readonly continuityFactsSeen: number;
	/** Facts left out of the share: named only by a ledger line, with a status the oracle cannot read. */
	readonly continuityFactsUnknown: number;
	/** Of the facts not named, how many of each kind (what continuity misses, for the targets' reasons). */
	readonly continuityMissed: Readonly<Record<FactKind, number>>;
	/** Details sampled, and request × detail checks. */
	readonly detailsSampled: number;
	readonly detailsChecks: number;
	/** Shares of the checks (null without any). */
	readonly detailsVisible: number | null;
	readonly detailsInSummary: number | null;
	readonly detailsRecalled: number | null;
	readonly detailsLost: number | null;
	readonly detailsReachable: number | null;
	/** The old recall rule (the line's own words as a query): recalled and reachable shares by it. */
	readonly detailsRecalledLineRule: number | null;
	readonly detailsReachableLineRule: number | null;
}

/** One request as sent: whether a compaction came just before it, its messages, the rounds and summaries it laid out, the conversation behind it. */
export interface ProbedRequest {
	readonly compacted: boolean;
	readonly messages: readonly Raw.ChatMessage[];
	readonly shown: readonly Round[];
	readonly summaries: readonly string[];
	readonly conversation: Conversation;
	readonly request: string;
}

export interface KnowledgeProbe {
	startTurn(user: string): void;
	addRound(round: Round): void;
	recordRequest(request: ProbedRequest): Promise<void>;
	metrics(): KnowledgeMetrics;
}

export interface KnowledgeOptions {
	/** The session as it will be replayed (the sample is drawn from it). */
	readonly recorded: Conversation;
	/** The prompt offers longhaul_recall (the product modes); undefined: the strategy has no recall. */
	readonly recall?: RecallSetting;
}

/** LONGHAUL_BENCH_DEBUG=knowledge: every fact not named and every detail lost, on stderr. */
const DEBUG = process.env.LONGHAUL_BENCH_DEBUG === 'knowledge';
const debug = (line: string) => process.stderr.write(`knowledge: ${line}\n`);

type DetailClass = 'visible' | 'inSummary' | 'recalled' | 'lost';

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The prompt leaves out a round so far or shows one with a result other than the recorded (masked, elided). */
function leavesOut(request: ProbedRequest, rounds: ReadonlyMap<string, Round>): boolean {
	if (request.shown.length < rounds.size) return true;
	return request.shown.some(round => round.toolCalls.some((call, i) => call.result !== rounds.get(round.id)?.toolCalls[i]?.result));
}

/** The tallies behind the metrics. */
interface Tally {
	/** Per probed request, the share of facts named. */
	readonly shares: number[];
	checked: number;
	seen: number;
	/** Facts named only by a ledger line whose status the oracle cannot read: left out of the share. */
	unknown: number;
	/** Facts not named, by kind. */
	readonly missed: Record<FactKind, number>;
	readonly classes: Record<DetailClass, number>;
	/** Checks recalled by the old rule (among those not visible or in a summary). */
	lineRuleRecalled: number;
}

/** One request's facts, named or not: the tally grows by one share. */
function checkFacts(tally: Tally, view: PromptView, facts: readonly Fact[], rounds: ReadonlyMap<string, Round>): void {
	const commands = facts.filter(f => f.kind === 'command').map(f => f.text);
	const where = facts.map(f => factSeen(view, f, rounds, commands));
	const missed = facts.filter((_, i) => where[i] === undefined);
	const unknown = where.filter(w => w === 'unknown').length;
	if (DEBUG) missed.forEach(f => debug(`fact not named: ${f.kind} ${f.status?.text ?? ''} ${JSON.stringify(f.text.slice(0, 100))}`));
	const judged = facts.length - unknown;
	tally.checked += judged;
	tally.unknown += unknown;
	tally.seen += judged - missed.length;
	for (const fact of missed) tally.missed[fact.kind]++;
	tally.shares.push(judged ? (judged - missed.length) / judged : 1);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One line of one summary states every key term of the detail (as words of their own, any case). */
export function summaryHolds(summaries: readonly string[], detail: Pick<Detail, 'terms'>): boolean {
	if (!detail.terms.length) return false;
	const tests = detail.terms.map(t => new RegExp(`(^|[^A-Za-z0-9_])${escapeRegExp(t)}($|[^A-Za-z0-9_])`, 'i'));
	return summaries.some(s => s.split('\n').some(line => tests.every(t => t.test(line))));
}

/** Where a detail is on this request; recall only where the strategy offers it. */
async function classify(view: PromptView, detail: Detail, recall: RecallSetting | undefined, context: () => RecallContext): Promise<DetailClass> {
	if (view.outsideSummaries.includes(detail.line)) return 'visible';
	if (summaryHolds(view.summaries, detail)) return 'inSummary';
	if (recall && (await recalledFromPrompt(detail, view, context(), recall))) return 'recalled';
	return 'lost';
}

function metricsOf(tally: Tally, sampled: number): KnowledgeMetrics {
	const { classes, shares } = tally;
	const checks = classes.visible + classes.inSummary + classes.recalled + classes.lost;
	const share = (n: number) => (checks ? round3(n / checks) : null);
	return {
		continuity: shares.length ? round3(shares.reduce((a, b) => a + b, 0) / shares.length) : null,
		continuityRequests: shares.length,
		continuityFacts: tally.checked,
		continuityFactsSeen: tally.seen,
		continuityFactsUnknown: tally.unknown,
		continuityMissed: { ...tally.missed },
		detailsSampled: sampled,
		detailsChecks: checks,
		detailsVisible: share(classes.visible),
		detailsInSummary: share(classes.inSummary),
		detailsRecalled: share(classes.recalled),
		detailsLost: share(classes.lost),
		detailsReachable: share(classes.visible + classes.inSummary + classes.recalled),
		detailsRecalledLineRule: share(tally.lineRuleRecalled),
		detailsReachableLineRule: share(classes.visible + classes.inSummary + tally.lineRuleRecalled),
	};
}

export function knowledgeProbe(options: KnowledgeOptions): KnowledgeProbe {
	const oracle = factOracle();
	const rounds = new Map<string, Round>();
	const sample = sampleDetails(options.recorded);
	const byRound = new Map(sample.map(d => [d.roundId, d]));
	const live: Detail[] = [];
	const searches: SearchCache = new Map();
	const tally: Tally = {
		shares: [],
		checked: 0,
		seen: 0,
		unknown: 0,
		missed: { request: 0, read: 0, changed: 0, command: 0 },
		classes: { visible: 0, inSummary: 0, recalled: 0, lost: 0 },
		lineRuleRecalled: 0,
	};
	let probing = false;
	return {
		startTurn: user => oracle.addRequest(user),
		addRound(round) {
			oracle.addRound(round);
			rounds.set(round.id, round);
			const detail = byRound.get(round.id);
			if (detail) live.push(detail);
		},
		async recordRequest(request) {
			const view = promptView(request.messages, request.shown, request.summaries);
			probing ||= request.compacted || leavesOut(request, rounds);
			if (probing) checkFacts(tally, view, oracle.facts(), rounds);
			let context: RecallContext | undefined;
			const lazyContext = () => (context ??= recallContext(request.conversation, rounds, request.request, searches));
			for (const detail of live) {
				const where = await classify(view, detail, options.recall, lazyContext);
				tally.classes[where]++;
				if ((where === 'recalled' || where === 'lost') && options.recall && (await recalledByLineRule(detail, lazyContext(), options.recall))) {
					tally.lineRuleRecalled++;
				}
				if (DEBUG && where === 'lost') {
					debug(
						`detail lost (${lazyContext().searched.has(detail.roundId) ? 'in a summarized round' : 'not in a summarized round'}): ${detail.kind} ${JSON.stringify(detail.line)} (terms ${JSON.stringify(detail.terms)})`,
					);
				}
			}
		},
		metrics: () => metricsOf(tally, sample.length),
	};
}
