// The fact oracle (factOracle.ts callFacts) against facts labelled by hand: bench/knowledge/labels
// holds, for a few corpus sessions, each call of their first rounds as read by a person (files it
// showed, files it changed, whether it ran something beyond looking, the status its result states;
// each file's `method` says how). Precision and recall per kind of fact over those calls; for the
// commands both call "run", how often the oracle's status agrees with the label, disagrees, or is
// unknown (the oracle reads no status where the result states none in a form it knows).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadSession } from '../replay/session';
import { callFacts } from './factOracle';
import { normalPath } from './shellFacts';

export const LABELS_DIR = 'bench/knowledge/labels';

interface LabelledCall {
	readonly round: number;
	readonly call: number;
	readonly reads: readonly string[];
	readonly changes: readonly string[];
	readonly runs: boolean;
	/** `exit N`, `ok`, `failed` or `none` (no result). */
	readonly status: string;
}

interface LabelFile {
	readonly session: string;
	readonly rounds: number;
	readonly calls: readonly LabelledCall[];
}

export interface Score {
	readonly truePositives: number;
	readonly falsePositives: number;
	readonly falseNegatives: number;
	readonly precision: number | null;
	readonly recall: number | null;
}

export interface LabelCheck {
	/** Sessions labelled and found in the corpus, each with the rounds labelled. */
	readonly sessions: readonly { readonly session: string; readonly rounds: number; readonly calls: number }[];
	readonly reads: Score;
	readonly changes: Score;
	readonly commands: Score;
	readonly all: Score;
	/** Of the commands both call run: the oracle's status agrees, disagrees, or is unknown. */
	readonly statusAgrees: number;
	readonly statusDisagrees: number;
	readonly statusUnknown: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function score(tp: number, fp: number, fn: number): Score {
	return {
		truePositives: tp,
		falsePositives: fp,
		falseNegatives: fn,
		precision: tp + fp ? round3(tp / (tp + fp)) : null,
		recall: tp + fn ? round3(tp / (tp + fn)) : null,
	};
}

interface Counts {
	tp: number;
	fp: number;
	fn: number;
}

function compareSets(found: readonly string[], labelled: readonly string[], counts: Counts): void {
	const a = new Set(found.map(normalPath));
	const b = new Set(labelled.map(normalPath));
	for (const x of a) {
		if (b.has(x)) counts.tp++;
		else counts.fp++;
	}
	for (const x of b) if (!a.has(x)) counts.fn++;
}

/** The oracle's status against the label's: agrees, disagrees or unknown. */
export function statusVerdict(oracle: string, label: string): 'agrees' | 'disagrees' | 'unknown' {
	if (oracle === 'unknown') return 'unknown';
	if (oracle.startsWith('exit ')) {
		return oracle === label || (label === 'ok' && oracle === 'exit 0') || (label === 'failed' && oracle !== 'exit 0') ? 'agrees' : 'disagrees';
	}
	if (oracle === 'interrupted') return label === 'none' ? 'agrees' : 'disagrees';
	return label === 'failed' ? 'agrees' : 'disagrees';
}

function readLabels(dir: string): LabelFile[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter(f => f.endsWith('.json'))
		.sort()
		.map(f => JSON.parse(readFileSync(join(dir, f), 'utf8')) as LabelFile);
}

/** The oracle against every label file whose session is in `corpus`. */
export function labelCheck(corpus = process.env.LONGHAUL_CORPUS?.split(',')[0] ?? resolve('../shared/corpus'), dir = resolve(LABELS_DIR)): LabelCheck {
	const counts = { reads: { tp: 0, fp: 0, fn: 0 }, changes: { tp: 0, fp: 0, fn: 0 }, commands: { tp: 0, fp: 0, fn: 0 } };
	const status = { agrees: 0, disagrees: 0, unknown: 0 };
	const sessions: LabelCheck['sessions'][number][] = [];
	for (const labels of readLabels(dir)) {
		const file = join(corpus, `${labels.session}.json`);
		if (!existsSync(file)) continue;
		const rounds = loadSession(file).conversation.turns.flatMap(t => t.rounds);
		sessions.push({ session: labels.session, rounds: labels.rounds, calls: labels.calls.length });
		for (const label of labels.calls) {
			const call = rounds[label.round - 1]?.toolCalls[label.call];
			if (!call) throw new Error(`${labels.session}: no call ${label.call} in round ${label.round}`);
			const facts = callFacts(call);
			compareSets(facts.reads, label.reads, counts.reads);
			compareSets(facts.changes, label.changes, counts.changes);
			const runs = facts.command !== undefined;
			if (runs && label.runs) {
				counts.commands.tp++;
				status[statusVerdict(facts.command!.status.text, label.status)]++;
			} else if (runs) counts.commands.fp++;
			else if (label.runs) counts.commands.fn++;
		}
	}
	const all = (['tp', 'fp', 'fn'] as const).map(k => counts.reads[k] + counts.changes[k] + counts.commands[k]);
	return {
		sessions,
		reads: score(counts.reads.tp, counts.reads.fp, counts.reads.fn),
		changes: score(counts.changes.tp, counts.changes.fp, counts.changes.fn),
		commands: score(counts.commands.tp, counts.commands.fp, counts.commands.fn),
		all: score(all[0], all[1], all[2]),
		statusAgrees: status.agrees,
		statusDisagrees: status.disagrees,
		statusUnknown: status.unknown,
	};
}

export function formatLabelCheck(check: LabelCheck): string {
	if (!check.sessions.length) return '(no labelled session in the corpus)';
	const v = (x: number | null) => (x === null ? '-' : x.toFixed(3));
	const line = (name: string, s: Score) =>
		`${name.padEnd(9)} ${v(s.precision).padStart(9)} ${v(s.recall).padStart(6)}   ${String(s.truePositives).padStart(3)} ${String(s.falsePositives).padStart(3)} ${String(s.falseNegatives).padStart(3)}`;
	return [
		`sessions: ${check.sessions.map(s => `${s.session} (first ${s.rounds} rounds, ${s.calls} calls)`).join(', ')}`,
		'facts     precision recall    tp  fp  fn',
		line('reads', check.reads),
		line('changes', check.changes),
		line('commands', check.commands),
		line('all', check.all),
		`status of the commands both call run: ${check.statusAgrees} agree, ${check.statusDisagrees} disagree, ${check.statusUnknown} unknown to the oracle`,
	].join('\n');
}
