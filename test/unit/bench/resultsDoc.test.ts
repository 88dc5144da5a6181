// bench/RESULTS.md is generated from bench/results/latest.json (bench/replay/resultsDoc.ts): the
// committed document must be what the committed JSON renders, so no number in it can drift from
// the run. After `npm run bench` both are written; `npm run bench:results` writes the document again.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderResults, RESULTS_DOC, RESULTS_JSON, type LatestRun } from '../../../bench/replay/resultsDoc';

describe('bench/RESULTS.md', () => {
	it('is what the committed latest.json renders', () => {
		const run = JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) as LatestRun;
		assert.equal(readFileSync(RESULTS_DOC, 'utf8'), renderResults(run), 'run `npm run bench:results` (or `npm run bench`) and commit both');
	});

	it('prints every goal of the targets table as met, missed or n/a, from the run', () => {
		const run = JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) as LatestRun;
		const doc = renderResults(run);
		assert.ok(run.goals.length > 0);
		for (const goal of run.goals) {
			// One row per goal: with several corpora, each corpus's cell comes first, then the figure on all of them and the verdict.
			const row = doc.split('\n').find(line => line.startsWith(`| ${goal.goal} |`));
			assert.ok(row, `a row for ${goal.goal}`);
			assert.ok(row.includes(`| ${goal.measured} | ${goal.met === null ? 'n/a' : goal.met ? 'met' : '**missed**'} |`), `${goal.goal}: ${row}`);
		}
	});
});
