import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { compactionLine, fitNotice, type CompactionFacts } from '../../../../src/common/fitting/fitNotices';
import { setAside, setAsideRoundIds, withSetAside } from '../../../../src/common/fitting/setAside';
import { structureBreakLine, summaryDocument } from '../../../../src/common/summaries/summaryDocument';
import { formatMessage } from '../../../../src/common/text/message';

const none: CompactionFacts = {
	mode: 'legacy',
	summaries: 0,
	keptRounds: [],
	verbatimRounds: 9,
	setAsideSteps: 0,
	mostSetAside: 0,
	masked: 0,
	removed: 0,
	waitsMs: [],
};
const line = (facts: Partial<CompactionFacts>) => {
	const m = compactionLine({ ...none, ...facts });
	return m && formatMessage(m);
};

describe('the line at the end of a response that compacted', () => {
	it('names the mode, the summaries, the rounds kept, the set-aside steps and the waits', () => {
		assert.equal(line({}), undefined, 'nothing compacted: no line');
		assert.equal(
			line({ summaries: 12, keptRounds: [1, 1, 1], waitsMs: [30_000, 12_500] }),
			'Legacy mode: 12 summaries made, 1 recent round kept verbatim, waited for a summary 2 times (42.5 s in all)',
		);
		assert.equal(
			line({ mode: 'half-context', summaries: 3, keptRounds: [6, 13, 9], setAsideSteps: 21, mostSetAside: 4 }),
			'Half-context mode: 3 summaries made, 6–13 recent rounds kept verbatim, up to 4 rounds set aside while their summary was written (21 times), no wait for a summary',
		);
		assert.equal(
			line({ mode: 'half-context', setAsideSteps: 1, mostSetAside: 1, waitsMs: [3] }),
			'Half-context mode: 0 summaries made, 9 recent rounds kept verbatim, up to 1 round set aside while their summary was written (1 time), waited for a summary 1 time (<0.1 s in all)',
		);
	});

	it('says a set-aside step in plain words, without internal names', () => {
		const [notice] = fitNotice({ kind: 'bridged', setAsideRounds: 4, calls: 0, freedTokens: 0, neededTokens: 1 })!;
		assert.equal(formatMessage(notice), '4 older rounds set aside while their summary is written; the agent did not wait.');
		assert.doesNotMatch(formatMessage(fitNotice({ kind: 'bridged', setAsideRounds: 0, calls: 3, freedTokens: 900, neededTokens: 1 })![0]), /bridge/i);
	});
});

describe('a summary edit that broke the document', () => {
	const shown = summaryDocument({ roundId: 'r9', text: 'S1', location: { source: 'history', turnIndex: 0, roundIndex: 8 } }).content;
	const lines = shown.split('\n');
	const separator = lines.indexOf('---');

	it('is marked where the separator was, or where the edit first changed the header', () => {
		assert.equal(structureBreakLine(shown, lines.filter((_, i) => i !== separator).join('\n')), separator);
		assert.equal(structureBreakLine(shown, ['# Mine', ...lines.slice(1)].filter(l => l !== '---').join('\n')), 0);
		assert.equal(structureBreakLine('no separator', 'x'), undefined);
	});
});

describe('rounds a request left set aside, shown again over the stored conversation', () => {
	const round = (id: string, summary?: string): Round => ({
		id,
		response: `r ${id}`,
		toolCalls: [{ id: `c-${id}`, name: 'read_file', arguments: JSON.stringify({ path: `src/${id}.ts` }), result: 'x'.repeat(50) }],
		...(summary ? { summary } : {}),
	});
	const stored: Conversation = {
		turns: [{ user: 'go', rounds: [round('a0'), round('a1', 'S1'), round('a2'), round('a3'), round('a4'), round('a5')] }],
		activeRounds: [],
	};

	it('the same provisional block as the request had, from its round ids; nothing when those rounds changed since', () => {
		const inRequest = setAside(stored, { summarizeRoundIds: ['a2', 'a3', 'a4'], previousSummary: { roundId: 'a1', text: 'S1' } });
		const ids = setAsideRoundIds(inRequest);
		assert.deepEqual(ids, ['a2', 'a3', 'a4']);
		assert.deepEqual(withSetAside(stored, ids), inRequest, 'what /context and the meter show is what the request left');
		assert.equal(setAsideRoundIds(stored).length, 0);
		const compacted = { turns: [{ ...stored.turns[0], rounds: stored.turns[0].rounds.map(r => (r.id === 'a3' ? round('a3', 'S2') : r)) }], activeRounds: [] };
		assert.equal(withSetAside(compacted, ids), compacted, 'a round summarized since: left as it is');
	});
});
