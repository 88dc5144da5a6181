import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Round } from '../../../../src/common/conversation/conversation';
import {
	decodeTurnRecord,
	encodeTurnRecord,
	METADATA_KEY,
	rebuildConversation,
	REFUSED_REQUEST_MAX_CHARS,
	STORED_RESULT_MAX_CHARS,
	cutForStorage,
	type TurnRecord,
} from '../../../../src/common/persistence/metadata';
import { formatIssue } from '../../../../src/common/text/jsonFields';
import { summaryBlocks } from '../../../../src/common/conversation/summaryBlocks';
import { makeConversation, makeRound } from '../../helpers/conversations';

const viaJson = <T>(value: T): unknown => JSON.parse(JSON.stringify(value));
const stored = (record: unknown) => ({ [METADATA_KEY]: record });

describe('turn records in ChatResult.metadata', () => {
	describe('encode / decode', () => {
		it('round-trips rounds, thinking, unanswered calls, flags and summaries through JSON', () => {
			const rounds: Round[] = [
				makeRound('r1', { thinking: 'hmm' }),
				{ id: 'r2', response: 'stopped', toolCalls: [{ id: 'c', name: 'runCommand', arguments: '{"command":"make"}' }] },
			];
			const record = encodeTurnRecord({ rounds, maxToolCallsExceeded: true, cancelled: true, summaryBlocks: [{ roundId: 'older', text: 'S' }] });
			const decoded = decodeTurnRecord(viaJson(record));
			assert.deepEqual(decoded.errors, []);
			assert.deepEqual(decoded.record, record);
			assert.deepEqual(decoded.record!.rounds, rounds);
			assert.equal(decoded.record!.schemaVersion, 2);
		});

		it("round-trips a round's provider state, and leaves out a malformed part or state with a clear issue, keeping the round", () => {
			const state = { model: 'copilot/gpt', prefix: 'fp', parts: [{ mimeType: 'stateful_marker', data: Buffer.from('copilot\\resp-1').toString('base64') }] };
			const record = encodeTurnRecord({ rounds: [makeRound('r1', { providerState: state }), makeRound('r2')] });
			const decoded = decodeTurnRecord(viaJson(record));
			assert.deepEqual(decoded.errors, []);
			assert.deepEqual(decoded.record!.rounds[0].providerState, state);
			assert.equal(decoded.record!.rounds[1].providerState, undefined);

			const bad = viaJson(record) as { rounds: { providerState?: unknown }[] };
			bad.rounds[0].providerState = {
				...state,
				parts: [{ mimeType: 'image/png', data: 'AA==' }, { mimeType: 'stateful_marker', data: 'not base64!' }, state.parts[0]],
			};
			bad.rounds[1].providerState = { parts: [] };
			const lenient = decodeTurnRecord(bad);
			assert.deepEqual(
				lenient.record!.rounds.map(r => r.id),
				['r1', 'r2'],
			);
			assert.deepEqual(lenient.record!.rounds[0].providerState?.parts, state.parts);
			assert.equal(lenient.record!.rounds[1].providerState, undefined);
			assert.deepEqual(
				lenient.errors.map(e => formatIssue(e).replace(/:.*/, '')),
				['rounds[0].providerState.parts[0]', 'rounds[0].providerState.parts[1]', 'rounds[1].providerState.model', 'rounds[1].providerState.prefix'],
			);
		});

		it('stores each block once, with its flags: a summary carried by a round moves into summaryBlocks', () => {
			const record = encodeTurnRecord({
				rounds: [makeRound('r1', { summary: 'S1' }), makeRound('r2')],
				summaryBlocks: [
					{ roundId: 't0r3', text: 'S0', condensed: true },
					{ roundId: 't0r5', text: 'S0b', condensed: false, spansTurns: undefined },
				],
			});
			assert.deepEqual(record.summaryBlocks, [
				{ roundId: 't0r3', text: 'S0', condensed: true },
				{ roundId: 't0r5', text: 'S0b' },
				{ roundId: 'r1', text: 'S1' },
			]);
			assert.equal(record.rounds[0].summary, undefined);
		});

		it('writes no undefined fields (what is stored equals what is read back)', () => {
			const record = encodeTurnRecord({ rounds: [makeRound('r1')] });
			assert.deepEqual(viaJson(record), record);
			assert.ok(!('maxToolCallsExceeded' in record) && !('cancelled' in record));
		});

		it('an unknown schema version is a typed issue and yields no record', () => {
			const { record, errors } = decodeTurnRecord({ schemaVersion: 3, rounds: [], summaryBlocks: [] });
			assert.equal(record, undefined);
			assert.deepEqual(
				errors.map(e => [e.kind, e.path]),
				[['unknown-version', 'schemaVersion']],
			);
		});

		it('a missing version or a non-object is reported, never thrown', () => {
			assert.equal(decodeTurnRecord({ rounds: [] }).errors[0].kind, 'missing-field');
			for (const raw of [null, 42, 'x', [], undefined]) {
				const { record, errors } = decodeTurnRecord(raw);
				assert.equal(record, undefined);
				assert.equal(errors[0].kind, 'wrong-type');
			}
		});

		it('a bad round is skipped with a path naming the field; the other rounds are kept', () => {
			const { record, errors } = decodeTurnRecord({
				schemaVersion: 2,
				rounds: [viaJson(makeRound('ok1')), { id: 'bad', toolCalls: [] }, { id: 7, response: '', toolCalls: [] }, viaJson(makeRound('ok2'))],
				summaryBlocks: [],
			});
			assert.deepEqual(
				record!.rounds.map(r => r.id),
				['ok1', 'ok2'],
			);
			assert.deepEqual(
				errors.map(e => [e.kind, e.path]),
				[
					['missing-field', 'rounds[1].response'],
					['wrong-type', 'rounds[2].id'],
				],
			);
		});

		it('a bad tool call is skipped with its path; the round and its other calls are kept', () => {
			const { record, errors } = decodeTurnRecord({
				schemaVersion: 2,
				rounds: [
					{
						id: 'r',
						response: '',
						toolCalls: [
							{ id: 'c0', name: 'a', arguments: '{}', result: 'x' },
							{ id: 3, name: 'b', arguments: '{}' },
							{ id: 'c2', name: 'c', arguments: '{}', result: 5 },
						],
					},
				],
				summaryBlocks: [],
			});
			assert.deepEqual(
				record!.rounds[0].toolCalls.map(c => c.id),
				['c0'],
			);
			assert.deepEqual(
				errors.map(e => formatIssue(e)),
				['rounds[0].toolCalls[1].id: expected a string, got a number', 'rounds[0].toolCalls[2].result: expected a string, got a number'],
			);
		});

		it('bad summary blocks and flags are reported and ignored; a duplicate round id is skipped', () => {
			const { record, errors } = decodeTurnRecord({
				schemaVersion: 2,
				rounds: [viaJson(makeRound('r')), viaJson(makeRound('r'))],
				cancelled: 'yes',
				summaryBlocks: [{ roundId: 'r', text: 'S', condensed: true }, { roundId: 'r' }, 'nope', { roundId: 'r', text: 'T', spansTurns: 'no' }],
			});
			assert.equal(record!.rounds.length, 1);
			assert.deepEqual(record!.summaryBlocks, [{ roundId: 'r', text: 'S', condensed: true }]);
			assert.equal(record!.cancelled, undefined);
			assert.deepEqual(
				errors.map(e => [e.kind, e.path]),
				[
					['duplicate-id', 'rounds[1].id'],
					['missing-field', 'summaryBlocks[1].text'],
					['wrong-type', 'summaryBlocks[2]'],
					['wrong-type', 'summaryBlocks[3].spansTurns'],
					['wrong-type', 'cancelled'],
				],
			);
		});

		it('missing rounds or summaryBlocks lists are reported; the record is still usable', () => {
			const { record, errors } = decodeTurnRecord({ schemaVersion: 2 });
			assert.deepEqual(record, { schemaVersion: 2, rounds: [], summaryBlocks: [] });
			assert.deepEqual(
				errors.map(e => e.path),
				['rounds', 'summaryBlocks'],
			);
		});

		it('a record written by 0.1.0 (schema 1) still reads: its summaries become blocks that span turns', () => {
			// Exactly the shape Longhaul 0.1.0 stored (src/common/metadata.ts at 0.1.0).
			const written010 = {
				schemaVersion: 1,
				rounds: [{ id: 'r9', response: 'done', toolCalls: [{ id: 'c', name: 'longhaul_runCommand', arguments: '{"command":"make"}', result: 'ok' }] }],
				maxToolCallsExceeded: true,
				summaries: [{ roundId: 'r3', text: 'Everything before, absorbed.' }],
			};
			const { record, errors } = decodeTurnRecord(written010);
			assert.deepEqual(errors, []);
			assert.deepEqual(record, {
				schemaVersion: 2,
				rounds: written010.rounds,
				maxToolCallsExceeded: true,
				summaryBlocks: [{ roundId: 'r3', text: 'Everything before, absorbed.', spansTurns: true }],
			});
			// A bad entry of the old list is reported under its old name.
			assert.deepEqual(
				decodeTurnRecord({ schemaVersion: 1, rounds: [], summaries: [{ roundId: 1, text: 'x' }] }).errors.map(e => e.path),
				['summaries[0].roundId'],
			);
		});

		it('never throws on arbitrary JSON (fast-check)', () => {
			fc.assert(
				fc.property(fc.jsonValue(), raw => {
					decodeTurnRecord(raw);
					decodeTurnRecord({ schemaVersion: 1, rounds: raw, summaries: raw });
					decodeTurnRecord({ schemaVersion: 1, rounds: [raw], summaries: [raw] });
					decodeTurnRecord({ schemaVersion: 2, rounds: raw, summaryBlocks: raw });
					decodeTurnRecord({ schemaVersion: 2, rounds: [raw], summaryBlocks: [raw] });
					rebuildConversation([
						{ user: 'u', metadata: raw },
						{ user: 'v', metadata: { [METADATA_KEY]: raw } },
					]);
				}),
				{ numRuns: 300 },
			);
		});
	});

	describe('rebuildConversation', () => {
		it('rebuilds turns, flags and summaries anchored on rounds of earlier turns', () => {
			const original = makeConversation({ turns: [3, { rounds: 2, maxToolCallsExceeded: true }, 2], summaries: { t0r1: 'S-in-turn-1', t1r1: 'S-in-turn-2' } });
			const strip = (r: Round): Round => ({ id: r.id, response: r.response, toolCalls: r.toolCalls });
			// The summary on t0r1 was made during turn 1, the one on t1r1 during turn 2.
			const records: TurnRecord[] = [
				encodeTurnRecord({ rounds: original.turns[0].rounds.map(strip) }),
				encodeTurnRecord({
					rounds: original.turns[1].rounds.map(strip),
					maxToolCallsExceeded: true,
					summaryBlocks: [{ roundId: 't0r1', text: 'S-in-turn-1' }],
				}),
				encodeTurnRecord({ rounds: original.turns[2].rounds, summaryBlocks: [{ roundId: 't1r1', text: 'S-in-turn-2' }] }),
			];
			const active = [makeRound('a0')];
			const { conversation, issues } = rebuildConversation(
				records.map((r, i) => ({ user: `request ${i}`, metadata: { other: 1, [METADATA_KEY]: viaJson(r) } })),
				active,
			);
			assert.deepEqual(issues, []);
			assert.deepEqual(conversation, { turns: original.turns, activeRounds: active });
		});

		it('a chat written by 0.1.0 and continued now: old summaries span turns, new blocks are per turn, a later record replaces a block (condensed)', () => {
			const v1 = (rounds: Round[], summaries: { roundId: string; text: string }[]) => ({ schemaVersion: 1, rounds: viaJson(rounds), summaries });
			const history = [
				{ user: 'u0', metadata: stored(v1([makeRound('t0r0'), makeRound('t0r1')], [])) },
				{ user: 'u1', metadata: stored(v1([makeRound('t1r0'), makeRound('t1r1')], [{ roundId: 't0r1', text: 'V1' }])) },
				{ user: 'u2', metadata: stored(v1([makeRound('t2r0'), makeRound('t2r1'), makeRound('t2r2')], [{ roundId: 't2r0', text: 'V2 absorbs V1' }])) },
				{
					user: 'u3',
					metadata: stored(
						viaJson(
							encodeTurnRecord({
								rounds: [makeRound('t3r0'), makeRound('t3r1')],
								summaryBlocks: [
									{ roundId: 't2r2', text: 'B2 absorbs V2', spansTurns: true },
									{ roundId: 't3r0', text: 'B3' },
								],
							}),
						),
					),
				},
				{
					user: 'u4',
					metadata: stored(
						viaJson(
							encodeTurnRecord({ rounds: [makeRound('t4r0')], summaryBlocks: [{ roundId: 't2r2', text: 'B2 short', condensed: true, spansTurns: true }] }),
						),
					),
				},
			];
			const { conversation, issues } = rebuildConversation(history);
			assert.deepEqual(issues, []);
			const t = conversation.turns;
			assert.deepEqual(
				[t[0].rounds[1].summary, t[0].rounds[1].summarySpansTurns, t[2].rounds[0].summary, t[2].rounds[2].summary, t[2].rounds[2].summaryCondensed],
				['V1', true, 'V2 absorbs V1', 'B2 short', true],
			);
			assert.deepEqual(
				summaryBlocks(conversation).map(b => [b.turnIndex, b.text, b.condensed, b.spansTurns, b.roundIds.length]),
				[
					[2, 'B2 short', true, true, 7],
					[3, 'B3', false, false, 1],
				],
			);
		});

		it('a refused request comes back shortened with a note, so it cannot block the chat; short ones stay whole', () => {
			const huge = 'please consider this long requirement. '.repeat(2000);
			const refused = encodeTurnRecord({ rounds: [], refused: true });
			assert.equal(decodeTurnRecord(viaJson(refused)).record!.refused, true);
			const { conversation, issues } = rebuildConversation([
				{ user: 'first', metadata: stored(encodeTurnRecord({ rounds: [makeRound('r1')] })) },
				{ user: huge, metadata: stored(viaJson(refused)) },
				{ user: 'short but refused', metadata: stored(viaJson(refused)) },
				{ user: huge, metadata: stored(encodeTurnRecord({ rounds: [] })) },
			]);
			assert.deepEqual(issues, []);
			const [, shortened, short, answered] = conversation.turns.map(t => t.user);
			assert.ok(shortened.startsWith(huge.slice(0, REFUSED_REQUEST_MAX_CHARS)), 'the head of the request is kept');
			assert.ok(shortened.length < REFUSED_REQUEST_MAX_CHARS + 300, `shortened to ${shortened.length} characters`);
			assert.match(shortened, /too large for the model's context window and was not answered/);
			assert.match(shortened, new RegExp(`${huge.length - REFUSED_REQUEST_MAX_CHARS} more characters`));
			assert.equal(short, 'short but refused');
			assert.equal(answered, huge, 'an answered request is never shortened');
		});

		it('a summary whose round is unknown is an issue, not a crash', () => {
			const { conversation, issues } = rebuildConversation([
				{ user: 'u', metadata: stored(encodeTurnRecord({ rounds: [makeRound('r')], summaryBlocks: [{ roundId: 'gone', text: 'S' }] })) },
				{ user: 'v', metadata: stored({ schemaVersion: 1, rounds: [], summaries: [{ roundId: 'gone too', text: 'S' }] }) },
			]);
			assert.equal(conversation.turns[0].rounds[0].summary, undefined);
			assert.deepEqual(
				issues.map(i => [i.kind, i.path, i.turnIndex]),
				[
					['unknown-round', 'history[0].metadata.longhaul.summaryBlocks[0].roundId', 0],
					['unknown-round', 'history[1].metadata.longhaul.summaries[0].roundId', 1],
				],
			);
		});

		it('a turn without a record keeps its user message and has no rounds; the issue says which turn', () => {
			const { conversation, issues } = rebuildConversation([
				{ user: 'first', metadata: undefined },
				{ user: 'second', metadata: stored(encodeTurnRecord({ rounds: [makeRound('r')] })) },
			]);
			assert.deepEqual(
				conversation.turns.map(t => [t.user, t.rounds.length]),
				[
					['first', 0],
					['second', 1],
				],
			);
			assert.deepEqual(
				issues.map(i => [i.kind, i.path]),
				[['missing-field', 'history[0].metadata.longhaul']],
			);
		});

		it('issue paths inside a record are prefixed with the history entry', () => {
			const { issues } = rebuildConversation([
				{ user: 'u', metadata: stored({ schemaVersion: 2, rounds: [{ id: 'r', response: 1, toolCalls: [] }], summaryBlocks: [] }) },
			]);
			assert.deepEqual(
				issues.map(i => formatIssue(i)),
				['history[0].metadata.longhaul.rounds[0].response: expected a string, got a number'],
			);
		});

		it("an unknown version skips that turn's rounds but keeps the rest of the history", () => {
			const { conversation, issues } = rebuildConversation([
				{ user: 'old', metadata: stored({ schemaVersion: 99 }) },
				{ user: 'new', metadata: stored(encodeTurnRecord({ rounds: [makeRound('r')] })) },
			]);
			assert.equal(conversation.turns[0].rounds.length, 0);
			assert.equal(conversation.turns[1].rounds.length, 1);
			assert.equal(issues[0].kind, 'unknown-version');
		});

		it('the same round id in two turns is reported; summaries anchor on the first', () => {
			const { conversation, issues } = rebuildConversation([
				{ user: 'a', metadata: stored(encodeTurnRecord({ rounds: [makeRound('dup')] })) },
				{ user: 'b', metadata: stored(encodeTurnRecord({ rounds: [makeRound('dup')], summaryBlocks: [{ roundId: 'dup', text: 'S' }] })) },
			]);
			assert.equal(conversation.turns[0].rounds[0].summary, 'S');
			assert.equal(conversation.turns[1].rounds[0].summary, undefined);
			assert.equal(issues[0].kind, 'duplicate-id');
		});
	});

	describe('cutForStorage', () => {
		it(`cuts results longer than the cap (default ${STORED_RESULT_MAX_CHARS}) to at most the cap, keeping head and tail and a marker`, () => {
			const long = 'H'.repeat(30_000) + 'T'.repeat(30_000);
			const round = makeRound('r', { toolCalls: [{ id: 'c', name: 'runCommand', arguments: '{}', result: long }] });
			const result = cutForStorage(round).toolCalls[0].result!;
			assert.ok(result.length <= STORED_RESULT_MAX_CHARS, `${result.length}`);
			assert.ok(result.length > STORED_RESULT_MAX_CHARS - 100);
			assert.ok(result.startsWith('HHHH') && result.endsWith('TTTT'));
			assert.match(result, /\[\.\.\. \d+ characters of this tool result were not stored in the chat history \.\.\.\]/);
			const cut = Number(/\[\.\.\. (\d+) characters/.exec(result)![1]);
			assert.equal(result.length - result.match(/\n\[.*\]\n/)![0].length + cut, long.length);
		});

		it('leaves short results, unanswered calls and the round object itself alone when nothing is cut', () => {
			const round = makeRound('r', {
				toolCalls: [
					{ id: 'c', name: 'x', arguments: '{}', result: 'short' },
					{ id: 'd', name: 'y', arguments: '{}' },
				],
			});
			assert.equal(cutForStorage(round, 10), round);
			const trimmed = cutForStorage({ ...round, toolCalls: [...round.toolCalls, { id: 'e', name: 'z', arguments: '{}', result: 'x'.repeat(500) }] }, 200);
			assert.equal(trimmed.toolCalls[0], round.toolCalls[0]);
			assert.equal(trimmed.toolCalls[1].result, undefined);
			assert.ok(trimmed.toolCalls[2].result!.length <= 200);
		});

		it('is applied by encodeTurnRecord', () => {
			const record = encodeTurnRecord({ rounds: [makeRound('r', { toolCalls: [{ id: 'c', name: 'x', arguments: '{}', result: 'y'.repeat(1000) }] })] }, 300);
			assert.ok(record.rounds[0].toolCalls[0].result!.length <= 300);
		});
	});
});
