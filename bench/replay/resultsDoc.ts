// bench/RESULTS.md, generated from bench/results/latest.json: the prose is written here, every
// number in the document comes from the run (`npm run bench` writes both; `npm run bench:results`
// writes the document again from the JSON; a unit test checks that the committed two agree).
import { readFileSync, writeFileSync } from 'node:fs';
import type { GoalCheck } from './targets';
import type { KnowledgeSummary, CurvePoint } from '../knowledge/knowledgeTable';
import type { LabelCheck, Score } from '../knowledge/labelCheck';
import type { TimeRow } from './timeTable';
import type { MaskingComparison } from './masking';
import type { ContinuitySummary } from './continuity';
import type { RulesRow } from './rulesTable';

export const RESULTS_JSON = 'bench/results/latest.json';
export const RESULTS_DOC = 'bench/RESULTS.md';

/** The parts of latest.json the document reads. */
export interface LatestRun {
	readonly generatedAt: string;
	readonly node: string;
	readonly cpus: number;
	readonly durationMs: number;
	readonly windows: readonly number[];
	readonly strategies: readonly string[];
	readonly recommended: string;
	readonly summaryInformation: number | 'copying';
	readonly curveLevels: readonly (number | 'copying')[];
	readonly clock: string;
	readonly rateLimits: number;
	/** The provider model of the main table (runs before issue 39 give providerConcurrency instead). */
	readonly provider?: string;
	readonly providerConcurrency?: number;
	readonly goals: readonly GoalCheck[];
	readonly knowledge: readonly KnowledgeSummary[];
	readonly curves: readonly CurvePoint[];
	readonly labels: LabelCheck;
	readonly continuity: readonly ContinuitySummary[];
	readonly masking: readonly MaskingComparison[];
	readonly time: readonly TimeRow[];
	readonly dayLong: readonly Record<string, unknown>[];
	readonly rules: readonly RulesRow[];
	readonly results: readonly {
		window: number;
		strategy: string;
		requests: number;
		summarizations: number;
		summarizerInputTokens: number;
		mainInputTokens: number;
		overflows: number;
	}[];
}

const v3 = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toFixed(3));
const v2 = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toFixed(2));
const int = (x: number) => String(Math.round(x)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const k = (window: number) => `${window / 1000}k`;

/** A Markdown table; `isText(i)`: column i is left-aligned (by default the first two), the rest are figures, right-aligned. */
function table(header: readonly string[], rows: readonly (readonly string[])[], isText = (i: number) => i < 2): string {
	const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
	return [line(header), line(header.map((_, i) => (isText(i) ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

function runFacts(run: LatestRun): string {
	const replays = run.results.length;
	return [
		`Generated from \`bench/results/latest.json\` of the run of ${run.generatedAt.slice(0, 10)} (Node ${run.node}, ${run.cpus} CPUs): ${replays} replays in the main table`,
		`(${run.windows.length} windows × ${run.strategies.length} strategies over the corpus), plus the knowledge curves, the background-off and`,
		`ledger-off replays and the day-long chat; the whole run took ${sec(run.durationMs)}. Settings: summaries information-limited at`,
		`N = ${run.summaryInformation} (curves at ${run.curveLevels.join(', ')}), clock \`${run.clock}\` with rate limits on a share ${run.rateLimits} of calls,`,
		`${run.provider ? `provider ${run.provider}` : `provider concurrency ${run.providerConcurrency}`}. The recommended configuration is \`${run.recommended}\` (with the done-ledger and background summaries).`,
	].join('\n');
}

function goals(run: LatestRun): string {
	return table(
		['goal (issue 31)', 'measured', 'met', 'why it is missed (from the run)'],
		run.goals.map(g => [g.goal, g.measured, g.met === null ? 'n/a' : g.met ? 'met' : '**missed**', g.why ?? '']),
		i => i !== 2,
	);
}

function knowledge(run: LatestRun): string {
	return table(
		[
			'window',
			'strategy',
			'intact horizon',
			'horizon (masked counted)',
			'continuity (lowest session)',
			'visible',
			'in summary',
			'recalled',
			'lost',
			'reachable',
			'reachable (old line-word rule)',
		],
		run.knowledge.map(s => [
			k(s.window),
			s.strategy,
			`**${v2(s.intactHorizon)}**`,
			v2(s.horizonMaskedCounted),
			`${v3(s.continuity)} (${v3(s.minSessionContinuity)})`,
			v3(s.detailsVisible),
			v3(s.detailsInSummary),
			v3(s.detailsRecalled),
			v3(s.detailsLost),
			`**${v3(s.detailsReachable)}**`,
			v3(s.detailsReachableLineRule),
		]),
	);
}

function curves(run: LatestRun): string {
	return table(
		['window', 'strategy', 'N', 'continuity', 'in summary', 'recalled', 'reachable', 'reachable (old rule)'],
		run.curves.map(p => [
			k(p.window),
			p.strategy,
			String(p.summaryInformation),
			v3(p.continuity),
			v3(p.detailsInSummary),
			v3(p.detailsRecalled),
			v3(p.detailsReachable),
			v3(p.detailsReachableLineRule),
		]),
	);
}

function labels(run: LatestRun): string {
	const l = run.labels;
	const row = (name: string, s: Score) => [name, v3(s.precision), v3(s.recall), String(s.truePositives), String(s.falsePositives), String(s.falseNegatives)];
	return [
		`Sessions labelled: ${l.sessions.map(s => `${s.session} (first ${s.rounds} rounds, ${s.calls} calls)`).join('; ')}.`,
		'',
		table(
			['facts', '', 'precision', 'recall', 'true pos.', 'false pos.', 'false neg.'].filter(h => h !== ''),
			[row('files read', l.reads), row('files changed', l.changes), row('commands run', l.commands), row('all', l.all)],
		),
		'',
		`Status of the commands both the oracle and the labels say ran: ${l.statusAgrees} agree, ${l.statusDisagrees} disagree, ${l.statusUnknown} unknown to the oracle.`,
	].join('\n');
}

function time(run: LatestRun): string {
	return table(
		[
			'window',
			'strategy',
			'compactions',
			'prepared at overflow',
			'wait p50',
			'wait p95 (highest session)',
			'wait total',
			'wait share',
			'background discarded (pending at end included)',
			'pending at end',
			'session time',
		],
		run.time.map(r => [
			k(r.window),
			r.strategy,
			String(r.compactionOverflows),
			v2(r.preparedAtOverflow),
			sec(r.waitMsP50),
			sec(r.waitMsP95),
			sec(r.waitMsTotal),
			v3(r.waitShare),
			v3(r.backgroundTokensDiscarded),
			v3(r.backgroundTokensAtEnd),
			`${(r.sessionMs / 60_000).toFixed(1)} min`,
		]),
	);
}

function dayLong(run: LatestRun): string {
	const n = (x: unknown) => (typeof x === 'number' ? (Number.isInteger(x) ? int(x) : x.toFixed(3)) : x === null ? '–' : String(x));
	return table(
		[
			'strategy',
			'requests',
			'summaries',
			'summarizer input',
			'overflows',
			'intact horizon',
			'horizon (masked counted)',
			'continuity',
			'reachable',
			'compactions',
			'prepared',
			'wait p95',
			'wait total',
		],
		run.dayLong.map(r => [
			String(r.strategy),
			...[
				'requests',
				'summarizations',
				'summarizerInputTokens',
				'overflows',
				'intactHorizonRounds',
				'verbatimHorizonRounds',
				'continuity',
				'detailsReachable',
				'compactionOverflows',
				'preparedAtOverflow',
			].map(key => n(r[key])),
			sec(Number(r.waitMsP95)),
			sec(Number(r.waitMsTotal)),
		]),
	);
}

function corpusSums(run: LatestRun): string {
	const keys = [...new Set(run.results.map(r => `${r.window}|${r.strategy}`))];
	return table(
		['window', 'strategy', 'requests', 'summaries', 'summarizer input', 'agent input', 'overflows'],
		keys.map(key => {
			const rows = run.results.filter(r => `${r.window}|${r.strategy}` === key);
			const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0);
			return [
				k(rows[0].window),
				rows[0].strategy,
				int(sum(r => r.requests)),
				int(sum(r => r.summarizations)),
				int(sum(r => r.summarizerInputTokens)),
				int(sum(r => r.mainInputTokens)),
				int(sum(r => r.overflows)),
			];
		}),
	);
}

function masking(run: LatestRun): string {
	const arrow = (a: number, b: number, f: (x: number) => string) => `${f(a)} → ${f(b)}`;
	return table(
		['window', 'mode', 'summaries', 'summarizer input', 'intact horizon', 'horizon (masked counted)', 'results masked'],
		run.masking.map(m => [
			k(m.window),
			m.mode,
			arrow(m.without.summarizations, m.with.summarizations, int),
			`${arrow(m.without.summarizerInputTokens, m.with.summarizerInputTokens, int)}${m.summarizerInputRatio === null ? '' : ` (${v2(m.summarizerInputRatio)}×)`}`,
			arrow(m.without.intactHorizonRounds, m.with.intactHorizonRounds, v2),
			arrow(m.without.verbatimHorizonRounds, m.with.verbatimHorizonRounds, v2),
			int(m.with.maskedToolResults),
		]),
	);
}

function ledger(run: LatestRun): string {
	return table(
		['window', 'strategy', 'probed requests', 'continuity, ledger on (lowest session)', 'ledger off', 'summaries on / off'],
		run.continuity.map(c => [
			k(c.window),
			c.strategy,
			int(c.probedRequests),
			`${v3(c.continuityOn)} (${v3(c.minSessionOn)})`,
			v3(c.continuityOff),
			`${c.summarizationsOn} / ${c.summarizationsOff ?? '–'}`,
		]),
	);
}

function rules(run: LatestRun): string {
	return table(
		['window', 'strategy', 'requests', 'dropped rounds', 'requests lost', 'summaries lost', 'tool tokens'],
		run.rules.map(r => [k(r.window), r.strategy, int(r.requests), int(r.droppedRounds), int(r.requestsLost), int(r.summariesLost), int(r.toolTokens)]),
	);
}

/** The whole document. */
export function renderResults(run: LatestRun): string {
	return (
		[
			PROSE.head,
			runFacts(run),
			PROSE.goals,
			goals(run),
			PROSE.knowledge,
			knowledge(run),
			PROSE.curves,
			curves(run),
			PROSE.labels,
			labels(run),
			PROSE.time,
			time(run),
			PROSE.dayLong,
			dayLong(run),
			PROSE.masking,
			masking(run),
			PROSE.ledger,
			ledger(run),
			PROSE.rules,
			rules(run),
			PROSE.sums,
			corpusSums(run),
			PROSE.tail,
		].join('\n\n') + '\n'
	);
}

const PROSE = {
	head: `# Replay benchmark results

\`npm run bench\` replays every session of \`shared/corpus\` request by request, as the agent would have
lived it, at several windows and with the product's two modes, the same two with old tool results
masked first, and two references (truncate-half, Cline's rule, and keep-head-tail, OpenHands'
condenser), and measures what each keeps in the prompt, what the agent can still know,
what it costs and how long the user waits. This file is written by the run from
\`bench/results/latest.json\` (\`bench/replay/resultsDoc.ts\`; \`npm run bench:results\` writes it again from
the JSON); a unit test checks that the committed two agree. Numbers of earlier runs and of the
real-host and micro-benchmarks are in \`bench/EARLIER-RESULTS.md\`, with their dates.

\`\`\`
npm run bench                                   # whole corpus: tables on stdout, latest.json, the charts, this file
npm run -s bench -- --session ../shared/corpus/oh-ponyc-4595.json --window 16k --strategy half-context --json
npm run -s bench -- --help                      # every option
\`\`\``,
	goals: `## Targets

Issue 31's goals, in the measures below, checked on this run (\`bench/replay/targets.ts\`). The run
is on \`shared/corpus\`; the goals are meant for sessions the project does not have.`,
	knowledge: `## What the agent keeps and can still know

Sums and request-weighted means over the corpus, summaries at the default information share.
**Intact horizon** (the headline): the newest rounds shown with every tool result whole, counted
back from the newest until one is missing, masked, elided or cut. *Horizon (masked counted)* is the
old count, where a round with a masked or elided result still counts as kept; it is given beside
the headline for comparison. **Continuity**: on every request from the first that leaves something
out, the share of the fact oracle's facts (requests, files read and changed, commands with their
latest status) the prompt names, word for word, in the done-ledger or in a summary; a command the
ledger names with a status the oracle cannot read is left out of the share (neither agreement nor
miss). **Details**: one distinctive line of every fourth round, checked on every later request:
visible word for word; *in summary* when one line of a summary states the line's key terms (its three
longest words), as the information-limited stand-in writes a fact in its own words; *recalled* when
one \`longhaul_recall\` call, run through the product's recall, brings the line back with a query the
prompt makes possible (the call's path or command where the prompt shows it, a key term a summary or
the ledger states, a round number the prompt names; product modes only); else lost. *Reachable* is
visible + in summary + recalled. The old rule (the line's own rarest word as a query, which an agent
that cannot see the line would not know) is reported beside it for this release only.`,
	curves: `## Knowledge over the summaries' information

The stand-in summarizer writes a summary of the length the prompt asks, holding a share N of the
facts of what it absorbs (chosen by a seeded hash, stated in its own words: no line copied from a
tool result, no JSON) and filler for the rest (\`bench/replay/informationSummary.ts\`). N = 0 is pure
filler; \`copying\` is the old stand-in that copies response lines, arguments and result lines, kept
for comparison only. Same corpus, same clock; the strategies that summarize, at the windows where
the corpus overflows.`,
	labels: `## The fact oracle against hand labels

The oracle (\`bench/knowledge/factOracle.ts\`) reads shell lines with its own tokenizer
(\`bench/knowledge/shellWords.ts\`), not the product's parser. Its facts are compared, call by call,
with labels written by reading the sessions (\`bench/knowledge/labels/\`, each file states its method
and covers the first rounds of a session).`,
	time: `## Time

The virtual clock (\`bench/replay/clock.ts\`) has rates of its own, written from the field figures,
and the product's forecast learns from the durations it observes (nothing is shared). Each call's time
carries seeded log-normal noise and a heavy tail of stalls; a share of calls meets a rate limit and
pauses; each summarizer call writes its \`<analysis>\` before the summary, charged at the output rate.
Background summaries queue behind the agent's own calls on one provider
(\`bench/replay/providerQueue.ts\`). Work still pending when a session ends counts as discarded.
The rows marked *background off* are the same replays without background summaries: the difference
between them and the plain rows is the background's effect, the rest is the policy's.`,
	dayLong: `## The day-long chat

All sessions of the corpus as consecutive turns of one chat, at 16k (\`--concat\`).`,
	masking: `## Masking old tool results first

Without → with \`longhaul.maskOldToolResults\`, sums over the corpus.`,
	ledger: `## The done-ledger on and off`,
	rules: `## Same rules for every strategy

Dropped rounds (references included), requests never sent, summary blocks lost; every strategy is
charged the product's tool definitions.`,
	sums: `## The corpus, every window`,
	tail: `## Limits

- The summaries are a stand-in's: the information share N is a setting, not a measurement of a
  model. The curves show how the knowledge measures move with it.
- The recall rule assumes the agent asks for the detail it needs with the best key the prompt
  shows; it says which details an agent *could* get back, not which it would.
- Counts are js-tiktoken o200k_base; the corpus models tokenize differently.
- The clock's noise is seeded: the same run gives the same times. It is not a measurement of a
  provider.
- The corpus sessions are short chats of one or two requests; multi-turn behaviour is exercised
  mostly by the day-long chat.`,
};

if (require.main === module) {
	const run = JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) as LatestRun;
	writeFileSync(RESULTS_DOC, renderResults(run));
	process.stdout.write(`wrote ${RESULTS_DOC}\n`);
}
